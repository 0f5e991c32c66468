import Foundation
import NIOCore
import NetVigilTrust

extension Prober {
    /// The deferred trust decision of a hop: when the trust decision left CRLs to download or OCSP responders to ask,
    /// fetches them (the `revocation` phase, at most half of the time left and 10 s; two rounds, since OCSP is asked
    /// only where no CRL answered) and judges the chain again; nil when nothing is pending.
    /// Runs on the channel's event loop; the recorder is only touched there.
    static func revocationDecision(recorder: HopRecorder, fetcher: CRLFetcher, deadline: NIODeadline,
                                   loop: any EventLoop) -> EventLoopFuture<ProbeError?>? {
        guard let pending = recorder.pendingRevocation else { return nil }
        recorder.pendingRevocation = nil
        recorder.revocationStart = .now()
        let left = Double((deadline - .now()).nanoseconds) / 1e9
        let budget = min(10, max(left / 2, 0.001))
        return loop.makeFutureWithTask { () -> TrustEvaluation in
            let start = Date()
            var downloads: [String: CRLDownload] = [:]
            var outcome = pending.first
            for _ in 0..<2 where !outcome.isFinal {
                let fetched = await fetcher.download(outcome.pendingURLs, queries: outcome.pendingOCSP,
                                                     within: budget - Date().timeIntervalSince(start),
                                                     policy: pending.evaluator.policy.revocation)
                downloads.merge(fetched) { _, new in new }
                outcome = pending.evaluator.applyingRevocation(to: pending.evaluation, cache: fetcher.cache, downloads: downloads,
                                                               stapledOCSP: pending.stapledOCSP)
            }
            guard !outcome.isFinal else { return outcome.evaluation }
            // Whatever is still missing counts as unknown.
            for key in outcome.pendingURLs + outcome.pendingOCSP.map(\.key) where downloads[key] == nil {
                downloads[key] = .failed("not fetched in time")
            }
            return pending.evaluator.applyingRevocation(to: pending.evaluation, cache: fetcher.cache, downloads: downloads,
                                                        stapledOCSP: pending.stapledOCSP).evaluation
        }.map { evaluation -> ProbeError? in
            recorder.revocationEnd = .now()
            recorder.evaluation = evaluation
            if evaluation.verdict.isTrusted { return nil }
            return ProbeError(.trust, evaluation.message, verdict: evaluation.verdict.summary)
        }
    }
}
