import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilProber
@testable import NetVigilTrust

/// OCSP by HTTP GET (RFC 6960 appendix A.1) against a real `openssl ocsp -port` responder behind nginx: one nginx
/// site lets only GET through, the other only POST, so what answers proves which method was used.
final class OCSPGetTests: ProbeTestCase {
    private var nginx: NginxProcess!
    private var responder: Process!
    private var revocationPKI: RevocationPKI!
    private var prefix = ""
    private let ocspPort = freePort(), getOnlyPort = freePort(), postOnlyPort = freePort()
    private let goodPort = freePort(), revokedPort = freePort()

    override func setUpWithError() throws {
        // The leaves' AIA names the GET-only site; no CRL can be downloaded, so only OCSP can settle the leaf.
        revocationPKI = try RevocationPKI(crlBase: "http://127.0.0.1:\(freePort())/crl",
                                          ocspURL: "http://127.0.0.1:\(getOnlyPort)/")
        responder = try revocationPKI.startResponder(port: ocspPort)
        prefix = NSTemporaryDirectory() + "netvigil-nginx-\(UUID().uuidString)"
        func site(_ port: Int, _ leaf: String) throws -> String { try revocationPKI.nginxSite(port: port, leaf: leaf) }
        // proxy_pass without a URI passes the request URI as it came (the %2F in the encoded request stays).
        let servers = """
                server {
                    listen 127.0.0.1:\(getOnlyPort);
                    location / { limit_except GET { deny all; } proxy_pass http://127.0.0.1:\(ocspPort); }
                }
                server {
                    listen 127.0.0.1:\(postOnlyPort);
                    location / { limit_except POST { deny all; } proxy_pass http://127.0.0.1:\(ocspPort); }
                }
            \(try site(goodPort, "good"))
            \(try site(revokedPort, "revoked"))
            """
        nginx = try NginxProcess(prefix: prefix, servers: servers, ports: [getOnlyPort, postOnlyPort, goodPort, revokedPort])
    }

    override func tearDown() {
        nginx?.stop()
        if let responder, responder.isRunning {
            kill(responder.processIdentifier, SIGKILL)
            responder.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: prefix)
    }

    private func query(_ url: String, leaf: String = "good") throws -> OCSPQuery {
        let leafCertificate = try XCTUnwrap(Certificate.load(contentsOf: revocationPKI.path("\(leaf).crt")).first)
        let issuer = try XCTUnwrap(Certificate.load(contentsOf: revocationPKI.path("intermediate.crt")).first)
        let request = try XCTUnwrap(RevocationChecker.ocspRequest(for: leafCertificate, issuer: issuer))
        return OCSPQuery(url: url, request: request, key: url + "#" + leafCertificate.sha256Fingerprint)
    }

    private func chain(_ leaf: String) throws -> [Certificate] {
        // Validated-chain order, anchor included: the answer's signature is verified up to it.
        try ["\(leaf).crt", "intermediate.crt", "root.crt"].flatMap { try Certificate.load(contentsOf: revocationPKI.path($0)) }
    }

    private func fetcher(_ config: ProbeConfiguration) -> CRLFetcher {
        CRLFetcher(prober: Prober(), cache: CRLCache(), template: config)
    }

    private func revocationConfiguration(_ mode: RevocationPolicy.Mode) throws -> ProbeConfiguration {
        let store = try TrustStore(systemRoots: false, caPaths: [revocationPKI.path("root.crt")])
        let policy = try SecurityPolicy(revocation: RevocationPolicy(mode: mode))
        return ProbeConfiguration(trustStore: store, policies: try PolicySet(default: policy, entries: []), timeout: 10)
    }

