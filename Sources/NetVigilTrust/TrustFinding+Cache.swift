import Foundation
import NetVigilProbeModel
import Synchronization

extension TrustFinding {
    /// The Baseline Requirements findings of `servedChain`, computed once per distinct chain: they depend on the
    /// served certificates alone, and a server sends the same chain on every probe (computing them parses the leaf's
    /// extensions again: 1.6 % of a 10,000-target daemon's CPU).
    static func cachedBaselineRequirements(servedChain: [Certificate]) -> [TrustFinding] {
        BaselineFindingsCache.shared.findings(for: servedChain)
    }
}

/// Findings by served chain (the SHA-256 of each certificate's DER, leaf first), process-wide.
final class BaselineFindingsCache: Sendable {
    /// Chains kept before the cache starts over (as `VerifiedChainCache`: a handful per target).
    static let capacity = 4096

    static let shared = BaselineFindingsCache()

    private let entries = Mutex<[[Data]: [TrustFinding]]>([:])

    func findings(for servedChain: [Certificate]) -> [TrustFinding] {
        guard !servedChain.isEmpty else { return [] }
        let key = servedChain.map(\.handle.derSHA256)
        if let known = entries.withLock({ $0[key] }) { return known }
        let findings = TrustFinding.baselineRequirements(servedChain: servedChain)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = findings
        }
        return findings
    }

    /// Chains remembered now (for tests).
    var count: Int { entries.withLock { $0.count } }
}
