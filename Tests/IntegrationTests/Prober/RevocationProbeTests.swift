import Foundation
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// Revocation through the request stack: an `openssl ca` hierarchy whose CRL distribution points nginx serves over
/// HTTP, nginx sites serving its good and revoked leaves, a distribution point nobody listens on and a 50 MB "CRL".
final class RevocationProbeTests: ProbeTestCase {
    private var nginx: NginxProcess!
    private var prefix = ""
    private var served: RevocationPKI!  // CRLs at http://127.0.0.1:crlPort/crl
    private var down: RevocationPKI!    // CRLs at a port nobody listens on
    private var huge: RevocationPKI!    // intermediate.crl is 50 MB
    private let crlPort = freePort()
    private let goodPort = freePort(), revokedPort = freePort(), downPort = freePort(), hugePort = freePort()
    private let stapledGoodPort = freePort(), stapledRevokedPort = freePort()

    override func setUpWithError() throws {
        served = try RevocationPKI(crlBase: "http://127.0.0.1:\(crlPort)/crl")
        down = try RevocationPKI(crlBase: "http://127.0.0.1:\(freePort())/crl")  // nobody listens there
        huge = try RevocationPKI(crlBase: "http://127.0.0.1:\(crlPort)/huge")
        let hugeDirectory = huge.path("huge")
        try FileManager.default.createDirectory(atPath: hugeDirectory, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: hugeDirectory + "/intermediate.crl", contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: hugeDirectory + "/intermediate.crl"))
        try handle.truncate(atOffset: 50 * 1024 * 1024)
        try handle.close()
        try FileManager.default.copyItem(atPath: huge.path("root.crl"), toPath: hugeDirectory + "/root.crl")

