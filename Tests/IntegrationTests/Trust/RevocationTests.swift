import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilTrust

/// Revocation by CRL files against an `openssl ca` hierarchy that issued and revoked (RevocationPKI).
final class RevocationTests: XCTestCase {
    private static let shared = Result { try RevocationPKI(crlBase: "http://127.0.0.1:9/crl") }
    private var pki: RevocationPKI!

    override func setUpWithError() throws {
        pki = try Self.shared.get()
    }

    private func evaluate(_ leaf: String, mode: RevocationPolicy.Mode, crls: [String], at date: Date = Date(),
                          cache: CRLCache? = nil, downloads: [String: CRLDownload] = [:]) throws -> RevocationOutcome {
        var loaded: [CertificateRevocationList] = []
        for name in crls { loaded += try CertificateRevocationList.load(path: pki.path(name)) }
        let policy = try SecurityPolicy(revocation: RevocationPolicy(mode: mode, crls: loaded, fetchesDistributionPoints: false))
        let evaluator = try ServerTrustEvaluator(policy: policy,
                                                 trustStore: TrustStore(systemRoots: false, caPaths: [pki.path("root.crt")]))
        let served = try Certificate.load(contentsOf: pki.chain(leaf))
        return evaluator.applyingRevocation(to: evaluator.evaluate(servedChain: served, host: "localhost", at: date),
                                            cache: cache, downloads: downloads)
    }

    func testRevokedLeafIsUntrustedWithSerialReasonAndTime() throws {
        let outcome = try evaluate("revoked", mode: .soft, crls: ["intermediate.crl", "root.crl"])
        guard case .untrusted(.revoked(let revocation))? = Optional(outcome.evaluation.verdict) else {
            return XCTFail("expected revoked, got \(outcome.evaluation.verdict)")
        }
        let leaf = try Certificate.load(contentsOf: pki.path("revoked.crt"))[0]
        XCTAssertEqual(revocation.certificate, 0)
        XCTAssertEqual(revocation.serial, leaf.serialNumber)
        XCTAssertEqual(revocation.reason, .keyCompromise)
        XCTAssertLessThan(abs(revocation.revokedAt.timeIntervalSinceNow), 600)
        XCTAssertEqual(outcome.evaluation.verdict.summary.description, "untrusted:revoked")
        // The reason survives JSON.
        let data = try JSONEncoder().encode(outcome.evaluation.verdict.reason)
        XCTAssertEqual(try JSONDecoder().decode(ServerTrustFailureReason.self, from: data), .revoked(revocation))
    }

    func testGoodLeafStaysTrustedAndDERFilesLoad() throws {
        let outcome = try evaluate("good", mode: .hard, crls: ["intermediate.der.crl", "root.crl"])
        XCTAssertTrue(outcome.evaluation.isTrusted, outcome.evaluation.message)
        XCTAssertTrue(outcome.evaluation.findings.filter { $0.code == "revocation_unknown" }.isEmpty)
        XCTAssertEqual(outcome.pendingURLs, [])
    }

    func testRevokedIntermediateRevokesTheChain() throws {
        let outcome = try evaluate("good", mode: .soft, crls: ["intermediate.crl", "root-revoked.crl"])
        guard case .untrusted(.revoked(let revocation)) = outcome.evaluation.verdict else {
            return XCTFail("expected revoked, got \(outcome.evaluation.verdict)")
        }
        XCTAssertEqual(revocation.certificate, 1)
        XCTAssertEqual(revocation.reason, .cACompromise)
        XCTAssertTrue(revocation.subject.contains("intermediate"), revocation.subject)
    }

    func testOffIgnoresRevocation() throws {
        XCTAssertTrue(try evaluate("revoked", mode: .off, crls: ["intermediate.crl"]).evaluation.isTrusted)
    }

    func testExpiredCRLIsAFindingWhenSoftAndUnknownWhenHard() throws {
        let soft = try evaluate("revoked", mode: .soft, crls: ["intermediate-expired.crl", "root.crl"])
        XCTAssertTrue(soft.evaluation.isTrusted, "a stale CRL proves nothing, also not revocation")
        let finding = try XCTUnwrap(soft.evaluation.findings.first { $0.code == "revocation_unknown" })
        XCTAssertEqual(finding.certificate, 0)
        XCTAssertTrue(finding.message.contains("expired at 2020-01-08"), finding.message)

        let hard = try evaluate("revoked", mode: .hard, crls: ["intermediate-expired.crl", "root.crl"])
        guard case .untrusted(.revocationUnknown(let why)) = hard.evaluation.verdict else {
            return XCTFail("expected revocationUnknown, got \(hard.evaluation.verdict)")
        }
        XCTAssertTrue(why.contains("expired"), why)
    }

