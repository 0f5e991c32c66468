import Foundation
import NetVigilAgent
import Synchronization

/// The JSON of each target's snapshot as `/v1/status` last sent it, reused while the snapshot is unchanged.
///
/// Encoding 10,000 snapshots through `JSONEncoder` is most of the route's time; between two requests only the targets
/// probed in between change, so only those are encoded again. Each fragment is the encoder's own output for that
/// snapshot, so the document is byte for byte what encoding the whole report would give.
final class TargetFragmentCache: Sendable {
    private struct Fragment: Sendable {
        var snapshot: TargetSnapshot
        var json: Data
    }

    private let fragments = Mutex<[String: Fragment]>([:])

    init() {}

    /// The JSON of each of `snapshots`, in their order; a target no longer listed leaves the cache.
    func json(for snapshots: [TargetSnapshot], encoder: JSONEncoder) throws -> [Data] {
        // Copied out under the lock (copy on write, O(1)) and encoded outside it: concurrent requests do not wait.
        let previous = fragments.withLock { $0 }
        var current: [String: Fragment] = [:]
        current.reserveCapacity(snapshots.count)
        var result: [Data] = []
        result.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            let json: Data
            if let cached = previous[snapshot.name], cached.snapshot == snapshot {
                json = cached.json
            } else {
                json = try encoder.encode(snapshot)
            }
            current[snapshot.name] = Fragment(snapshot: snapshot, json: json)
            result.append(json)
        }
        fragments.withLock { $0 = current }
        return result
    }
}
