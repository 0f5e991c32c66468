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
        var name: String
        var key: TargetStates.SnapshotSource.Key
        var json: Data
    }

    /// The fragments of the last request, in its order: targets keep their places from one request to the next,
    /// so each is found at its index without hashing its name (a dictionary by name cost the route noticeably with
    /// thousands of targets); names are looked up only when the order changed.
    private let last = Mutex<[Fragment]>([])
    private let project: @Sendable (TargetSnapshot) -> View

    /// `project` makes a snapshot's view (the identity for the whole snapshot).
    init(_ project: @escaping @Sendable (TargetSnapshot) -> View) {
        self.project = project
    }

    /// The JSON of the view of each of `sources`' snapshots, in their order; a target no longer listed leaves the cache.
    func json(for sources: [TargetStates.SnapshotSource], encoder: JSONEncoder) throws -> [Data] {
        // Copied out under the lock (copy on write, O(1)) and encoded outside it: concurrent requests do not wait.
        let previous = last.withLock { $0 }
        var byName: [String: Int]?
        var current: [Fragment] = []
        current.reserveCapacity(sources.count)
        var result: [Data] = []
        result.reserveCapacity(sources.count)
        for index in sources.indices {
            let name = sources[index].name
            let key = sources[index].key
            var cached: Fragment?
            if index < previous.count, previous[index].name == name {
                cached = previous[index]
            } else {
                if byName == nil {
                    byName = Dictionary(
                        zip(previous.lazy.map(\.name), previous.indices), uniquingKeysWith: { first, _ in first }
                    )
                }
                cached = byName?[name].map { previous[$0] }
            }
            let json: Data
            if let cached, cached.key == key {
                json = cached.json
            } else {
                json = try encoder.encode(project(sources[index].snapshot()))
            }
            current.append(Fragment(name: name, key: key, json: json))
            result.append(json)
        }
        last.withLock { $0 = current }
        return result
    }
}

extension TargetFragmentCache where View == TargetSnapshot {
    /// The cache of whole snapshots (`/v1/status`).
    convenience init() {
        self.init { $0 }
    }
}
