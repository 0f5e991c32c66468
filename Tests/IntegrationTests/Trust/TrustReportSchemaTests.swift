import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil trust evaluate --json` validates against `deploy/schemas/trust-report.schema.json`: trusted with
/// findings, revoked (CRL file, stapled OCSP response) and a host mismatch.
final class TrustReportSchemaTests: XCTestCase {
    func testTrustEvaluateJSONMatchesTheSchema() throws {
        let pki = try RevocationPKI(crlBase: "http://127.0.0.1:9/crl")
        let common = ["trust", "evaluate", "--no-system-roots", "--ca", pki.path("root.crt"), "--json"]
        let cases: [(arguments: [String], status: Int32, verdict: String)] = try [
            (["--chain", pki.chain("good"), "--host", "localhost", "--crl", pki.path("intermediate.crl")], 0, "trusted"),
            (["--chain", pki.chain("revoked"), "--host", "localhost", "--crl", pki.path("intermediate.crl")], 1, "untrusted:revoked"),
            (["--chain", pki.chain("revoked"), "--host", "localhost", "--ocsp-response", pki.path("revoked.ocsp")], 1,
             "untrusted:revoked"),
            (["--chain", pki.chain("good"), "--host", "other.example"], 1, "untrusted:hostnameMismatch"),
        ]
        for (arguments, status, verdict) in cases {
            let run = try ProcessRunner.run(common + arguments)
            XCTAssertEqual(run.status, status, arguments.joined(separator: " ") + "\n" + run.stdout + run.stderr)
            try SchemaValidator.assertValid(text: run.stdout, schema: "trust-report")
            let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            XCTAssertEqual(report["verdict"] as? String, verdict)
            if verdict == "trusted" {
                let codes = (report["findings"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
                // A private root: the Baseline Requirements lints do not apply, the chain findings do.
                XCTAssertFalse(codes.contains("e_sub_cert_certificate_policies_missing"), "\(codes)")
            }
        }
    }
}
