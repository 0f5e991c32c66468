// Scheduler benchmark: N targets on one interval against a loopback server, for a while, in-process with the real
// probe pipeline (Prober, StoreWriter on a real SQLite file, event hub, target state).
//
//   swift build -c release --product SchedulerBenchmarks
//   .build/release/SchedulerBenchmarks --url http://127.0.0.1:8080/ --targets 1000 --interval 10s --seconds 300
//
// Prints CPU share, peak and final RSS, p50/p99/max lateness of probe starts against their schedule, probes and
// rows written per second. Benchmarks/run.sh scheduler starts nginx and runs it.
import Foundation
import Logging
import NetVigilAgent
import NetVigilProber
import NetVigilStore

func argument(_ name: String, default value: String) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: name), index + 1 < arguments.count { return arguments[index + 1] }
    return value
}

func rssKilobytes(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let url = argument("--url", default: "http://127.0.0.1:8080/")
let count = Int(argument("--targets", default: "1000")) ?? 1_000
let interval = argument("--interval", default: "10s")
let seconds = Double(argument("--seconds", default: "300")) ?? 300
let warmup = Double(argument("--warmup", default: "15")) ?? 15
let concurrency = Int(argument("--concurrency", default: "64")) ?? 64
let database = argument("--db", default: NSTemporaryDirectory() + "netvigil-scheduler-bench-\(getpid()).sqlite")

LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .error
    return handler
}
let logger = Logger(label: "bench")
let yaml = "targets:\n" + (0..<count).map { "  - { name: t\($0), url: \"\(url)?t=\($0)\", interval: \(interval), timeout: 5s }" }
    .joined(separator: "\n")
let configuration = try AgentConfiguration(yaml: yaml, file: "bench.yml")
let store = try Store.open(path: database)
let writer = StoreWriter(store: store, logger: logger)
let states = TargetStates()
let pipeline = ProbePipeline(prober: Prober(), writer: writer, states: states, events: EventHub(), logger: logger)
// Every start of the run in the quantiles, not only the newest 10,000 that the daemon keeps for /metrics.
let scheduler = ProbeScheduler(targets: configuration.targets.targets, concurrency: concurrency, pipeline: pipeline,
                               logger: logger, statistics: SchedulerStatistics(capacity: 1_000_000))

let writerTask = Task { try await writer.run() }
let schedulerTask = Task { try await scheduler.run() }
try await Task.sleep(for: .milliseconds(Int(warmup * 1_000)))
scheduler.statistics.reset()
let rowsBefore = try await store.statistics().probeResults
let cpuBefore = cpuSeconds()
let start = Date()
try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
let elapsed = Date().timeIntervalSince(start)
let cpu = cpuSeconds() - cpuBefore
let statistics = scheduler.statistics
let p50 = (statistics.lateness(quantile: 0.50) ?? 0) * 1_000
let p99 = (statistics.lateness(quantile: 0.99) ?? 0) * 1_000
let maximum = (statistics.lateness(quantile: 1.0) ?? 0) * 1_000
let started = statistics.probesStarted
scheduler.shutdown()
try await schedulerTask.value
writer.close()
try await writerTask.value
let rows = try await store.statistics().probeResults - rowsBefore
let failed = states.snapshots().filter { $0.status == .down }.count
print(String(format: "scheduler: %d targets every %@ for %.0f s (after %.0f s warm-up), concurrency %d", count, interval, elapsed, warmup, concurrency))
print(String(format: "  probes started %d (%.1f/s), rows written %d (%.1f/s), targets down at end %d, ticks skipped %d",
             started, Double(started) / elapsed, rows, Double(rows) / elapsed, failed, statistics.skippedTicks))
print(String(format: "  lateness of probe starts: p50 %.2f ms, p99 %.2f ms, max %.2f ms (goal p99 <= 50 ms)", p50, p99, maximum))
print(String(format: "  CPU %.1f s = %.1f%% of one core; RSS now %.1f MB, peak %.1f MB",
             cpu, cpu / elapsed * 100, Double(rssKilobytes("VmRSS")) / 1024, Double(rssKilobytes("VmHWM")) / 1024))
for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
