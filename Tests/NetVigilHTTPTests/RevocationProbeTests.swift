import Foundation
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilHTTP

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

    override func setUpWithError() throws {
        served = try RevocationPKI(crlBase: "http://127.0.0.1:\(crlPort)/crl")
        down = try RevocationPKI(crlBase: "http://127.0.0.1:\(freePort())/crl")
        huge = try RevocationPKI(crlBase: "http://127.0.0.1:\(crlPort)/huge")
        let hugeDirectory = huge.path("huge")
        try FileManager.default.createDirectory(atPath: hugeDirectory, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: hugeDirectory + "/intermediate.crl", contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: hugeDirectory + "/intermediate.crl"))
        try handle.truncate(atOffset: 50 * 1024 * 1024)
        try handle.close()
        try FileManager.default.copyItem(atPath: huge.path("root.crl"), toPath: hugeDirectory + "/root.crl")

        func site(_ port: Int, _ pki: RevocationPKI, _ leaf: String) throws -> String {
            """
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(try pki.chain(leaf));
                    ssl_certificate_key \(pki.path("\(leaf).key"));
                    location / { return 200 'ok'; }
                }
            """
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
            """
        nginx = try NginxProcess(prefix: prefix, servers: servers, ports: [crlPort, goodPort, revokedPort, downPort, hugePort])
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

    /// VmRSS of this process.
    private func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}
