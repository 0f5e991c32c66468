import NetVigilConcurrency
import NetVigilStore
import Synchronization

/// The daemon's in-memory view of every probe target: last result, failure streak, uptime. The feed reads it.
public final class TargetStates: Sendable {
    /// One target: its configuration (shared with the scheduler's copy), its last result and its history.
    /// About 104 bytes inline, so the 16,384-bucket dictionary of 10,000 targets stays near 2 MB.
    fileprivate struct Entry: Sendable {
        var target: ProbeTarget
        /// Set from `State.revision` by every change to the entry: equal revisions, equal entries.
        var revision: UInt64 = 0
        var last: LastProbe?
        var lastProbeAt: Timestamp?
        var consecutiveFailures = 0
        var uptime = UptimeCounter()

        /// Takes a result in, as the change `revision`.
        mutating func record(_ record: ProbeRecord, addresses: [ProbeRecord]?, revision: UInt64) {
            self.revision = revision
            last = LastProbe(record, addresses: addresses)
            switch record.outcome {
            case .ok:
                consecutiveFailures = 0
                lastProbeAt = record.time
                uptime.add(good: 1, bad: 0, at: record.time)
            case .failed:
                consecutiveFailures += 1
                lastProbeAt = record.time
                uptime.add(good: 0, bad: 1, at: record.time)
            case .skipped:
                break
            }
        }

        /// Adds stored history to the uptime counts, as the change `revision`.
        mutating func seed(_ count: Store.OutcomeCount, revision: UInt64) {
            self.revision = revision
            uptime.add(good: count.ok, bad: count.failed, at: count.time)
        }
    }

    /// A target's last result as its snapshot shows it: summarised once as it arrives (rather than keeping the
    /// whole record and its address rows) and immutable, so copies of the state share it.
    fileprivate final class LastProbe: Sendable {
        let status: TargetSnapshot.Status
        let result: TargetSnapshot.LastResult
        let addresses: [TargetSnapshot.AddressStatus]?

        init(_ record: ProbeRecord, addresses: [ProbeRecord]?) {
            switch record.outcome {
            case .ok: status = .up
            case .failed: status = .down
            case .skipped: status = .skipped
            }
            result = TargetSnapshot.LastResult(record)
            self.addresses = addresses.map { $0.map(TargetSnapshot.AddressStatus.init) }
        }
    }

    /// What a snapshot shows of a target's configuration. Snapshots take it from here alone, so a reload that leaves
    /// it equal leaves them equal.
    fileprivate struct Shown: Equatable {
        var name: String
        var url: String
        var endpoint: String
        var labels: TargetLabels
        var intervalSeconds: Double

        init(_ target: ProbeTarget) {
            name = target.name
            url = target.url
            endpoint = target.endpoint
            labels = target.labels
            intervalSeconds = target.interval.inSeconds
        }
    }

    private struct State {
        var order: [String] = []
        var entries: [String: Entry] = [:]
        /// The last revision handed to an entry; never reused, so a target removed and added again starts anew.
        var revision: UInt64 = 0

