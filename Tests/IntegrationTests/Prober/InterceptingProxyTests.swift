import Foundation
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// A TLS-intercepting proxy (mitmproxy) between the probe and an origin nginx: the attack pinning exists for.
/// The interceptor answers CONNECT and serves a chain it forges; pinned to the origin's key, the probe refuses it
/// (pin mismatch, the interceptor's chain in the result) even when the interceptor's CA is trusted, and the origin
/// never gets a request.
final class InterceptingProxyTests: ProbeTestCase {
    private var originPrefix = ""
    private var origin: NginxProcess!
    private var originPort = 0
    private var mitmproxy: MitmproxyProcess!

    override func setUpWithError() throws {
        originPort = freePort()
        originPrefix = NSTemporaryDirectory() + "netvigil-origin-\(UUID().uuidString)"
        origin = try NginxProcess(prefix: originPrefix, servers: """
                server {
                    listen 127.0.0.1:\(originPort) ssl;
                    server_name localhost;
                    ssl_certificate \(pki.path("ca-leaf.crt"));
                    ssl_certificate_key \(pki.path("ca-leaf.key"));
                    access_log \(originPrefix)/logs/origin-access.log;
                    location / { default_type text/plain; return 200 'origin'; }
                }
            """, ports: [originPort])
        mitmproxy = try MitmproxyProcess(upstreamCA: pki.path("ca.crt"))
    }

    override func tearDown() {
        mitmproxy?.stop()
        origin?.stop()
        try? FileManager.default.removeItem(atPath: originPrefix)
    }

    private var originRequests: String {
        (try? String(contentsOfFile: originPrefix + "/logs/origin-access.log", encoding: .utf8)) ?? ""
    }

    private func intercepted(trustingInterceptor: Bool, policy: SecurityPolicy) async throws -> ProbeResult {
        let caPaths = [pki.path("ca.crt")] + (trustingInterceptor ? [mitmproxy.caCertificatePath] : [])
        var configuration = ProbeConfiguration(trustStore: try TrustStore(systemRoots: false, caPaths: caPaths),
                                               policies: try PolicySet(default: policy, entries: []), timeout: 10)
        configuration.proxy = try ProxyConfiguration(url: mitmproxy.url)
        return await Prober().probe(try RequestSerializer(version: "test").request(method: .GET, url: "https://localhost:\(originPort)/secret"),
                                        configuration: configuration)
    }

    private var originPin: SPKIPin {
        get throws { try Certificate.load(contentsOf: pki.path("ca-leaf.crt"))[0].spkiPin }
    }

    func testWithItsCATrustedAndNoPinTheInterceptorGetsThrough() async throws {
        // The control: interception works, so the refusals below are the pins' doing.
        let result = try await intercepted(trustingInterceptor: true, policy: .default)
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error)) \(mitmproxy.log().suffix(800))")
        XCTAssertTrue(result.servedChain.first?.issuer.contains("mitmproxy") ?? false, "\(result.servedChain.map(\.issuer))")
        XCTAssertTrue(waitForOriginRequest().contains("GET /secret"), originRequests)
    }

    func testPinnedOriginRefusesTheInterceptorsChain() async throws {
        // Pins alone decide (a self-signed origin pinned by key): the forged leaf has the right name, not the key.
        let pinOnly = try SecurityPolicy(pinning: .publicKey, allowInvalidCertificates: true, pins: [try originPin])
        let result = try await intercepted(trustingInterceptor: false, policy: pinOnly)
        XCTAssertEqual(result.error?.kind, .trust, "\(String(describing: result.error))")
        XCTAssertEqual(result.pinVerdict, .mismatch)
        XCTAssertTrue(result.servedChain.first?.issuer.contains("mitmproxy") ?? false, "\(result.servedChain.map(\.issuer))")
        XCTAssertNotEqual(result.servedChain.first?.spkiPin, try originPin.description)
        XCTAssertNil(result.status)

        // With chain validation on, the unknown CA already fails it: untrusted all the same.
        let validated = try await intercepted(trustingInterceptor: false,
                                              policy: SecurityPolicy(pinning: .publicKey, pins: [try originPin]))
        XCTAssertEqual(validated.error?.kind, .trust)
        XCTAssertFalse(validated.trustVerdict?.isTrusted ?? true)
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertFalse(originRequests.contains("/secret"), "the origin got a request: \(originRequests)")
    }

    func testInterceptorCATrustedButOriginPinnedIsStillAPinMismatch() async throws {
        let result = try await intercepted(trustingInterceptor: true, policy: SecurityPolicy(pinning: .publicKey, pins: [try originPin]))
        XCTAssertEqual(result.error?.kind, .trust, "\(String(describing: result.error))")
        XCTAssertEqual(result.pinVerdict, .mismatch)
        XCTAssertEqual(result.trustVerdict?.reason, "publicKeyPinMismatch")
        XCTAssertTrue(result.servedChain.first?.issuer.contains("mitmproxy") ?? false, "\(result.servedChain.map(\.issuer))")
        XCTAssertTrue(result.validatedChain.contains { $0.subject.contains("mitmproxy") }, "the interceptor's CA validated the chain")
        XCTAssertNil(result.status)
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertFalse(originRequests.contains("/secret"), "the origin got a request: \(originRequests)")
    }

    private func waitForOriginRequest() -> String {
        Poll.until(timeout: 3) { originRequests.contains("/secret") }
        return originRequests
    }
}