    func testCRLPastItsNextUpdateAtTheEvaluationTime() throws {
        let later = Date().addingTimeInterval(10 * 86_400)  // CRLs are good for 7 days, certificates for 90
        let hard = try evaluate("good", mode: .hard, crls: ["intermediate.crl", "root.crl"], at: later)
        XCTAssertEqual(hard.evaluation.verdict.reason?.kind, "revocationUnknown")
    }

    func testCRLSignedByTheWrongKeyIsNotBelieved() throws {
        let soft = try evaluate("good", mode: .soft, crls: ["intermediate-wrong-key.crl", "root.crl"])
        XCTAssertTrue(soft.evaluation.isTrusted)
        let finding = try XCTUnwrap(soft.evaluation.findings.first { $0.code == "revocation_unknown" })
        XCTAssertTrue(finding.message.contains("not signed by the key"), finding.message)
        let hard = try evaluate("good", mode: .hard, crls: ["intermediate-wrong-key.crl", "root.crl"])
        XCTAssertEqual(hard.evaluation.verdict.reason?.kind, "revocationUnknown")
    }

    func testDistributionPointsAreRead() throws {
        let leaf = try Certificate.load(contentsOf: pki.path("good.crt"))[0]
        XCTAssertEqual(RevocationChecker.distributionPoints(of: leaf), ["http://127.0.0.1:9/crl/intermediate.crl"])
    }

    func testDownloadsAndTheCacheAnswerForDistributionPoints() throws {
        let policy = try SecurityPolicy(revocation: RevocationPolicy(mode: .hard))
        let evaluator = try ServerTrustEvaluator(policy: policy,
                                                 trustStore: TrustStore(systemRoots: false, caPaths: [pki.path("root.crt")]))
        let served = try Certificate.load(contentsOf: pki.chain("revoked"))
        let base = evaluator.evaluate(servedChain: served, host: "localhost")
        let cache = CRLCache()
        let cold = evaluator.applyingRevocation(to: base, cache: cache)
        XCTAssertEqual(Set(cold.pendingURLs), ["http://127.0.0.1:9/crl/intermediate.crl", "http://127.0.0.1:9/crl/root.crl"])
        XCTAssertTrue(cold.evaluation.isTrusted, "nothing decided before the downloads")

        for url in cold.pendingURLs {
            let file = url.hasSuffix("root.crl") ? "root.crl" : "intermediate.crl"
            for crl in try CertificateRevocationList.load(path: pki.path(file)) { cache.store(crl, for: url) }
        }
        let warm = evaluator.applyingRevocation(to: base, cache: cache)
        XCTAssertEqual(warm.pendingURLs, [])
        XCTAssertEqual(warm.evaluation.verdict.reason?.kind, "revoked")

        let failed = CRLCache()
        failed.rememberFailure("connection refused", for: "http://127.0.0.1:9/crl/intermediate.crl", at: Date())
        let unknown = evaluator.applyingRevocation(to: base, cache: failed,
                                                   downloads: ["http://127.0.0.1:9/crl/root.crl": .failed("timeout")])
        XCTAssertEqual(unknown.pendingURLs, [])
        XCTAssertEqual(unknown.evaluation.verdict.reason?.kind, "revocationUnknown")
        XCTAssertTrue(unknown.evaluation.message.contains("connection refused"), unknown.evaluation.message)
    }

    func testOversizedCRLFileIsRefusedBeforeReading() throws {
        let path = pki.path("huge.crl")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 50 * 1024 * 1024)  // sparse: 50 MB without writing them
        try handle.close()
        XCTAssertThrowsError(try CertificateRevocationList.load(path: path)) { error in
            XCTAssertEqual(error as? CRLError, .tooLarge(path, 50 * 1024 * 1024))
        }
        XCTAssertThrowsError(try CertificateRevocationList.load(path: pki.path("good.crt"))) { error in
            XCTAssertEqual(error as? CRLError, .invalid(pki.path("good.crt")))
        }
    }
}