        mutating func nextRevision() -> UInt64 {
            revision += 1
            return revision
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// Makes the set of targets match the configuration: new ones start `pending`, removed ones are dropped,
    /// kept ones keep their history (a reload never loses state).
    public func configure(_ targets: [ProbeTarget]) {
        state.withLock { state in
            var entries: [String: Entry] = [:]
            entries.reserveCapacity(targets.count)
            for target in targets {
                var entry: Entry
                if let kept = state.entries.removeValue(forKey: target.name) {
                    entry = kept
                    // A reload that leaves what a snapshot shows of the target keeps its revision (and the feed's
                    // encoded JSON of it).
                    if Shown(kept.target) != Shown(target) { entry.revision = state.nextRevision() }
                } else {
                    entry = Entry(target: target)
                    entry.revision = state.nextRevision()
                }
                entry.target = target
                entries[target.name] = entry
            }
            state.order = targets.map(\.name)
            state.entries = entries
        }
    }

    /// Records a result (ok, failed or skipped); `addresses`: the per-address rows when `record` combines them.
    /// The entry is changed in place: its uptime counts are not copied for every result.
    public func record(_ record: ProbeRecord, addresses: [ProbeRecord]? = nil) {
        state.withLock { state in
            // Revisions are opaque: one taken for a target no longer configured changes nothing.
            let revision = state.nextRevision()
            state.entries[record.target]?.record(record, addresses: addresses, revision: revision)
        }
    }

    /// Seeds uptime counters from stored history (daemon start).
    public func seed(_ counts: [Store.OutcomeCount]) {
        state.withLock { state in
            for count in counts {
                let revision = state.nextRevision()
                state.entries[count.target]?.seed(count, revision: revision)
            }
        }
    }

    /// The configured labels of each target that has any (for export rows).
    public var labelsByTarget: [String: [String: String]] {
        state.withLock { state in state.entries.compactMapValues { $0.target.labels.isEmpty ? nil : $0.target.labels.dictionary } }
    }

    /// Configured target names in configuration order.
    public var names: [String] { state.withLock { $0.order } }

    /// Whether a target of this name is configured.
    public func contains(_ name: String) -> Bool { state.withLock { $0.entries[name] != nil } }

    /// Snapshots in configuration order; `firing` supplies the firing alerts per target. Without `uptime` their
    /// uptime ratios are left nil (a reader that does not show them skips counting three windows per target).
    /// The state is copied under the lock (copy on write) and the snapshots are built outside it, so probes
    /// recording results do not wait for 10,000 snapshots.
    public func snapshots(now: Timestamp = .now(), firing: [String: [FiringAlert]] = [:],
                          uptime: Bool = true) -> [TargetSnapshot] {
        snapshotSources(now: now, firing: firing, uptime: uptime).map { $0.snapshot() }
    }

    /// What each target's snapshot is made from, in configuration order, without building the snapshots: a reader
    /// that keeps what it made of a snapshot compares ``SnapshotSource/key`` and builds only the changed ones.
    public func snapshotSources(now: Timestamp = .now(), firing: [String: [FiringAlert]] = [:],
                                uptime: Bool = true) -> [SnapshotSource] {
        let state = state.withLock { $0 }
        return state.order.compactMap { name in
            state.entries[name].map { SnapshotSource($0, now: now, firing: firing[name] ?? [], uptime: uptime) }
        }
    }

    /// One target's snapshot, nil when not configured.
    public func snapshot(_ name: String, now: Timestamp = .now(), firing: [FiringAlert] = []) -> TargetSnapshot? {
        state.withLock { state in state.entries[name] }
            .map { SnapshotSource($0, now: now, firing: firing, uptime: true).snapshot() }
    }
}

extension TargetStates {
    /// One target's snapshot before it is built: its entry as it was, its firing alerts and uptime ratios at the
    /// time asked, and a ``key`` that is equal for two sources only when their snapshots are.
    public struct SnapshotSource: Sendable {
        /// Equal keys make equal snapshots.
        public enum Key: Sendable, Equatable {
            /// A target of ``TargetStates``: the entry's revision (every change to it takes a new one), its firing
            /// alerts and its uptime ratios, the only parts of a snapshot that move without the entry changing.
            case state(revision: UInt64, firing: [FiringAlert], uptime: TargetSnapshot.Uptime)
            /// A snapshot made elsewhere, compared whole (boxed: a key stays a few words, where a snapshot is hundreds
            /// of bytes and the feed keeps a key per target).
            indirect case snapshot(TargetSnapshot)
        }

        public let name: String
        private let origin: Origin

        private enum Origin: Sendable {
            case entry(Entry, firing: [FiringAlert], uptime: TargetSnapshot.Uptime)
            indirect case made(TargetSnapshot)
        }

        fileprivate init(_ entry: Entry, now: Timestamp, firing: [FiringAlert], uptime: Bool) {
            let ratios = !uptime ? TargetSnapshot.Uptime() : .init(
                lastHour: entry.uptime.ratio(lastSeconds: 3_600, now: now),
                lastDay: entry.uptime.ratio(lastSeconds: 86_400, now: now),
                lastWeek: entry.uptime.ratio(lastSeconds: 604_800, now: now))
            name = entry.target.name
            origin = .entry(entry, firing: firing, uptime: ratios)
        }

        /// A source for a snapshot already made.
        public init(_ snapshot: TargetSnapshot) {
            name = snapshot.name
            origin = .made(snapshot)
        }

        /// What the snapshot depends on.
        public var key: Key {
            switch origin {
            case .entry(let entry, let firing, let uptime): .state(revision: entry.revision, firing: firing, uptime: uptime)
            case .made(let snapshot): .snapshot(snapshot)
            }
        }

        /// The snapshot.
        public func snapshot() -> TargetSnapshot {
            switch origin {
            case .made(let snapshot): snapshot
            case .entry(let entry, let firing, let uptime): Self.snapshot(entry, firing: firing, uptime: uptime)
            }
        }

        private static func snapshot(_ entry: Entry, firing: [FiringAlert], uptime: TargetSnapshot.Uptime) -> TargetSnapshot {
            let shown = Shown(entry.target)
            var snapshot = TargetSnapshot(
                name: shown.name, url: shown.url, endpoint: shown.endpoint, labels: shown.labels,
                intervalSeconds: shown.intervalSeconds,
                status: entry.last?.status ?? .pending, lastResult: entry.last?.result, lastProbeAt: entry.lastProbeAt,
                consecutiveFailures: entry.consecutiveFailures, firingAlerts: firing, uptime: uptime)
            snapshot.addresses = entry.last?.addresses
            return snapshot
        }
    }
}
