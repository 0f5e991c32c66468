import Hummingbird
import NetVigilAgent
import NetVigilStore

/// The `range` and `bucket` query parameters of the series routes (`/v1/targets/NAME/uptime`, `…/timings`,
/// `/v1/overview`), validated into a bucket window.
///
/// Both are durations like `24h`, `7d`, `30m`; `bucket` is at least 1 minute, `range` at most 31 days and at least
/// one bucket, and `range / bucket` (rounded up) at most ``maximumBuckets``.
struct BucketParameters {
    /// The most buckets one response holds.
    static let maximumBuckets = 500
    static let names = ["range", "bucket"]
    static let longestRange: Duration = .seconds(31 * 86_400)

    var range: Duration
    var bucket: Duration
    /// `range` and `bucket` as given (or their defaults), echoed in the response.
    var rangeText: String
    var bucketText: String
    var window: Store.BucketWindow

    /// Parses and validates; throws `FeedRequestError` (400) naming the first bad parameter.
    init(_ values: [String: [String]], defaultRange: Duration = .seconds(86_400), defaultBucket: Duration = .seconds(1_800),
         now: Timestamp = .now()) throws {
        let parameters = try QueryParameters(values, accepted: Self.names, once: Self.names, expected: "range or bucket")
        func duration(_ name: String, default value: Duration) throws -> (Duration, String) {
            guard let text = parameters[name] else { return (value, ConfigDuration.format(value)) }
            guard let parsed = ConfigDuration.parse(text), parsed > .zero else {
                throw FeedRequestError("\(name): expected a duration like 30m, 24h or 7d, got \"\(text.prefix(40))\"")
            }
            return (parsed, text)
        }
        (range, rangeText) = try duration("range", default: defaultRange)
        (bucket, bucketText) = try duration("bucket", default: defaultBucket)
        guard bucket >= .seconds(60) else {
            throw FeedRequestError("bucket: must be at least 1m, got \(ConfigDuration.format(bucket))")
        }
        guard range <= Self.longestRange else {
            throw FeedRequestError("range: must be at most 31d, got \(ConfigDuration.format(range))")
        }
        guard range >= bucket else {
            throw FeedRequestError("range (\(ConfigDuration.format(range))) must be at least one bucket (\(ConfigDuration.format(bucket)))")
        }
        let width = ConfigDuration.milliseconds(bucket)
        let count = (ConfigDuration.milliseconds(range) + width - 1) / width
        guard count <= Self.maximumBuckets else {
            throw FeedRequestError("range / bucket gives \(count) buckets, at most \(Self.maximumBuckets): use a wider bucket")
        }
        window = Store.BucketWindow(endingAt: now, widthMilliseconds: width, count: Int(count))
    }
}