/// `trust evaluate --crl` and `--revocation`.
final class RevocationCLITests: XCTestCase {
    func testCRLFlagRevokesAndRevocationOffIgnores() throws {
        let pki = try RevocationPKI(crlBase: "http://127.0.0.1:9/crl")
        let common = ["trust", "evaluate", "--no-system-roots", "--ca", pki.path("root.crt"), "--host", "localhost"]
        let revoked = try ProcessRunner.run(common + ["--chain", pki.chain("revoked"), "--crl", pki.path("intermediate.crl"), "--json"])
        XCTAssertEqual(revoked.status, 1, revoked.stdout + revoked.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(revoked.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["verdict"] as? String, "untrusted:revoked")
        let reason = try XCTUnwrap(report["reason"] as? [String: Any])
        let revocation = try XCTUnwrap(reason["revocation"] as? [String: Any])
        XCTAssertEqual(revocation["reason"] as? String, "keyCompromise")
        XCTAssertNotNil(revocation["serial"] as? String)
        XCTAssertNotNil(revocation["revoked_at"])

        let off = try ProcessRunner.run(common + ["--chain", pki.chain("revoked"), "--crl", pki.path("intermediate.crl"),
                                                  "--revocation", "off"])
        XCTAssertEqual(off.status, 0, off.stdout + off.stderr)
        let offline = try ProcessRunner.run(common + ["--chain", pki.chain("revoked"), "--revocation", "hard"])
        XCTAssertEqual(offline.status, 0, "offline, distribution points are not consulted: " + offline.stdout + offline.stderr)

        let stapled = try ProcessRunner.run(common + ["--chain", pki.chain("revoked"), "--ocsp-response", pki.path("revoked.ocsp")])
        XCTAssertEqual(stapled.status, 1, stapled.stdout + stapled.stderr)
        XCTAssertTrue(stapled.stdout.contains("stapled OCSP response"), stapled.stdout)
        let noResponse = try ProcessRunner.run(common + ["--chain", pki.chain("good"), "--ocsp-response", pki.path("nope.ocsp")])
        XCTAssertEqual(noResponse.status, 66, noResponse.stderr)

        let missing = try ProcessRunner.run(common + ["--chain", pki.chain("good"), "--crl", pki.path("nope.crl")])
        XCTAssertEqual(missing.status, 66, missing.stderr)
        let bad = try ProcessRunner.run(common + ["--chain", pki.chain("good"), "--crl", pki.path("good.crt")])
        XCTAssertEqual(bad.status, 65, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("is not a CRL"), bad.stderr)
    }
}

/// Stapled OCSP responses (`openssl ocsp` over the hierarchy's index) judged for the leaf.
final class OCSPStaplingTests: XCTestCase {
    private static let shared = Result { try RevocationPKI(crlBase: "http://127.0.0.1:9/crl") }

    private func evaluate(_ leaf: String, staple: String, mode: RevocationPolicy.Mode = .hard) throws -> TrustEvaluation {
        let pki = try Self.shared.get()
        let crls = try CertificateRevocationList.load(path: pki.path("root.crl"))
        let policy = try SecurityPolicy(revocation: RevocationPolicy(mode: mode, crls: crls, fetchesDistributionPoints: false))
        let evaluator = try ServerTrustEvaluator(policy: policy,
                                                 trustStore: TrustStore(systemRoots: false, caPaths: [pki.path("root.crt")]))
        let served = try Certificate.load(contentsOf: pki.chain(leaf))
        let staple = try Data(contentsOf: URL(fileURLWithPath: pki.path(staple)))
        return evaluator.applyingRevocation(to: evaluator.evaluate(servedChain: served, host: "localhost"), cache: nil,
                                            stapledOCSP: staple).evaluation
    }

    func testGoodStapleSettlesTheLeafByIssuerOrDelegatedResponder() throws {
        for staple in ["good.ocsp", "good-delegated.ocsp"] {
            let evaluation = try evaluate("good", staple: staple)
            XCTAssertTrue(evaluation.isTrusted, "\(staple): \(evaluation.message)")
        }
    }

    func testRevokedStapleRevokes() throws {
        let evaluation = try evaluate("revoked", staple: "revoked.ocsp", mode: .soft)
        guard case .untrusted(.revoked(let revocation)) = evaluation.verdict else {
            return XCTFail("expected revoked, got \(evaluation.verdict)")
        }
        XCTAssertEqual(revocation.certificate, 0)
        XCTAssertEqual(revocation.reason, .keyCompromise)
        XCTAssertEqual(revocation.source, "stapled OCSP response")
    }

    func testResponseForAnotherCertificateOrByAnotherKeyIsUnusable() throws {
        let other = try evaluate("revoked", staple: "good.ocsp")
        guard case .untrusted(.revocationUnknown(let why)) = other.verdict else { return XCTFail("\(other.verdict)") }
        XCTAssertTrue(why.contains("another certificate"), why)

        let impostor = try evaluate("good", staple: "good-impostor.ocsp")
        guard case .untrusted(.revocationUnknown(let reason)) = impostor.verdict else { return XCTFail("\(impostor.verdict)") }
        XCTAssertTrue(reason.contains("not signed by"), reason)

        let soft = try evaluate("good", staple: "good-impostor.ocsp", mode: .soft)
        XCTAssertTrue(soft.isTrusted)
        XCTAssertEqual(soft.findings.filter { $0.code == "revocation_unknown" }.map(\.certificate), [0])
    }
}
