import Foundation
import NetVigilAgent
import Synchronization

/// The JSON of each target's `View` of its snapshot (the whole ``TargetSnapshot``, or ``BriefTargetSnapshot``) as
/// `/v1/status` last sent it, reused while that view is unchanged.
///
/// Encoding 10,000 snapshots through `JSONEncoder` is most of the route's time; between two requests only the targets
/// probed in between change, so only those are encoded again. Each fragment is the encoder's own output for that
/// view, so the document is byte for byte what encoding the whole report would give.
final class TargetFragmentCache<View: Encodable & Equatable & Sendable>: Sendable {
    private struct Fragment: Sendable {
        var view: View
        var json: Data
    }

    private let fragments = Mutex<[String: Fragment]>([:])
    private let project: @Sendable (TargetSnapshot) -> View

    /// `project` makes a snapshot's view (the identity for the whole snapshot).
    init(_ project: @escaping @Sendable (TargetSnapshot) -> View) {
        self.project = project
    }

    /// The JSON of the view of each of `snapshots`, in their order; a target no longer listed leaves the cache.
    func json(for snapshots: [TargetSnapshot], encoder: JSONEncoder) throws -> [Data] {
        // Copied out under the lock (copy on write, O(1)) and encoded outside it: concurrent requests do not wait.
        let previous = fragments.withLock { $0 }
        var current: [String: Fragment] = [:]
        current.reserveCapacity(snapshots.count)
        var result: [Data] = []
        result.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            let view = project(snapshot)
            let json: Data
            if let cached = previous[snapshot.name], cached.view == view {
                json = cached.json
            } else {
                json = try encoder.encode(view)
            }
            current[snapshot.name] = Fragment(view: view, json: json)
            result.append(json)
        }
        fragments.withLock { $0 = current }
        return result
    }
}

extension TargetFragmentCache where View == TargetSnapshot {
    /// The cache of whole snapshots (`/v1/status`).
    convenience init() {
        self.init { $0 }
    }
}
