import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// HTTP/2 against real servers: nginx with `http2`, nghttpd (h2 only), `http_version` "1.1" and "2", redirects
/// across HTTP/2 and HTTP/1.1 hops, the body limit, a CONNECT tunnel through squid.
final class HTTP2ProbeTests: ProbeTestCase {
    private var nginx: NginxHTTP2Server!

    override func setUpWithError() throws {
        nginx = try NginxHTTP2Server()
    }

    override func tearDown() {
        nginx?.stop()
        nginx = nil
    }

    private func configuration(_ version: HTTPVersionPreference, maxBodyBytes: Int = 10 * 1024 * 1024,
                               serializer: ResponseSerializer = .http) throws -> ProbeConfiguration {
        var configuration = try configuration(serializer: serializer, maxBodyBytes: maxBodyBytes)
        configuration.httpVersion = version
        return configuration
    }

    func testAutoSpeaksHTTP2WithNginx() async throws {
        let result = try await probe("https://localhost:\(nginx.port)/json", configuration: configuration(.auto, serializer: .json))
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.httpVersion, "HTTP/2")
        XCTAssertEqual(result.tls?.alpn, "h2")
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.contentType, "application/json")
        XCTAssertEqual(result.contentLength, 15)
        XCTAssertEqual(result.trustVerdict, .trusted)
        let timings = result.timings
        for value in [timings.resolve, timings.connect, timings.tls, timings.processing, timings.transfer, timings.total] {
            XCTAssertGreaterThanOrEqual(value ?? -1, 0)
        }
        let big = try await probe("https://localhost:\(nginx.port)/big", configuration: configuration(.auto))
        XCTAssertEqual(big.outcome, .ok, "\(String(describing: big.error))")
        XCTAssertEqual(big.contentLength, 65_536)
    }

    func testHTTP11OffersOnlyHTTP11() async throws {
        let result = try await probe("https://localhost:\(nginx.port)/text", configuration: configuration(.http1_1))
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.httpVersion, "HTTP/1.1")
        XCTAssertEqual(result.tls?.alpn, "http/1.1")
    }

    func testRequiredHTTP2FailsAgainstAnHTTP11OnlyServer() async throws {
        let plain = try NginxServer()
        defer { plain.stop() }
        let result = try await probe("https://localhost:\(plain.tls13Port)/json", configuration: configuration(.http2))
        XCTAssertEqual(result.error?.kind, .http2Unavailable, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("it selected http/1.1") ?? false, "\(String(describing: result.error))")
        XCTAssertEqual(result.trustVerdict, .trusted, "the chain is judged before the protocol check")
        XCTAssertNil(result.status)
        // The same server with auto: HTTP/1.1.
        let auto = try await probe("https://localhost:\(plain.tls13Port)/json", configuration: configuration(.auto))
        XCTAssertEqual(auto.outcome, .ok, "\(String(describing: auto.error))")
        XCTAssertEqual(auto.httpVersion, "HTTP/1.1")
        let clear = try await probe("http://127.0.0.1:\(plain.plainPort)/json", configuration: configuration(.http2))
        XCTAssertEqual(clear.error?.kind, .http2Unavailable)
        XCTAssertNil(clear.status)

        let ok = try await probe("https://localhost:\(nginx.port)/json", configuration: configuration(.http2))
        XCTAssertEqual(ok.outcome, .ok, "\(String(describing: ok.error))")
        XCTAssertEqual(ok.httpVersion, "HTTP/2")
    }

    func testRedirectsAcrossHTTP2AndHTTP11Hops() async throws {
        let result = try await probe("https://127.0.0.1:\(nginx.port)/redirect", configuration: configuration(.auto))
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.redirects.map(\.status), [302])
        XCTAssertEqual(result.finalURL, "https://localhost:\(nginx.otherPort)/json")
        XCTAssertEqual(result.httpVersion, "HTTP/2")

        let plain = try NginxServer()
        defer { plain.stop() }
        // HTTP/1.1 site → HTTP/2 site is not configured there; an HTTP/1.1 redirect to the other host name is.
        let mixed = try await probe("https://127.0.0.1:\(plain.tls12Port)/redirect", configuration: configuration(.auto))
        XCTAssertEqual(mixed.outcome, .ok, "\(String(describing: mixed.error))")
        XCTAssertEqual(mixed.httpVersion, "HTTP/1.1")
    }

    func testBodyLimitHoldsOverHTTP2() async throws {
        let result = try await probe("https://localhost:\(nginx.port)/big", configuration: configuration(.auto, maxBodyBytes: 1_000))
        XCTAssertEqual(result.error?.kind, .bodyTooLarge, "\(String(describing: result.error))")
    }

    func testNghttpdHTTP2OnlyServer() async throws {
        let server = try NghttpdServer()
        defer { server.stop() }
        let result = try await probe("https://localhost:\(server.port)/health.json", configuration: configuration(.auto, serializer: .json))
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.httpVersion, "HTTP/2")
        XCTAssertEqual(result.tls?.alpn, "h2")
        XCTAssertEqual(result.contentLength, 15)
        let required = try await probe("https://localhost:\(server.port)/health.json", configuration: configuration(.http2))
        XCTAssertEqual(required.outcome, .ok, "\(String(describing: required.error))")
        // Offering only http/1.1 to an h2-only server fails cleanly (a handshake or protocol error, never a hang).
        let start = Date()
        let old = try await probe("https://localhost:\(server.port)/health.json", configuration: configuration(.http1_1))
        XCTAssertEqual(old.outcome, .failed)
        XCTAssertLessThan(Date().timeIntervalSince(start), 4.5)
    }

    func testHTTP2InsideASquidTunnelWithThePinJudgedFirst() async throws {
        let squid = try SquidProcess()
        defer { squid.stop() }
        let originKey = try Certificate.load(contentsOf: pki.path("ca-leaf.crt"))[0].spkiPin
        var configuration = try configuration(policy: SecurityPolicy(pinning: .publicKey, pins: [originKey]))
        configuration.proxy = try ProxyConfiguration(url: squid.url)
        let result = try await probe("https://127.0.0.1:\(nginx.port)/json", configuration: configuration)
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.httpVersion, "HTTP/2")
        XCTAssertEqual(result.pinVerdict, .matched)
        XCTAssertNotNil(result.timings.proxy)
        let log = squid.accessLog(waitingFor: "CONNECT 127.0.0.1:\(nginx.port)")
        XCTAssertTrue(log.contains("TCP_TUNNEL/200"), log)
    }
}
