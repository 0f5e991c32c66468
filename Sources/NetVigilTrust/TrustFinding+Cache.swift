import Foundation
import NetVigilProbeModel
import NetVigilSystem

extension TrustFinding {
    /// Chains whose findings are kept before the cache starts over (as `VerifiedChainCache`: a handful per target).
    static let cachedChains = 4096

    /// Findings by chain: the SHA-256 of each served certificate's DER (leaf first), a separator, those of the
    /// validated chain, and whether it ends at a system root. Process-wide.
    static let findingsCache = SharedCache<[Data], [TrustFinding]>(capacity: cachedChains)

    /// The findings of a judged chain: `chainFindings`, plus the Baseline Requirements lints when the chain validated
    /// to a publicly-trusted root. Computed once per distinct chain: they depend on the certificates alone, and a
    /// server sends the same chain on every probe (computing them parses the extensions again).
    static func cachedFindings(
        servedChain: [Certificate], validatedChain: [Certificate], publiclyTrusted: Bool,
        in cache: SharedCache<[Data], [TrustFinding]> = findingsCache
    ) -> [TrustFinding] {
        guard !servedChain.isEmpty else { return [] }
        let key = servedChain.map(\.handle.derSHA256) + [Data()] + validatedChain.map(\.handle.derSHA256)
            + [Data([publiclyTrusted ? 1 : 0])]
        return cache.value(for: key) {
            chainFindings(servedChain: servedChain, validatedChain: validatedChain)
                + (publiclyTrusted ? baselineRequirements(servedChain: servedChain) : [])
        }
    }
}
