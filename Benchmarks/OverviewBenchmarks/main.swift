// Status-page overview benchmark: the 24 h uptime buckets of every target (`GET /v1/overview`, what the overview page
// loads besides `/v1/status`) from a large store, through the real feed over loopback HTTP.
//
//   swift build -c release --product OverviewBenchmarks
//   .build/release/OverviewBenchmarks --db /tmp/overview.sqlite [--targets 1000] [--rows 10000000] [--days 30] [--requests 20]
//
// A missing database is generated first with one INSERT … SELECT over a recursive counter (minutes, not the hours
// 10 million `Store.write` rows would take): `rows` results spread evenly over `days` up to now across `targets`
// targets, 1 % failed and 0.5 % skipped, timings filled, no certificates. An existing one is reused as it is.
// Prints the generation time (when it ran), the first request and the min / median / p95 / max of the rest.
import Foundation
import GRDB
import Logging
import NetVigilAgent
import NetVigilFeed
import NetVigilStore

/// `--name value` pairs; an unknown name or a missing value ends the run with the usage line.
let options: [String: String] = {
    let usage = "usage: OverviewBenchmarks --db PATH [--targets N] [--rows N] [--days N] [--requests N]\n"
    let known: Set<String> = ["--db", "--targets", "--rows", "--days", "--requests"]
    var result: [String: String] = [:]
    var rest = CommandLine.arguments.dropFirst()
    while let name = rest.popFirst() {
        guard known.contains(name), let value = rest.popFirst() else {
            FileHandle.standardError.write(Data("OverviewBenchmarks: unexpected argument \(name); \(usage)".utf8))
            exit(64)
        }
        result[name] = value
    }
    return result
}()
let path = options["--db"] ?? "/tmp/netvigil-overview.sqlite"
let targetCount = options["--targets"].flatMap { Int($0) } ?? 1_000
let rows = options["--rows"].flatMap { Int($0) } ?? 10_000_000
let days = options["--days"].flatMap { Int($0) } ?? 30
let requests = options["--requests"].flatMap { Int($0) } ?? 20

/// Fills a new store: result `i` at `start + i * step` for target `i % targets`.
func generate() throws {
    _ = try Store.open(path: path)  // creates the file with netvigil's schema and pragmas
    let queue = try DatabaseQueue(path: path)
    let now = Int64(Date().timeIntervalSince1970 * 1_000)
    let span = Int64(days) * 86_400_000
    let step = Double(span) / Double(rows)
    let started = Date()
    try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA synchronous = OFF; PRAGMA cache_size = -262144")
        try db.inTransaction {
            try db.execute(sql: """
                WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
                INSERT INTO probe_results (time_ms, target, url, outcome, error_kind, error_message, http_status, http_version,
                    content_type, content_length, resolve_ms, connect_ms, tls_ms, processing_ms, transfer_ms, total_ms,
                    tls_version, tls_cipher, alpn, trust_verdict, pin_verdict, reachability_status, resolved_address)
                SELECT ? + CAST(i * ? AS INTEGER), 'target-' || (i % ?), 'https://t' || (i % ?) || '.example/health',
                       CASE WHEN i % 200 = 7 THEN 'skipped' WHEN i % 100 = 3 THEN 'failed' ELSE 'ok' END,
                       CASE WHEN i % 100 = 3 THEN 'connectRefused' END,
                       CASE WHEN i % 100 = 3 THEN 'connection refused' END,
                       CASE WHEN i % 100 = 3 THEN NULL ELSE 200 END, '1.1', 'application/json', 42,
                       0.2, 0.3 + (i % 7) * 0.1, 2.1, 1.2 + (i % 13) * 0.3, 0.1, 3.9 + (i % 13) * 0.4,
                       'TLSv1.3', 'TLS_AES_128_GCM_SHA256', 'http/1.1', 'trusted', 'matched', 'ReachableViaWiFi', '127.0.0.1'
                FROM n
                """, arguments: [rows, now - span, step, targetCount, targetCount])
            return .commit
        }
    }
    try queue.close()
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    print(String(format: "generated %d rows for %d targets over %d days in %.1f s (%.2f GB)",
                 rows, targetCount, days, Date().timeIntervalSince(started), Double(size) / 1e9))
}

if !FileManager.default.fileExists(atPath: path) { try generate() }

/// The feed over `store`, with the targets configured, on a free loopback port.
let store = try Store.open(path: path)
let states = TargetStates()
let yaml = "targets:\n" + (0..<targetCount).map { "  - { name: target-\($0), url: \"https://t\($0).example/health\" }" }.joined(separator: "\n")
states.configure(try AgentConfiguration(yaml: yaml, file: "bench.yml").targets.targets)
let address = AsyncStream.makeStream(of: String.self)
var logger = Logger(label: "bench")
logger.logLevel = .warning
let app = buildApplication(configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0)),
                           state: FeedState(store: store, targets: states), logger: logger) { running in
    address.continuation.yield(running)
}
let server = Task { try await app.runService(gracefulShutdownSignals: []) }
guard let listening = await address.stream.first(where: { _ in true }) else { fatalError("the feed did not start") }

/// Seconds for one `GET` (curl's time_total) and the body size.
func fetch(_ path: String) throws -> (seconds: Double, bytes: Int) {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total} %{size_download}", "http://\(listening)\(path)"]
    process.standardOutput = output
    try process.run()
    process.waitUntilExit()
    let fields = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ")
    guard fields.count == 3, fields[0] == "200", let seconds = Double(fields[1]), let bytes = Int(fields[2]) else {
        fatalError("GET \(path) failed: \(fields)")
    }
    return (seconds, bytes)
}

/// The store's part alone: the grouped query and the buckets it fills.
let names = Set(states.names)
var storeTimes: [Double] = []
for _ in 0..<max(1, requests) {
    let started = ContinuousClock.now
    let window = Store.BucketWindow(endingAt: .now(), widthMilliseconds: 1_800_000, count: 48)
    _ = try await store.outcomeBuckets(targets: names, window: window)
    let elapsed = ContinuousClock.now - started
    storeTimes.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}
storeTimes.sort()
print(String(format: "Store.outcomeBuckets (48 × 30 min, %d targets): min %.1f / median %.1f / max %.1f ms over %d calls",
             targetCount, storeTimes[0] * 1_000, storeTimes[storeTimes.count / 2] * 1_000, storeTimes[storeTimes.count - 1] * 1_000,
             storeTimes.count))

for route in ["/v1/overview?range=24h&bucket=30m", "/v1/status"] {
    let first = try fetch(route)
    var times = (0..<max(1, requests)).map { _ in (try? fetch(route).seconds) ?? .nan }.sorted()
    times = times.filter { !$0.isNaN }
    let median = times[times.count / 2], p95 = times[min(times.count - 1, Int(Double(times.count) * 0.95))]
    print(String(format: "%@ with %d targets, %d rows: first %.1f ms, then min %.1f / median %.1f / p95 %.1f / max %.1f ms over %d requests, %d bytes",
                 route, targetCount, rows, first.seconds * 1_000, times[0] * 1_000, median * 1_000, p95 * 1_000,
                 times[times.count - 1] * 1_000, times.count, first.bytes))
}
server.cancel()
exit(0)
