import GRDB

extension Store {
    /// The time of the `count`-th newest probe result of `target` (the lower bound of its last `count` results),
    /// nil when it has fewer.
    public func probeTimeBound(target: String, newest count: Int) throws -> Timestamp? {
        try read { db in
            try Int64.fetchOne(db, sql: """
                SELECT time_ms FROM probe_results WHERE target = ? ORDER BY time_ms DESC LIMIT 1 OFFSET ?
                """, arguments: [target, max(0, count - 1)])
        }.map(Timestamp.init(milliseconds:))
    }
}
