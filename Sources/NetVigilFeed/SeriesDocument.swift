import NetVigilStore

/// The bodies of the series routes: a bucket window and, per bucket, what the store aggregated.
struct SeriesDocument<Entry: Encodable & Sendable>: Encodable, Sendable {
    /// The target, nil for `/v1/overview`.
    var target: String?
    var range: String
    var bucket: String
    /// Start of the first bucket.
    var from: Timestamp
    /// End of the last bucket (the current one, still filling).
    var until: Timestamp
    var buckets: [Entry]?
    /// `/v1/overview`: one entry per configured target.
    var targets: [Entry]?

    init(target: String?, parameters: BucketParameters, buckets: [Entry]? = nil, targets: [Entry]? = nil) {
        self.target = target
        range = parameters.rangeText
        bucket = parameters.bucketText
        from = parameters.window.start
        until = parameters.window.end
        self.buckets = buckets
        self.targets = targets
    }
}

/// One bucket of `/v1/targets/NAME/uptime`.
struct UptimeBucketEntry: Encodable, Sendable {
    var start: Timestamp
    var ok: Int
    var failed: Int
    var skipped: Int
    /// `failed`, `skipped` or `ok`; absent for an empty bucket.
    var worst: ProbeOutcome?

    init(_ bucket: Store.OutcomeBucket) {
        start = bucket.start
        ok = bucket.ok
        failed = bucket.failed
        skipped = bucket.skipped
        worst = bucket.worst
    }
}

/// One bucket of `/v1/targets/NAME/timings`: per phase `{"avg": ms, "max": ms}` of the successful probes.
struct TimingBucketEntry: Encodable, Sendable {
    var start: Timestamp
    var count: Int
    var phases: [String: Phase]

    struct Phase: Encodable, Sendable {
        var avg: Double
        var max: Double
    }

    init(_ bucket: Store.TimingBucket) {
        start = bucket.start
        count = bucket.count
        phases = bucket.phases.mapValues { Phase(avg: Self.rounded($0.average), max: Self.rounded($0.max)) }
    }

    /// Milliseconds to 3 decimals (microseconds): enough for a chart, short in JSON.
    static func rounded(_ value: Double) -> Double { (value * 1_000).rounded() / 1_000 }
}

/// One target of `/v1/overview`, column-wise (one array element per bucket) so 1,000 targets stay small.
struct OverviewTargetEntry: Encodable, Sendable {
    var name: String
    var ok: [Int]
    var failed: [Int]
    var skipped: [Int]
    /// Average total milliseconds of each bucket's successful probes, null where there were none.
    var totalMs: [Double?]

    enum CodingKeys: String, CodingKey {
        case name, ok, failed, skipped
        case totalMs = "total_ms"
    }

    init(name: String, buckets: [Store.OutcomeBucket]) {
        self.name = name
        ok = buckets.map(\.ok)
        failed = buckets.map(\.failed)
        skipped = buckets.map(\.skipped)
        totalMs = buckets.map { $0.averageTotalMilliseconds.map { ($0 * 10).rounded() / 10 } }
    }

    /// Encodes `null` for buckets without a time rather than leaving the array short.
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(ok, forKey: .ok)
        try container.encode(failed, forKey: .failed)
        try container.encode(skipped, forKey: .skipped)
        var times = container.nestedUnkeyedContainer(forKey: .totalMs)
        for value in totalMs {
            if let value { try times.encode(value) } else { try times.encodeNil() }
        }
    }
}
