import Foundation
import NetVigilProbeModel
import NetVigilSystem

extension TrustFinding {
    /// Chains whose findings are kept before the cache starts over (as `VerifiedChainCache`: a handful per target).
    static let cachedChains = 4096

    /// Findings by served chain (the SHA-256 of each certificate's DER, leaf first), process-wide.
    static let baselineRequirementsCache = SharedCache<[Data], [TrustFinding]>(capacity: cachedChains)

    /// The Baseline Requirements findings of `servedChain`, computed once per distinct chain: they depend on the
    /// served certificates alone, and a server sends the same chain on every probe (computing them parses the leaf's
    /// extensions again: 1.6 % of a 10,000-target daemon's CPU).
    static func cachedBaselineRequirements(
        servedChain: [Certificate], in cache: SharedCache<[Data], [TrustFinding]> = baselineRequirementsCache
    ) -> [TrustFinding] {
        guard !servedChain.isEmpty else { return [] }
        return cache.value(for: servedChain.map(\.handle.derSHA256)) {
            baselineRequirements(servedChain: servedChain)
        }
    }
}
