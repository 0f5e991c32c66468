import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// Probes through a real squid on loopback: CONNECT tunnels for https:// (trust and pins on the origin's chain),
/// absolute-form for http://, proxy authentication, refusals as kind `proxy`, `no_proxy`, and no direct fallback.
/// Also `netvigil probe URL --proxy URL [--proxy-user U --proxy-password-file F]`. Each test starts its own nginx
/// origin and squid.
final class SquidProxyTests: ProbeTestCase {

    private func proxied(_ squid: SquidProcess, credentials: ProxyCredentials? = nil, noProxy: [String] = [],
                         policy: SecurityPolicy = .default) throws -> ProbeConfiguration {
        var configuration = try configuration(policy: policy)
        configuration.proxy = try ProxyConfiguration(url: squid.url, credentials: credentials, noProxy: NoProxyList(noProxy))
        return configuration
    }

    func testHTTPSTunnelsWithConnectAndJudgesTheOriginsChain() async throws {
        let nginx = try NginxServer()
        defer { nginx.stop() }
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
        let nginx = try NginxServer()
        defer { nginx.stop() }
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
        let nginx = try NginxServer()
        defer { nginx.stop() }
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
        let nginx = try NginxServer()
        defer { nginx.stop() }
        let squid = try SquidProcess(connectPorts: [nginx.tls12Port])
        defer { squid.stop() }
        let refused = try await probe("https://127.0.0.1:\(nginx.tls13Port)/text", configuration: proxied(squid))
        XCTAssertEqual(refused.error?.kind, .proxy)
        XCTAssertTrue(refused.error?.message.contains("403") ?? false, "\(String(describing: refused.error))")
        let allowed = try await probe("https://127.0.0.1:\(nginx.tls12Port)/text", configuration: proxied(squid))
        XCTAssertEqual(allowed.outcome, .ok, "\(String(describing: allowed.error))")
    }

    func testNoProxyGoesDirectAndTheProxySeesNothing() async throws {
        let nginx = try NginxServer()
        defer { nginx.stop() }
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
        let nginx = try NginxServer()
        defer { nginx.stop() }
        var configuration = try configuration()
        configuration.proxy = try ProxyConfiguration(url: "http://127.0.0.1:\(freePort())")
        let result = try await probe("https://127.0.0.1:\(nginx.tls13Port)/text", configuration: configuration)
        XCTAssertEqual(result.error?.kind, .connectRefused)
        XCTAssertTrue(result.error?.message.hasPrefix("proxy http://127.0.0.1:") ?? false, "\(String(describing: result.error))")
        XCTAssertNil(result.status)
        XCTAssertNil(result.tls)
    }

    func testCLIProbeThroughAnAuthenticatingProxy() throws {
        let nginx = try NginxServer()
        defer { nginx.stop() }
        let squid = try SquidProcess(credentials: ("probe", "cli-proxy-pass"))
        defer { squid.stop() }
        let directory = try TemporaryDirectory()
        let right = try directory.write("right.pass", "cli-proxy-pass\n")
        let wrong = try directory.write("wrong.pass", "not-the-pass\n")
        let url = "https://localhost:\(nginx.tls13Port)/json"
        let base = ["probe", url, "--ca", pki.path("ca.crt"), "--no-system-roots", "--proxy", squid.url, "--proxy-user", "probe"]

        let ok = try ProcessRunner.run(base + ["--proxy-password-file", right, "--json"])
        XCTAssertEqual(ok.status, 0, ok.stderr + ok.stdout)
        let object = try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any]
        XCTAssertNotNil((object?["timings_ms"] as? [String: Any])?["proxy"] as? Double, ok.stdout)
        XCTAssertTrue((object?["timings_ms"] as? [String: Any])?["connect"] is NSNull, ok.stdout)
        try SchemaValidator.assertValid(text: ok.stdout, schema: "probe-result")
        XCTAssertTrue(squid.accessLog(waitingFor: "CONNECT localhost:\(nginx.tls13Port)").contains("CONNECT localhost:\(nginx.tls13Port)"))

        let refused = try ProcessRunner.run(base + ["--proxy-password-file", wrong, "--json"])
        XCTAssertEqual(refused.status, 1, refused.stderr + refused.stdout)
        let failure = try JSONSerialization.jsonObject(with: Data(refused.stdout.utf8)) as? [String: Any]
        let error = failure?["error"] as? [String: Any]
        XCTAssertEqual(error?["kind"] as? String, "proxy")
        XCTAssertTrue((error?["message"] as? String)?.contains("407") ?? false, refused.stdout)
        try SchemaValidator.assertValid(text: refused.stdout, schema: "probe-result")
        let human = try ProcessRunner.run(base + ["--proxy-password-file", wrong])
        XCTAssertEqual(human.status, 1)
        for output in [refused.stdout, refused.stderr, human.stdout, human.stderr, ok.stdout] {
            XCTAssertFalse(output.contains("not-the-pass") || output.contains("cli-proxy-pass"), output)
        }
    }

    func testCLIProxyUsageErrors() throws {
        let nginx = try NginxServer()
        defer { nginx.stop() }
        let url = "https://localhost:\(nginx.tls13Port)/"
        for (arguments, fragment) in [(["--proxy", "https://proxy:3128"], "https:// proxies are not supported"),
                                      (["--proxy-user", "probe"], "--proxy-user needs --proxy URL"),
                                      (["--proxy", "http://proxy:3128", "--proxy-user", "probe"], "go together"),
                                      (["--proxy", "http://proxy:3128", "--no-proxy", "10.0.0.0/99"], "no_proxy entry")] {
            let result = try ProcessRunner.run(["probe", url] + arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(fragment), result.stderr)
        }
    }
}
