import Logging
import NetVigilProber

extension ProbePipeline {
    /// `target` with its revocation fetches' refusals logged (one warning line each: target, host, address, why) and
    /// counted in `netvigil_revocation_fetches_refused_total`: a certificate pointing its CRL or OCSP URL at the
    /// metadata service or the daemon's own feed is worth an operator's look, not only a finding.
    func reportingRevocationRefusals(_ target: ProbeTarget) -> ProbeTarget {
        var target = target
        let logger = logger, metrics = metrics, name = target.name
        target.configuration.revocationFetchRefused = { refusal in
            logger.warning("revocation fetch refused", metadata: [
                "target": "\(name)", "host": "\(refusal.host)", "address": "\(refusal.address)", "reason": "\(refusal.reason)",
            ])
            metrics?.revocationFetchRefused()
        }
        return target
    }
}