    func testGetURLIsTheURLEncodedBase64AndLongRequestsArePosted() throws {
        let query = try query("http://127.0.0.1:\(getOnlyPort)/")
        let url = try XCTUnwrap(CRLFetcher.ocspGetURL(query))
        let encoded = String(url.dropFirst(query.url.count))
        XCTAssertFalse(encoded.contains("+") || encoded.contains("/") || encoded.contains("="), encoded)
        XCTAssertEqual(Data(base64Encoded: try XCTUnwrap(encoded.removingPercentEncoding)), query.request)
        let withoutSlash = try self.query("http://127.0.0.1:\(getOnlyPort)/ocsp")
        XCTAssertTrue(try XCTUnwrap(CRLFetcher.ocspGetURL(withoutSlash)).hasPrefix("http://127.0.0.1:\(getOnlyPort)/ocsp/M"),
                      "a / between the responder URL and the request")
        // RFC 6960 A.1: GET only below 255 bytes in all.
        let long = try self.query("http://127.0.0.1:\(getOnlyPort)/" + String(repeating: "p", count: 255 - url.utf8.count))
        XCTAssertNil(CRLFetcher.ocspGetURL(long))
        let justFits = try self.query("http://127.0.0.1:\(getOnlyPort)/" + String(repeating: "p", count: 254 - url.utf8.count - 1))
        XCTAssertEqual(CRLFetcher.ocspGetURL(justFits)?.utf8.count, 254)
    }

    func testResponderAnswersAGetAndAPostOnlyResponderThroughTheFallback() async throws {
        let config = try revocationConfiguration(.soft)
        for (port, label) in [(getOnlyPort, "GET-only"), (postOnlyPort, "POST-only")] {
            let query = try query("http://127.0.0.1:\(port)/")
            let downloads = await fetcher(config).download([], queries: [query], within: 10)
            guard case .ocspResponse(let der)? = downloads[query.key] else {
                return XCTFail("\(label): \(String(describing: downloads[query.key]))")
            }
            let answer = OCSPResponseCheck.judge(der, chain: try chain("good"), index: 0, at: Date())
            guard case .good = answer else { return XCTFail("\(label): not a good answer for the leaf: \(answer)") }
        }
        // Neither method gets through: both failures are named.
        let nobody = try query("http://127.0.0.1:\(freePort())/")
        let downloads = await fetcher(config).download([], queries: [nobody], within: 5)
        guard case .failed(let why)? = downloads[nobody.key] else { return XCTFail("\(String(describing: downloads[nobody.key]))") }
        XCTAssertTrue(why.hasPrefix("GET ") && why.contains("; POST "), why)
    }

    func testProbeSettlesTheLeafByGetFromItsAIAResponder() async throws {
        let config = try revocationConfiguration(.soft)
        let revoked = try await probe("https://localhost:\(revokedPort)/", configuration: config)
        XCTAssertEqual(revoked.trustVerdict?.description, "untrusted:revoked", "\(String(describing: revoked.error))")
        XCTAssertTrue(revoked.error?.message.contains("OCSP http://127.0.0.1:\(getOnlyPort)/") ?? false,
                      "\(String(describing: revoked.error))")
        XCTAssertNotNil(revoked.timings.revocation)
        let good = try await probe("https://localhost:\(goodPort)/", configuration: config)
        XCTAssertEqual(good.outcome, .ok, "\(String(describing: good.error))")
        XCTAssertEqual(good.findings.filter { $0.code == "revocation_unknown" }.map(\.certificate), [1],
                       "the leaf is settled by the GET answer (only the intermediate's CRL is unreachable): \(good.findings)")
    }

    /// `netvigil probe --revocation hard|soft`: the leaf is settled by GET, the intermediate's CRL cannot be had.
    func testProbeCLIRevocationHardFailsClosedAndSoftReportsAFinding() throws {
        let common = ["probe", "https://localhost:\(goodPort)/", "--ca", revocationPKI.path("root.crt"), "--no-system-roots", "--json"]
        let hard = try ProcessRunner.run(common + ["--revocation", "hard"])
        XCTAssertEqual(hard.status, 1, hard.stdout + hard.stderr)
        try SchemaValidator.assertValid(text: hard.stdout, schema: "probe-result")
        let failed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(hard.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(failed["trust_verdict"] as? String, "untrusted:revocationUnknown", hard.stdout)
        XCTAssertTrue(failed["http"] is NSNull, "no request is sent to a server whose chain is not trusted")

        let soft = try ProcessRunner.run(common + ["--revocation", "soft"])
        XCTAssertEqual(soft.status, 0, soft.stdout + soft.stderr)
        try SchemaValidator.assertValid(text: soft.stdout, schema: "probe-result")
        let ok = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(soft.stdout.utf8)) as? [String: Any])
        let findings = try XCTUnwrap(ok["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.filter { $0["code"] as? String == "revocation_unknown" }.map { $0["certificate"] as? Int }, [1])
    }
}
