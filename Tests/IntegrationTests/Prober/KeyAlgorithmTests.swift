import Foundation
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// Key types and key exchanges beyond the P-256 / X25519 of the other tests, through OpenSSL's default provider: RSA
/// certificates (PKCS#1 signatures in TLS 1.2, RSA-PSS in TLS 1.3) and ECDHE over
/// P-256 and P-384 (in TLS 1.3 after a HelloRetryRequest, since the client leads with X25519).
final class KeyAlgorithmTests: ProbeTestCase {
    private struct OpenSSLFailure: Error { var message: String }

    /// An RSA-2048 test CA and a 127.0.0.1 leaf it signed (`ca.pem`, `leaf.pem`, `leaf.key`).
    private func makeRSAPKI() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        func openssl(_ arguments: [String]) throws {
            let result = try ProcessRunner.run(arguments, executable: URL(fileURLWithPath: "/usr/bin/openssl"))
            guard result.status == 0 else { throw OpenSSLFailure(message: "openssl \(arguments[0]): \(result.stderr)") }
        }
        try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=netvigil RSA test CA",
                     "-keyout", directory.path("ca.key"), "-out", directory.path("ca.pem")])
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                     "-keyout", directory.path("leaf.key"), "-out", directory.path("leaf.csr")])
        let extensions = try directory.write("leaf.ext", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
        try openssl(["x509", "-req", "-in", directory.path("leaf.csr"), "-CA", directory.path("ca.pem"),
                     "-CAkey", directory.path("ca.key"), "-CAcreateserial", "-days", "30", "-extfile", extensions,
                     "-out", directory.path("leaf.pem")])
        return directory
    }

    func testRSACertificateAndNISTCurvesInTLS12And13() async throws {
        let pki = try makeRSAPKI()
        let store = try TrustStore(systemRoots: false, caPaths: [pki.path("ca.pem")])
        let configuration = ProbeConfiguration(trustStore: store, policies: try PolicySet(default: .default, entries: []),
                                               timeout: 5, maxBodyBytes: 1024, maxRedirects: 0,
                                               responseSerializer: .http, expectations: ProbeExpectations())
        for version in ["TLSv1_2", "TLSv1_3"] {
            for group in ["prime256v1", "secp384r1"] {
                let server = try CurveRestrictedTLSServer(certificate: pki.path("leaf.pem"), key: pki.path("leaf.key"),
                                                          version: version, group: group)
                defer { server.stop() }
                let result = try await probe("https://127.0.0.1:\(server.port)/", configuration: configuration)
                let label = "\(version) \(group)"
                XCTAssertTrue(result.isOK, "\(label): \(String(describing: result.error))")
                XCTAssertEqual(result.status, 200, label)
                XCTAssertEqual(result.trustVerdict, .trusted, "\(label): \(result.trustMessage ?? "")")
                XCTAssertEqual(result.tls?.version, version.replacingOccurrences(of: "_", with: "."), label)
                XCTAssertEqual(result.servedChain.first?.subject, "CN=127.0.0.1", label)
            }
        }
    }

    func testRSAChainFromAnotherCAIsStillUntrusted() async throws {
        let pki = try makeRSAPKI()
        let configuration = try configuration()  // the P-256 test CA, which did not sign the RSA leaf
        let server = try CurveRestrictedTLSServer(certificate: pki.path("leaf.pem"), key: pki.path("leaf.key"),
                                                  version: "TLSv1_3", group: "prime256v1")
        defer { server.stop() }
        let result = try await probe("https://127.0.0.1:\(server.port)/", configuration: configuration)
        XCTAssertEqual(result.error?.kind, .trust, String(describing: result.error))
        XCTAssertEqual(result.trustVerdict, .untrusted(reason: "chainInvalid"))
    }
}
