import NetVigilTrust
import Synchronization

/// The `ServerTrustEvaluator`s of one `ProbeConfiguration` (and its copies), one per (trust store, policy): an
/// evaluator prepares its pin sets and pinned-certificate store once, and that store remembers the chains it verified.
/// A reloaded configuration starts a new set, so evaluators of replaced stores go with the old configuration.
final class TrustEvaluators: Sendable {
    private struct Key: Hashable {
        var store: ObjectIdentifier
        var policy: SecurityPolicy
    }

    /// Evaluators kept before the set starts over (a configuration has a handful of policies).
    static let capacity = 64

    /// The evaluators hold their stores, so an `ObjectIdentifier` in a key cannot be reused by another store.
    private let evaluators = Mutex<[Key: ServerTrustEvaluator]>([:])

    /// The evaluator for `policy` over `trustStore`, made on first use.
    func evaluator(policy: SecurityPolicy, trustStore: TrustStore) throws(TrustStoreError) -> ServerTrustEvaluator {
        let key = Key(store: ObjectIdentifier(trustStore), policy: policy)
        if let known = evaluators.withLock({ $0[key] }) { return known }
        let made = try ServerTrustEvaluator(policy: policy, trustStore: trustStore)
        return evaluators.withLock { evaluators in
            if let raced = evaluators[key] { return raced }
            if evaluators.count >= Self.capacity { evaluators.removeAll(keepingCapacity: true) }
            evaluators[key] = made
            return made
        }
    }
}
