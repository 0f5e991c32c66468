import NetVigilTrust
import Synchronization

/// The system's trust roots for alert deliveries, loaded on first use and kept; a failure is not kept, so the next
/// delivery tries again. The agent's dispatcher and the hub's sender each hold one.
public final class SystemTrustRoots: Sendable {
    private let loaded = Mutex<TrustStore?>(nil)

    public init() {}

    public func trustStore() throws(AlertDeliveryError) -> TrustStore {
        if let store = loaded.withLock({ $0 }) { return store }
        do {
            let store = try TrustStore.system()
            loaded.withLock { $0 = store }
            return store
        } catch {
            throw AlertDeliveryError("cannot load the system trust roots: \(error)")
        }
    }
}
