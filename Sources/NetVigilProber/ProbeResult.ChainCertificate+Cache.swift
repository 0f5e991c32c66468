import NetVigilSystem
import NetVigilTrust

extension ProbeResult.ChainCertificate {
    /// Summaries already made, by certificate: a target serves the same chain probe after probe, and a summary
    /// (names, serial, fingerprints, PEM) costs a few percent of a probe's CPU. Starts over at 2,048 summaries.
    private static let cache = SharedCache<Certificate, ProbeResult.ChainCertificate>(capacity: 2048)

    /// The summary of `certificate`, from the cache when it was summarised before.
    static func summarizing(_ certificate: Certificate) -> ProbeResult.ChainCertificate {
        cache.value(for: certificate) { ProbeResult.ChainCertificate(certificate) }
    }
}
