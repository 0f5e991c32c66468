import Foundation
import NIOCore
import NetVigilTrust

extension HTTPProber {
    /// The deferred trust decision of a hop: when the trust decision left CRLs to download, downloads them (the
    /// `revocation` phase, at most half of the time left and 10 s) and judges the chain again; nil otherwise.
    /// Runs on the channel's event loop; the recorder is only touched there.
    static func revocationDecision(recorder: HopRecorder, fetcher: CRLFetcher, deadline: NIODeadline,
                                   loop: any EventLoop) -> EventLoopFuture<ProbeError?>? {
        guard let pending = recorder.pendingRevocation else { return nil }
        recorder.pendingRevocation = nil
        recorder.revocationStart = .now()
        let left = Double((deadline - .now()).nanoseconds) / 1e9
        let budget = min(10, max(left / 2, 0.001))
        return loop.makeFutureWithTask {
            await fetcher.download(pending.urls, within: budget)
        }.map { downloads -> ProbeError? in
            recorder.revocationEnd = .now()
            let checked = pending.evaluator.applyingRevocation(to: pending.evaluation, cache: fetcher.cache, downloads: downloads)
            // Whatever is still missing (a second distribution point of another certificate) counts as unknown.
            let evaluation = checked.pendingURLs.isEmpty ? checked.evaluation
                : pending.evaluator.applyingRevocation(to: pending.evaluation, cache: fetcher.cache,
                                                       downloads: downloads.merging(checked.pendingURLs.map {
                                                           ($0, CRLDownload.failed("not downloaded in time"))
                                                       }, uniquingKeysWith: { first, _ in first })).evaluation
            recorder.evaluation = evaluation
            if evaluation.verdict.isTrusted { return nil }
            return ProbeError(.trust, evaluation.message, verdict: evaluation.verdict.summary)
        }
    }
}
