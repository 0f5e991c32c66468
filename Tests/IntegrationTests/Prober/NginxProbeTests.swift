import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// Probes against a real nginx with test-CA certificates (TLS 1.2-only and TLS 1.3-only sites).
final class NginxProbeTests: ProbeTestCase {
    private var nginx: NginxServer!

    override func setUpWithError() throws {
        nginx = try NginxServer()
    }

    override func tearDown() {
        nginx?.stop()
        nginx = nil
    }

    func testTLS12SiteJSONEndpoint() async throws {
        let result = try await probe("https://localhost:\(nginx.tls12Port)/json", configuration: configuration(serializer: .json))
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.httpVersion, "HTTP/1.1")
        XCTAssertEqual(result.contentType, "application/json")
        XCTAssertEqual(result.tls?.version, "TLSv1.2")
        // nginx follows the client's order: ours puts ECDHE with AES-128-GCM first.
        let cipher = result.tls?.cipher ?? ""
        XCTAssertTrue(cipher.hasPrefix("ECDHE-") && cipher.hasSuffix("-AES128-GCM-SHA256"), cipher)
        XCTAssertEqual(result.tls?.alpn, "http/1.1")
        XCTAssertEqual(result.trustVerdict, .trusted)
        XCTAssertEqual(result.pinVerdict, .notPinned)
        XCTAssertEqual(result.servedChain.count, 1)
        XCTAssertEqual(result.validatedChain.count, 2)
        XCTAssertEqual(result.resolvedAddress, "127.0.0.1")
        let timings = result.timings
        for value in [timings.resolve, timings.connect, timings.tls, timings.processing, timings.transfer, timings.total] {
            XCTAssertNotNil(value)
            XCTAssertGreaterThanOrEqual(value ?? -1, 0)
        }
        XCTAssertGreaterThanOrEqual(timings.total!, timings.connect! + timings.tls!)
    }

    func testTLS13SiteAndMinimumVersion() async throws {
        let result = try await probe("https://127.0.0.1:\(nginx.tls13Port)/text", configuration: configuration())
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.tls?.version, "TLSv1.3")
        XCTAssertEqual(result.tls?.cipher, "TLS_AES_128_GCM_SHA256")
        XCTAssertEqual(result.contentLength, 14)

        var config = try configuration()
        config.tls.minimumVersion = .tls13
        let refused = try await probe("https://localhost:\(nginx.tls12Port)/text", configuration: config)
        XCTAssertEqual(refused.error?.kind, .tlsHandshake)
        XCTAssertEqual(refused.error?.alert, "protocol version", "\(String(describing: refused.error))")
    }

    func testJSONSerializerRejectsTextAndStatusFailureKeepsKind() async throws {
        let text = try await probe("https://localhost:\(nginx.tls12Port)/text", configuration: configuration(serializer: .json))
        XCTAssertEqual(text.error?.kind, .contentType)
        let failing = try await probe("https://localhost:\(nginx.tls12Port)/status500", configuration: configuration(serializer: .json))
        XCTAssertEqual(failing.error?.kind, .status)
        XCTAssertEqual(failing.status, 500)
    }

    func testExpectations() async throws {
        let good = ProbeExpectations(jsonPaths: [try JSONPathExpectation(parsing: #"$.status == "UP""#)], bodyContains: ["nested"],
                                     minCertificateValidity: 3_600)
        let ok = try await probe("https://localhost:\(nginx.tls13Port)/json", configuration: configuration(expectations: good))
        XCTAssertEqual(ok.outcome, .ok, "\(String(describing: ok.error))")
        let bad = ProbeExpectations(jsonPaths: [try JSONPathExpectation(parsing: "$.nested.count == 4")], minCertificateValidity: 30 * 86_400)
        let failed = try await probe("https://localhost:\(nginx.tls13Port)/json", configuration: configuration(expectations: bad))
        XCTAssertEqual(failed.error?.kind, .expectation)
        XCTAssertEqual(failed.expectationFailures.count, 2, "\(failed.expectationFailures)")
    }

    func testRedirectAcrossHostsIsFollowedWithTrustPerHop() async throws {
        let result = try await probe("https://127.0.0.1:\(nginx.tls12Port)/redirect", configuration: configuration())
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.redirects.count, 1)
        XCTAssertEqual(result.redirects.first?.status, 302)
        XCTAssertEqual(result.finalURL, "https://localhost:\(nginx.tls13Port)/json")
        XCTAssertEqual(result.tls?.version, "TLSv1.3")

        let plain = try await probe("http://127.0.0.1:\(nginx.plainPort)/redirect", configuration: configuration())
        XCTAssertEqual(plain.outcome, .ok, "\(String(describing: plain.error))")
        XCTAssertEqual(plain.redirects.first?.status, 301)

        let notFollowed = try await probe("https://127.0.0.1:\(nginx.tls12Port)/redirect", configuration: configuration(maxRedirects: 0))
        XCTAssertEqual(notFollowed.error?.kind, .status)
        XCTAssertEqual(notFollowed.status, 302)

        let loop = try await probe("https://localhost:\(nginx.tls12Port)/loop", configuration: configuration(maxRedirects: 3))
        XCTAssertEqual(loop.error?.kind, .httpProtocol)
        XCTAssertEqual(loop.redirects.count, 3)
    }

    func testWrongCAIsATrustFailure() async throws {
        let result = try await probe("https://localhost:\(nginx.tls12Port)/json", configuration: configuration(ca: "other.crt"))
        XCTAssertEqual(result.error?.kind, .trust)
        XCTAssertEqual(result.error?.verdict, .untrusted(reason: "chainInvalid"))
        XCTAssertNil(result.status)
        XCTAssertEqual(result.servedChain.count, 1, "the served chain is recorded even when untrusted")
    }

    func testPlainHTTPAndRefusedPort() async throws {
        let plain = try await probe("http://127.0.0.1:\(nginx.plainPort)/json", configuration: configuration())
        XCTAssertEqual(plain.outcome, .ok)
        XCTAssertNil(plain.tls)
        XCTAssertNil(plain.timings.tls)
        let tlsOnPlain = try await probe("https://127.0.0.1:\(nginx.plainPort)/json", configuration: configuration())
        XCTAssertEqual(tlsOnPlain.error?.kind, .tlsHandshake, "\(String(describing: tlsOnPlain.error))")
        let refused = try await probe("http://127.0.0.1:\(freePort())/", configuration: configuration())
        XCTAssertEqual(refused.error?.kind, .connectRefused)
        let dns = try await probe("https://no-such-host.invalid/", configuration: configuration())
        XCTAssertEqual(dns.error?.kind, .dns)
    }

    func testHEADRequest() async throws {
        let result = try await probe("https://localhost:\(nginx.tls12Port)/json", method: .HEAD, configuration: configuration())
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.contentLength, 0)
    }
}
