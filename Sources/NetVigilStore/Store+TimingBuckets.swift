import GRDB

extension Store {
    /// Average and maximum of one phase over a bucket's successful probes, in milliseconds.
    public struct PhaseStatistic: Sendable, Equatable, Codable {
        public var average: Double
        public var max: Double
    }

    /// Phase timings of one target's successful probes in one bucket; phases no probe measured are nil.
    public struct TimingBucket: Sendable, Equatable {
        public var start: Timestamp
        /// Successful probes in the bucket.
        public var count: Int
        /// By phase name: `resolve`, `connect`, `proxy`, `tls`, `revocation`, `processing`, `transfer`, `total`.
        public var phases: [String: PhaseStatistic]

        public init(start: Timestamp, count: Int = 0, phases: [String: PhaseStatistic] = [:]) {
            self.start = start
            self.count = count
            self.phases = phases
        }
    }

    /// The phases a timing bucket reports, in request order, with their columns.
    public static let timingPhases = ["resolve", "connect", "proxy", "tls", "revocation", "processing", "transfer", "total"]

    /// Per-bucket average and maximum of each phase of `target`'s successful probes, every bucket present.
    public func timingBuckets(target: String, window: BucketWindow) async throws -> [TimingBucket] {
        let columns = Self.timingPhases.map { "AVG(\($0)_ms) AS \($0)_avg, MAX(\($0)_ms) AS \($0)_max" }
        let sql = """
            SELECT (time_ms - ?) / ? AS bucket, COUNT(*) AS count, \(columns.joined(separator: ", "))
            FROM probe_results
            WHERE target = ? AND time_ms >= ? AND time_ms < ? AND outcome = 'ok'
            GROUP BY bucket
            """
        let arguments: StatementArguments = [window.start.milliseconds, window.widthMilliseconds, target,
                                             window.start.milliseconds, window.end.milliseconds]
        do {
            return try await pool.read { db in
                var result = (0..<window.count).map { TimingBucket(start: window.start(of: $0)) }
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
                while let row = try cursor.next() {
                    let index: Int = row["bucket"]
                    guard index >= 0 && index < window.count else { continue }
                    var phases: [String: PhaseStatistic] = [:]
                    for phase in Self.timingPhases {
                        if let average: Double = row["\(phase)_avg"], let max: Double = row["\(phase)_max"] {
                            phases[phase] = PhaseStatistic(average: average, max: max)
                        }
                    }
                    result[index] = TimingBucket(start: window.start(of: index), count: row["count"], phases: phases)
                }
                return result
            }
        } catch {
            throw Store.classify(error, path: path)
        }
    }
}
