import GRDB

extension Store {
    /// The served leaf of a target's newest result that has a served chain.
    public struct LatestLeafKey: Sendable, Equatable {
        public var target: String
        /// The probed URL of that result.
        public var url: String?
        /// SPKI pin of the leaf, `sha256/BASE64`.
        public var spkiPin: String
        public var time: Timestamp
    }

    /// The served leaf key of every target's newest result with a served chain: what the alert engine compares the
    /// first result after a restart with (`key_changed`).
    public func latestLeafKeys() async throws -> [LatestLeafKey] {
        do {
            return try await pool.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT p.target, p.url, p.time_ms, c.spki_pin
                    FROM (SELECT target, url, time_ms, served_chain_id,
                                 ROW_NUMBER() OVER (PARTITION BY target ORDER BY time_ms DESC, id DESC) AS position
                          FROM probe_results WHERE served_chain_id IS NOT NULL) p
                    JOIN chain_certificates cc ON cc.chain_id = p.served_chain_id AND cc.position = 0
                    JOIN certificates c ON c.id = cc.certificate_id
                    WHERE p.position = 1
                    ORDER BY p.target
                    """).map { row in
                    LatestLeafKey(target: row["target"], url: row["url"], spkiPin: row["spki_pin"],
                                  time: Timestamp(milliseconds: row["time_ms"]))
                }
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }
}