        func site(_ port: Int, _ pki: RevocationPKI, _ leaf: String, staple: String? = nil) throws -> String {
            try pki.nginxSite(port: port, leaf: leaf, extra: staple.map { "ssl_stapling on; ssl_stapling_file \(pki.path($0));" } ?? "")
        }
        prefix = NSTemporaryDirectory() + "netvigil-nginx-\(UUID().uuidString)"
        let servers = """
                server {
                    listen 127.0.0.1:\(crlPort);
                    location /crl/ { alias \(served.directory.url.path)/; }
                    location /huge/ { alias \(hugeDirectory)/; }
                }
            \(try site(goodPort, served, "good"))
            \(try site(revokedPort, served, "revoked"))
            \(try site(downPort, down, "good"))
            \(try site(hugePort, huge, "good"))
            \(try site(stapledGoodPort, down, "good", staple: "good.ocsp"))
            \(try site(stapledRevokedPort, down, "revoked", staple: "revoked.ocsp"))
            """
        nginx = try NginxProcess(prefix: prefix, servers: servers,
                                 ports: [crlPort, goodPort, revokedPort, downPort, hugePort, stapledGoodPort, stapledRevokedPort])
    }

    override func tearDown() {
        nginx?.stop()
        try? FileManager.default.removeItem(atPath: prefix)
    }

    private func configuration(_ pki: RevocationPKI, mode: RevocationPolicy.Mode) throws -> ProbeConfiguration {
        let store = try TrustStore(systemRoots: false, caPaths: [pki.path("root.crt")])
        let policy = try SecurityPolicy(revocation: RevocationPolicy(mode: mode))
        return ProbeConfiguration(trustStore: store, policies: try PolicySet(default: policy, entries: []), timeout: 10)
    }

    func testRevokedLeafFailsAfterADownloadAndThenFromTheCache() async throws {
        let config = try configuration(served, mode: .soft)
        let cold = try await probe("https://localhost:\(revokedPort)/", configuration: config)
        XCTAssertEqual(cold.error?.kind, .trust, "\(String(describing: cold.error))")
        XCTAssertEqual(cold.trustVerdict?.description, "untrusted:revoked")
        XCTAssertTrue(cold.error?.message.contains("keyCompromise") ?? false, "\(String(describing: cold.error))")
        XCTAssertNil(cold.status, "a revoked server never receives the request")
        XCTAssertNotNil(cold.timings.revocation, "a cold download is the revocation phase")
        XCTAssertNotNil(cold.timings.tls)

        let warm = try await probe("https://localhost:\(revokedPort)/", configuration: config)
        XCTAssertEqual(warm.trustVerdict?.description, "untrusted:revoked")
        XCTAssertNil(warm.timings.revocation, "the cached CRLs answer")
        XCTAssertEqual(config.crlCache.count, 2)
    }

    func testGoodLeafIsTrustedAndTheJSONHasTheRevocationPhase() async throws {
        let config = try configuration(served, mode: .hard)
        let result = try await probe("https://localhost:\(goodPort)/", configuration: config)
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.findings.filter { $0.code == "revocation_unknown" }, [])
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as? [String: Any]
        let timings = try XCTUnwrap(json?["timings_ms"] as? [String: Any])
        XCTAssertNotNil(timings["revocation"] as? Double)
    }

    func testUnreachableDistributionPointIsAFindingWhenSoftAndAFailureWhenHard() async throws {
        let soft = try await probe("https://localhost:\(downPort)/", configuration: configuration(down, mode: .soft))
        XCTAssertEqual(soft.outcome, .ok, "\(String(describing: soft.error))")
        let finding = try XCTUnwrap(soft.findings.first { $0.code == "revocation_unknown" })
        XCTAssertTrue(finding.message.contains("refused"), finding.message)

        let hard = try await probe("https://localhost:\(downPort)/", configuration: configuration(down, mode: .hard))
        XCTAssertEqual(hard.error?.kind, .trust)
        XCTAssertEqual(hard.trustVerdict?.description, "untrusted:revocationUnknown")
        XCTAssertNil(hard.status)
    }

    func testTLSServiceTargetsCheckRevocationToo() async throws {
        let url = try XCTUnwrap(URL(string: "tls://localhost:\(downPort)"))
        let soft = await Prober().probe(ProbeRequest(url: url), configuration: try configuration(down, mode: .soft))
        XCTAssertEqual(soft.outcome, .ok, "\(String(describing: soft.error))")
        XCTAssertNotNil(soft.findings.first { $0.code == "revocation_unknown" })
        let hard = await Prober().probe(ProbeRequest(url: url), configuration: try configuration(down, mode: .hard))
        XCTAssertEqual(hard.trustVerdict?.description, "untrusted:revocationUnknown", "\(String(describing: hard.error))")
    }

    func testFiftyMegabyteCRLIsRefused() async throws {
        let before = residentBytes()
        let hard = try await probe("https://localhost:\(hugePort)/", configuration: configuration(huge, mode: .hard))
        XCTAssertEqual(hard.trustVerdict?.description, "untrusted:revocationUnknown")
        XCTAssertTrue(hard.error?.message.contains("limit") ?? false, "\(String(describing: hard.error))")
        XCTAssertLessThan(residentBytes() - before, 30 * 1024 * 1024, "the 50 MB body is never held")

        let soft = try await probe("https://localhost:\(hugePort)/", configuration: configuration(huge, mode: .soft))
        XCTAssertEqual(soft.outcome, .ok, "\(String(describing: soft.error))")
        XCTAssertNotNil(soft.findings.first { $0.code == "revocation_unknown" })
    }

    func testStapledResponsesAnswerForTheLeafWhenTheCRLIsUnreachable() async throws {
        let revoked = try await probe("https://localhost:\(stapledRevokedPort)/", configuration: configuration(down, mode: .soft))
        XCTAssertEqual(revoked.trustVerdict?.description, "untrusted:revoked", "\(String(describing: revoked.error))")
        XCTAssertTrue(revoked.error?.message.contains("stapled OCSP response") ?? false, "\(String(describing: revoked.error))")

        let good = try await probe("https://localhost:\(stapledGoodPort)/", configuration: configuration(down, mode: .soft))
        XCTAssertEqual(good.outcome, .ok, "\(String(describing: good.error))")
        // The staple settles the leaf; only the intermediate (its CRL unreachable) stays unknown.
        XCTAssertEqual(good.findings.filter { $0.code == "revocation_unknown" }.map(\.certificate), [1])
    }

    func testAIAResponderAnswersWhenNoCRLCan() async throws {
        let ocspPort = freePort()
        let pki = try RevocationPKI(crlBase: "http://127.0.0.1:\(freePort())/crl", ocspURL: "http://127.0.0.1:\(ocspPort)/")
        let sites = [freePort(), freePort()]
        let prefix = NSTemporaryDirectory() + "netvigil-nginx-\(UUID().uuidString)"
        let servers = try zip(sites, ["good", "revoked"]).map { try pki.nginxSite(port: $0, leaf: $1) }.joined(separator: "\n")
        let sitesServer = try NginxProcess(prefix: prefix, servers: servers, ports: sites)
        defer { sitesServer.stop(); try? FileManager.default.removeItem(atPath: prefix) }

        // Responder down: only unknowns.
        let down = try await probe("https://localhost:\(sites[0])/", configuration: configuration(pki, mode: .hard))
        XCTAssertEqual(down.trustVerdict?.description, "untrusted:revocationUnknown", "\(String(describing: down.error))")

        let responder = try pki.startResponder(port: ocspPort)
        defer { stopResponder(responder) }
        let config = try configuration(pki, mode: .soft)
        let revoked = try await probe("https://localhost:\(sites[1])/", configuration: config)
        XCTAssertEqual(revoked.trustVerdict?.description, "untrusted:revoked", "\(String(describing: revoked.error))")
        XCTAssertTrue(revoked.error?.message.contains("OCSP http://127.0.0.1:\(ocspPort)/") ?? false, "\(String(describing: revoked.error))")

        let good = try await probe("https://localhost:\(sites[0])/", configuration: config)
        XCTAssertEqual(good.outcome, .ok, "\(String(describing: good.error))")
        XCTAssertEqual(good.findings.filter { $0.code == "revocation_unknown" }.map(\.certificate), [1], "the leaf is settled by OCSP: \(good.findings)")
        stopResponder(responder)
        let cached = try await probe("https://localhost:\(sites[0])/", configuration: config)
        XCTAssertEqual(cached.outcome, .ok, "the good answer is cached until its nextUpdate")
        XCTAssertEqual(cached.findings.filter { $0.code == "revocation_unknown" }.map(\.certificate), [1])
    }

    private func stopResponder(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        while process.isRunning { Thread.sleep(forTimeInterval: 0.02) }
    }

    /// VmRSS of this process.
    private func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}
