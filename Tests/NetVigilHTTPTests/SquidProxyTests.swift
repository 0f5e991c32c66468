import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilHTTP

/// Probes through a real squid on loopback: CONNECT tunnels for https:// (trust and pins on the origin's chain),
/// absolute-form for http://, proxy authentication, refusals as kind `proxy`, `no_proxy`, and no direct fallback.
final class SquidProxyTests: ProbeTestCase {
    private var nginx: NginxServer!

    override func setUpWithError() throws {
        nginx = try NginxServer()
    }

    override func tearDown() {
        nginx?.stop()
        nginx = nil
    }

    private func proxied(_ squid: SquidProcess, credentials: ProxyCredentials? = nil, noProxy: [String] = [],
                         policy: SecurityPolicy = .default) throws -> ProbeConfiguration {
        var configuration = try configuration(policy: policy)
        configuration.proxy = try ProxyConfiguration(url: squid.url, credentials: credentials, noProxy: NoProxyList(noProxy))
        return configuration
    }

    func testHTTPSTunnelsWithConnectAndJudgesTheOriginsChain() async throws {
        let squid = try SquidProcess()
        defer { squid.stop() }
        let originKey = try Certificate.load(contentsOf: pki.path("ca-leaf.crt"))[0].spkiPin
        let configuration = try proxied(squid, policy: SecurityPolicy(pinning: .publicKey, pins: [originKey]))
        let result = try await probe("https://127.0.0.1:\(nginx.tls13Port)/text", configuration: configuration)
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.trustVerdict, .trusted)
        XCTAssertEqual(result.pinVerdict, .matched)
        XCTAssertEqual(result.tls?.version, "TLSv1.3")
        XCTAssertEqual(result.servedChain.first?.spkiPin, originKey.description)
        XCTAssertNotNil(result.timings.proxy)
        XCTAssertNil(result.timings.connect, "a proxied probe never connects to the origin itself")
        XCTAssertNotNil(result.timings.tls)
        XCTAssertNotNil(result.timings.processing)
        let log = squid.accessLog(waitingFor: "CONNECT 127.0.0.1:\(nginx.tls13Port)")
        XCTAssertTrue(log.contains("TCP_TUNNEL/200") && log.contains("CONNECT 127.0.0.1:\(nginx.tls13Port)"), log)
    }

    func testHTTPUsesAbsoluteFormAndRedirectHopsStayProxied() async throws {
        let squid = try SquidProcess()
        defer { squid.stop() }
        let result = try await probe("http://127.0.0.1:\(nginx.plainPort)/text", configuration: proxied(squid))
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.contentLength, 14)
        XCTAssertNotNil(result.timings.proxy)
        XCTAssertNil(result.timings.connect)
        var log = squid.accessLog(waitingFor: "GET http://127.0.0.1:\(nginx.plainPort)/text")
        XCTAssertTrue(log.contains("GET http://127.0.0.1:\(nginx.plainPort)/text"), log)

        let redirected = try await probe("https://127.0.0.1:\(nginx.tls12Port)/redirect", configuration: proxied(squid))
        XCTAssertEqual(redirected.outcome, .ok, "\(String(describing: redirected.error))")
        XCTAssertEqual(redirected.redirects.count, 1)
        log = squid.accessLog(waitingFor: "CONNECT localhost:\(nginx.tls13Port)")
        XCTAssertTrue(log.contains("CONNECT 127.0.0.1:\(nginx.tls12Port)") && log.contains("CONNECT localhost:\(nginx.tls13Port)"), log)
    }

    func testProxyAuthentication() async throws {
        let squid = try SquidProcess(credentials: ("probe", "right-password"))
        defer { squid.stop() }
        let url = "https://127.0.0.1:\(nginx.tls12Port)/text"
        let right = try await probe(url, configuration: proxied(squid, credentials: ProxyCredentials(user: "probe", password: "right-password")))
        XCTAssertEqual(right.outcome, .ok, "\(String(describing: right.error))")
        XCTAssertTrue(squid.accessLog(waitingFor: " probe ").contains(" probe HIER_DIRECT"), squid.accessLog())

        let wrong = try await probe(url, configuration: proxied(squid, credentials: ProxyCredentials(user: "probe", password: "wrong-password")))
        XCTAssertEqual(wrong.error?.kind, .proxy)
        XCTAssertTrue(wrong.error?.message.contains("407") ?? false, "\(String(describing: wrong.error))")
        XCTAssertFalse("\(String(describing: wrong.error))".contains("wrong-password"))
        XCTAssertNil(wrong.tls, "no TLS with the origin when the tunnel was refused")

        let missing = try await probe("http://127.0.0.1:\(nginx.plainPort)/text", configuration: proxied(squid))
        XCTAssertEqual(missing.error?.kind, .proxy, "a 407 to an absolute-form request is the proxy's")
        XCTAssertTrue(missing.error?.message.contains("407") ?? false, "\(String(describing: missing.error))")
        let plain = try await probe("http://127.0.0.1:\(nginx.plainPort)/text",
                                    configuration: proxied(squid, credentials: ProxyCredentials(user: "probe", password: "right-password")))
        XCTAssertEqual(plain.outcome, .ok, "\(String(describing: plain.error))")
    }

    func testRefusedPortIsKindProxyWith403() async throws {
        let squid = try SquidProcess(connectPorts: [nginx.tls12Port])
        defer { squid.stop() }
        let refused = try await probe("https://127.0.0.1:\(nginx.tls13Port)/text", configuration: proxied(squid))
        XCTAssertEqual(refused.error?.kind, .proxy)
        XCTAssertTrue(refused.error?.message.contains("403") ?? false, "\(String(describing: refused.error))")
        let allowed = try await probe("https://127.0.0.1:\(nginx.tls12Port)/text", configuration: proxied(squid))
        XCTAssertEqual(allowed.outcome, .ok, "\(String(describing: allowed.error))")
    }

    func testNoProxyGoesDirectAndTheProxySeesNothing() async throws {
        let squid = try SquidProcess()
        defer { squid.stop() }
        for url in ["https://127.0.0.1:\(nginx.tls13Port)/text", "http://localhost:\(nginx.plainPort)/text"] {
            let result = try await probe(url, configuration: proxied(squid, noProxy: ["127.0.0.0/8", "localhost"]))
            XCTAssertEqual(result.outcome, .ok, "\(url): \(String(describing: result.error))")
            XCTAssertNotNil(result.timings.connect)
            XCTAssertNil(result.timings.proxy)
        }
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertEqual(squid.accessLog(), "")
    }

    func testAProxyThatIsDownFailsWithoutGoingDirect() async throws {
        var configuration = try configuration()
        configuration.proxy = try ProxyConfiguration(url: "http://127.0.0.1:\(freePort())")
        let result = try await probe("https://127.0.0.1:\(nginx.tls13Port)/text", configuration: configuration)
        XCTAssertEqual(result.error?.kind, .connectRefused)
        XCTAssertTrue(result.error?.message.hasPrefix("proxy http://127.0.0.1:") ?? false, "\(String(describing: result.error))")
        XCTAssertNil(result.status)
        XCTAssertNil(result.tls)
    }
}
