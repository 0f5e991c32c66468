import NetVigilConcurrency
import NetVigilStore
import Synchronization

/// The daemon's in-memory view of every probe target: last result, failure streak, uptime. The feed reads it.
public final class TargetStates: Sendable {
    private struct Entry: Sendable {
        var name: String
        var url: String
        var endpoint: String?
        var labels = TargetLabels()
        var interval: Duration
        var last: ProbeRecord?
        /// The per-address rows of the last `addresses: all` tick.
        var addresses: [ProbeRecord]?
        var lastProbeAt: Timestamp?
        var consecutiveFailures = 0
        var uptime = UptimeCounter()
    }

    private struct State {
        var order: [String] = []
        var entries: [String: Entry] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Makes the set of targets match the configuration: new ones start `pending`, removed ones are dropped,
    /// kept ones keep their history (a reload never loses state).
    public func configure(_ targets: [ProbeTarget]) {
        state.withLock { state in
            var entries: [String: Entry] = [:]
            for target in targets {
                var entry = state.entries[target.name] ?? Entry(name: target.name, url: target.url, interval: target.interval)
                entry.url = target.url
                entry.endpoint = target.endpoint
                entry.labels = target.labels
                entry.interval = target.interval
                entries[target.name] = entry
            }
            state.order = targets.map(\.name)
            state.entries = entries
        }
    }

    /// Records a result (ok, failed or skipped); `addresses`: the per-address rows when `record` combines them.
    public func record(_ record: ProbeRecord, addresses: [ProbeRecord]? = nil) {
        state.withLock { state in
            guard var entry = state.entries[record.target] else { return }
            entry.last = record
            entry.addresses = addresses
            switch record.outcome {
            case .ok:
                entry.consecutiveFailures = 0
                entry.lastProbeAt = record.time
                entry.uptime.add(good: 1, bad: 0, at: record.time)
            case .failed:
                entry.consecutiveFailures += 1
                entry.lastProbeAt = record.time
                entry.uptime.add(good: 0, bad: 1, at: record.time)
            case .skipped:
                break
            }
            state.entries[record.target] = entry
        }
    }

    /// Seeds uptime counters from stored history (daemon start).
    public func seed(_ counts: [Store.OutcomeCount]) {
        state.withLock { state in
            for count in counts {
                state.entries[count.target]?.uptime.add(good: count.ok, bad: count.failed, at: count.time)
            }
        }
    }

    /// The last result of `target` (nil when not configured or not probed yet).
    public func lastRecord(_ target: String) -> ProbeRecord? {
        state.withLock { $0.entries[target]?.last }
    }

    /// The configured labels of each target that has any (for export rows).
    public var labelsByTarget: [String: [String: String]] {
        state.withLock { state in state.entries.compactMapValues { $0.labels.isEmpty ? nil : $0.labels.dictionary } }
    }

    /// Configured target names in configuration order.
    public var names: [String] { state.withLock { $0.order } }

    /// Snapshots in configuration order; `firing` supplies the firing alerts per target.
    /// The state is copied under the lock (copy on write) and the snapshots are built outside it, so probes
    /// recording results do not wait for 10,000 snapshots.
    public func snapshots(now: Timestamp = .now(), firing: [String: [FiringAlert]] = [:]) -> [TargetSnapshot] {
        let state = state.withLock { $0 }
        return state.order.compactMap { name in
            state.entries[name].map { Self.snapshot($0, now: now, firing: firing[name] ?? []) }
        }
    }

    /// One target's snapshot, nil when not configured.
    public func snapshot(_ name: String, now: Timestamp = .now(), firing: [FiringAlert] = []) -> TargetSnapshot? {
        state.withLock { state in state.entries[name].map { Self.snapshot($0, now: now, firing: firing) } }
    }

    private static func snapshot(_ entry: Entry, now: Timestamp, firing: [FiringAlert]) -> TargetSnapshot {
        let status: TargetSnapshot.Status
        switch entry.last?.outcome {
        case nil: status = .pending
        case .ok?: status = .up
        case .failed?: status = .down
        case .skipped?: status = .skipped
        }
        var snapshot = TargetSnapshot(
            name: entry.name, url: entry.url, endpoint: entry.endpoint, labels: entry.labels,
            intervalSeconds: entry.interval.inSeconds,
            status: status, lastResult: entry.last.map(TargetSnapshot.LastResult.init), lastProbeAt: entry.lastProbeAt,
            consecutiveFailures: entry.consecutiveFailures, firingAlerts: firing,
            uptime: .init(lastHour: entry.uptime.ratio(lastSeconds: 3_600, now: now),
                          lastDay: entry.uptime.ratio(lastSeconds: 86_400, now: now),
                          lastWeek: entry.uptime.ratio(lastSeconds: 604_800, now: now)))
        snapshot.addresses = entry.addresses.map { $0.map(TargetSnapshot.AddressStatus.init) }
        return snapshot
    }
}
