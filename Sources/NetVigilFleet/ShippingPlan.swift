import NetVigilStore

/// The shipper's decisions, without I/O: which stream to read next and after which id, when to wait, how long to back
/// off. The service does what it says and reports back; unit tests drive it alone.
///
/// Rules: a stream whose last page was full is read again at once (catching up); when every stream came back short,
/// the shipper idles for `idle` and then polls them all; a failure backs off exponentially from `minimumBackoff` to
/// `maximumBackoff` (with the caller's jitter), and the next success resets it. A cursor only moves forward, except
/// when the local ids restarted (``restart(_:)``).
public struct ShippingPlan: Sendable, Equatable {
    public struct Policy: Sendable, Equatable {
        public var batchRows: Int
        public var idle: Duration
        public var minimumBackoff: Duration
        public var maximumBackoff: Duration

        public init(batchRows: Int = 500, idle: Duration = .seconds(1), minimumBackoff: Duration = .milliseconds(500),
                    maximumBackoff: Duration = .seconds(30)) {
            self.batchRows = batchRows
            self.idle = idle
            self.minimumBackoff = minimumBackoff
            self.maximumBackoff = maximumBackoff
        }
    }

    /// What to do next.
    public enum Step: Sendable, Equatable {
        /// Read up to `limit` rows of `stream` with ids above `after` and ship them.
        case ship(ShippedStream, after: Int64, limit: Int)
        /// Everything is shipped: wait, then poll again.
        case idle(Duration)
        /// The last attempt failed: wait this long before the next.
        case backoff(Duration)
    }

    public let policy: Policy
    /// The highest id PostgreSQL acknowledged, per stream.
    public private(set) var cursors: [ShippedStream: Int64]
    /// Failures since the last success.
    public private(set) var consecutiveFailures = 0
    private var pending: [ShippedStream]
    private var backoffDue = false

    public init(cursors: [ShippedStream: Int64], policy: Policy = Policy()) {
        self.policy = policy
        self.cursors = Dictionary(uniqueKeysWithValues: ShippedStream.allCases.map { ($0, cursors[$0] ?? 0) })
        pending = ShippedStream.allCases
    }

    /// The next step; `jitter` in 0..<1 spreads a fleet's retries (0 in tests).
    public mutating func next(jitter: Double = 0) -> Step {
        if backoffDue {
            backoffDue = false
            return .backoff(backoff(jitter: jitter))
        }
        if let stream = pending.first {
            return .ship(stream, after: cursors[stream] ?? 0, limit: policy.batchRows)
        }
        pending = ShippedStream.allCases
        return .idle(policy.idle)
    }

    /// PostgreSQL holds `stream`'s rows through `sequence` (nil: the page was empty); `full` when the page had
    /// `batchRows` rows (more may wait).
    public mutating func acknowledged(_ stream: ShippedStream, through sequence: Int64?, full: Bool) {
        if let sequence, sequence > cursors[stream] ?? 0 { cursors[stream] = sequence }
        consecutiveFailures = 0
        if !full {
            pending.removeAll { $0 == stream }
        } else if pending.first == stream, pending.count > 1 {
            // Catching up: the other streams get their turn between full pages.
            pending.append(pending.removeFirst())
        }
    }

    /// Rows of `stream` up to `sequence` are gone from the local store (retention): nothing to ship below it.
    public mutating func skipExpired(_ stream: ShippedStream, through sequence: Int64) {
        if sequence > cursors[stream] ?? 0 { cursors[stream] = sequence }
    }

    /// The local ids of `stream` restarted below the cursor (its table was emptied): ship it again from id 0.
    public mutating func restart(_ stream: ShippedStream) {
        cursors[stream] = 0
    }

    /// The attempt failed; the next step is a back-off.
    public mutating func failed() {
        consecutiveFailures += 1
        backoffDue = true
    }

    /// The back-off after the current run of failures: minimum × 2^(failures − 1), at most the maximum, plus up to
    /// half of it again as jitter.
    public func backoff(jitter: Double = 0) -> Duration {
        guard consecutiveFailures > 0 else { return .zero }
        let exponent = min(consecutiveFailures - 1, 30)
        let base = min(policy.minimumBackoff * (1 << exponent), policy.maximumBackoff)
        return base + base * (max(0, min(jitter, 1)) / 2)
    }
}
