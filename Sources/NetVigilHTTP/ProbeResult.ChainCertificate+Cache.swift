import NetVigilTrust
import Synchronization

extension ProbeResult.ChainCertificate {
    /// Summaries already made, by certificate: a target serves the same chain probe after probe, and a summary
    /// (names, serial, fingerprints, PEM) costs a few percent of a probe's CPU.
    private static let cache = Mutex<[Certificate: ProbeResult.ChainCertificate]>([:])
    /// Summaries kept before the cache starts over.
    static let cacheCapacity = 2048

    /// The summary of `certificate`, from the cache when it was summarised before.
    static func summarizing(_ certificate: Certificate) -> ProbeResult.ChainCertificate {
        if let known = cache.withLock({ $0[certificate] }) { return known }
        let made = ProbeResult.ChainCertificate(certificate)
        cache.withLock { summaries in
            if summaries.count >= cacheCapacity { summaries.removeAll(keepingCapacity: true) }
            summaries[certificate] = made
        }
        return made
    }
}
