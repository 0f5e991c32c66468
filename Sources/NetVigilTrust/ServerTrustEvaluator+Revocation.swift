import Foundation
import NetVigilProbeModel

/// A trust evaluation with revocation applied, and the distribution points still to download.
public struct RevocationOutcome: Sendable {
    /// The evaluation: `revoked`, `revocationUnknown` (hard) or a `revocation_unknown` finding (soft) when they apply.
    public var evaluation: TrustEvaluation
    /// CRL URLs to download before the status is known; empty when the evaluation is final.
    public var pendingURLs: [String]
    /// OCSP requests to send before the status is known.
    public var pendingOCSP: [OCSPQuery] = []

    /// True when nothing is left to download.
    public var isFinal: Bool { pendingURLs.isEmpty && pendingOCSP.isEmpty }
}

extension ServerTrustEvaluator {
    /// Applies the policy's revocation settings to `evaluation` (made by this evaluator): a revoked certificate of
    /// the validated chain makes it untrusted (`revoked`); a status that cannot be learned is a finding under `soft`
    /// and `revocationUnknown` under `hard`. Untrusted evaluations and those without a validated chain are returned
    /// as they are. With `pendingURLs` not empty, download them (into `downloads` / `cache`) and call again.
    /// `stapledOCSP`: the DER OCSP response the server stapled (or `--ocsp-response` gave) for the leaf.
    public func applyingRevocation(to evaluation: TrustEvaluation, cache: CRLCache?,
                                   downloads: [String: CRLDownload] = [:], stapledOCSP: Data? = nil) -> RevocationOutcome {
        let settings = policy.revocation
        guard settings.mode != .off, evaluation.isTrusted, evaluation.validatedChain.count > 1 else {
            return RevocationOutcome(evaluation: evaluation, pendingURLs: [])
        }
        let check = RevocationChecker.check(chain: evaluation.validatedChain, policy: settings, cache: cache,
                                            downloads: downloads, stapledOCSP: stapledOCSP, at: evaluation.evaluatedAt)
        if let revoked = check.revoked {
            return RevocationOutcome(evaluation: evaluation.replacing(verdict: .untrusted(.revoked(revoked))), pendingURLs: [])
        }
        if !check.pendingURLs.isEmpty || !check.pendingOCSP.isEmpty {
            return RevocationOutcome(evaluation: evaluation, pendingURLs: check.pendingURLs, pendingOCSP: check.pendingOCSP)
        }
        guard !check.problems.isEmpty else { return RevocationOutcome(evaluation: evaluation, pendingURLs: []) }
        if settings.mode == .hard {
            let first = check.problems[0]
            let text = "certificate \(first.certificate) (\(evaluation.validatedChain[first.certificate].subject)): \(first.message)"
            return RevocationOutcome(evaluation: evaluation.replacing(verdict: .untrusted(.revocationUnknown(text))), pendingURLs: [])
        }
        let findings = check.problems.map {
            TrustFinding(code: "revocation_unknown", certificate: $0.certificate,
                         message: "revocation status unknown (revocation: soft, the chain stays trusted): \($0.message)")
        }
        return RevocationOutcome(evaluation: evaluation.replacing(findings: evaluation.findings + findings), pendingURLs: [])
    }
}

extension TrustEvaluation {
    /// A copy with another verdict and/or findings.
    func replacing(verdict: Verdict? = nil, findings: [TrustFinding]? = nil) -> TrustEvaluation {
        TrustEvaluation(verdict: verdict ?? self.verdict, pinVerdict: pinVerdict, pinMismatchReported: pinMismatchReported,
                        reportedMismatch: reportedMismatch, notices: notices, host: host, evaluatedAt: evaluatedAt,
                        servedChain: servedChain, validatedChain: validatedChain, pins: pins, failedSubject: failedSubject,
                        findings: findings ?? self.findings)
    }
}
