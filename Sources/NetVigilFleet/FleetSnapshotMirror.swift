import Logging
import NetVigilConcurrency
import NetVigilStore
import PostgresNIO
import Synchronization

/// The hub's copy of the fleet's latest results, kept current by reading only the rows written since the previous
/// read (`latest_results.written`, schema version 3). At 500 agents × 100 endpoints a full read decodes 50,000 rows;
/// agents probing every minute change under a thousand of them a second, so a status request pays for those.
///
/// Reads take turns, so each one merges a state newer than the one before it. The agents and agreed keys (a row per
/// agent and per endpoint) are read whole each time. A full read is made at the first refresh and then when the
/// caller allows one and the last is over ``fullReadEvery`` old: a row deleted by hand (nothing in netvigil deletes
/// latest results) leaves the copy then.
public final class FleetSnapshotMirror: Sendable {
    public static let fullReadEvery: Duration = .seconds(60)

    /// The copy: the snapshot, where each (agent, target) sits in its results, and the horizon of the last read.
    struct Copy: Sendable {
        var snapshot: FleetSnapshot
        var positions: [Pair: Int]
        var horizon: UInt64
        var fullReadAt: ContinuousClock.Instant

        /// The copy of a full read.
        init(full snapshot: FleetSnapshot, horizon: UInt64, at time: ContinuousClock.Instant) {
            self.snapshot = snapshot
            self.horizon = horizon
            fullReadAt = time
            positions = Dictionary(snapshot.results.enumerated().map { (Pair(agent: $1.agent, target: $1.target), $0) }) { _, last in last }
        }
    }

    struct Pair: Hashable, Sendable {
        var agent: String
        var target: String
    }

    private let copy = Mutex<Copy?>(nil)
    private let turn = AsyncSemaphore(value: 1)

    public init() {}

    /// Reads what changed since the previous refresh (everything, the first time or when `allowFullRead` and a full
    /// read is due) and returns the fleet as it is now.
    public func refresh(on connection: PostgresConnection, allowFullRead: Bool, logger: Logger) async throws -> FleetSnapshot {
        try await turn.acquire()
        defer { turn.release() }
        // Taken out while it is merged into, so that the merge does not copy it (only refreshes touch it, one at a
        // time); put back unchanged when the read fails.
        var taken = copy.withLock { current in
            defer { current = nil }
            return current
        }
        let now = ContinuousClock.now
        if taken != nil, !(allowFullRead && now - taken!.fullReadAt >= Self.fullReadEvery) {
            var current = taken!
            taken = nil
            let delta: (snapshot: FleetSnapshot, horizon: UInt64)
            do {
                delta = try await FleetHubDatabase.snapshot(changedSince: current.horizon, on: connection, logger: logger)
            } catch {
                copy.withLock { [current] in $0 = current }
                throw error
            }
            Self.merge(delta.snapshot, horizon: delta.horizon, into: &current)
            copy.withLock { [current] in $0 = current }
            return current.snapshot
        }
        let full: (snapshot: FleetSnapshot, horizon: UInt64)
        do {
            full = try await FleetHubDatabase.snapshot(on: connection, logger: logger)
        } catch {
            copy.withLock { [taken] in $0 = taken }
            throw error
        }
        let fresh = Copy(full: full.snapshot, horizon: full.horizon, at: now)
        copy.withLock { $0 = fresh }
        return fresh.snapshot
    }

    /// `delta`'s agents, agreed keys and clock, and its results over the copy's: a pair already there is replaced,
    /// a new one appended.
    static func merge(_ delta: FleetSnapshot, horizon: UInt64, into merged: inout Copy) {
        merged.horizon = horizon
        merged.snapshot.agents = delta.agents
        merged.snapshot.agreedKeys = delta.agreedKeys
        merged.snapshot.time = delta.time
        for result in delta.results {
            let pair = Pair(agent: result.agent, target: result.target)
            if let position = merged.positions[pair] {
                merged.snapshot.results[position] = result
            } else {
                merged.positions[pair] = merged.snapshot.results.count
                merged.snapshot.results.append(result)
            }
        }
    }
}
