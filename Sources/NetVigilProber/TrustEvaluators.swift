import NetVigilSystem
import NetVigilTrust

/// The `ServerTrustEvaluator`s of one `ProbeConfiguration` (and its copies), one per (trust store, policy): an
/// evaluator prepares its pin sets and pinned-certificate store once, and that store remembers the chains it verified.
/// A reloaded configuration starts a new set, so evaluators of replaced stores go with the old configuration.
final class TrustEvaluators: Sendable {
    private struct Key: Hashable, Sendable {
        var store: ObjectIdentifier
        var policy: SecurityPolicy
    }

    /// The evaluators hold their stores, so an `ObjectIdentifier` in a key cannot be reused by another store.
    /// Starts over at 64 evaluators (a configuration has a handful of policies).
    private let evaluators = SharedCache<Key, ServerTrustEvaluator>(capacity: 64)

    /// The evaluator for `policy` over `trustStore`, made on first use.
    func evaluator(policy: SecurityPolicy, trustStore: TrustStore) throws(TrustStoreError) -> ServerTrustEvaluator {
        try evaluators.value(for: Key(store: ObjectIdentifier(trustStore), policy: policy)) { () throws(TrustStoreError) in
            try ServerTrustEvaluator(policy: policy, trustStore: trustStore)
        }
    }
}
