import Foundation
import NetVigilAgent
import Synchronization

/// The JSON of each target's `View` of its snapshot (the whole ``TargetSnapshot``, or ``BriefTargetSnapshot``) as
/// `/v1/status` last sent it, reused while the target's ``TargetStates/SnapshotSource/key`` is unchanged.
///
/// Encoding 10,000 snapshots through `JSONEncoder` was most of the route's time, and building and comparing them most
/// of the rest; between two requests only the targets probed in between change (and those whose firing alerts or
/// uptime ratios moved), so only those are built and encoded again. Each fragment is the encoder's own output for
/// that view, so the document is byte for byte what encoding the whole report would give.
final class TargetFragmentCache<View: Encodable & Sendable>: Sendable {
    private struct Fragment: Sendable {
        var key: TargetStates.SnapshotSource.Key
        var json: Data
    }

    private let fragments = Mutex<[String: Fragment]>([:])
    private let project: @Sendable (TargetSnapshot) -> View

    /// `project` makes a snapshot's view (the identity for the whole snapshot).
    init(_ project: @escaping @Sendable (TargetSnapshot) -> View) {
        self.project = project
    }

    /// The JSON of the view of each of `sources`' snapshots, in their order; a target no longer listed leaves the cache.
    func json(for sources: [TargetStates.SnapshotSource], encoder: JSONEncoder) throws -> [Data] {
        // Copied out under the lock (copy on write, O(1)) and encoded outside it: concurrent requests do not wait.
        let previous = fragments.withLock { $0 }
        var current: [String: Fragment] = [:]
        current.reserveCapacity(sources.count)
        var result: [Data] = []
        result.reserveCapacity(sources.count)
        for source in sources {
            let key = source.key
            let json: Data
            if let cached = previous[source.name], cached.key == key {
                json = cached.json
            } else {
                json = try encoder.encode(project(source.snapshot()))
            }
            current[source.name] = Fragment(key: key, json: json)
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
