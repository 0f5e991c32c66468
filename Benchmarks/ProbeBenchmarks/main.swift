// Request-stack benchmarks (issue #5, section 7): Prober against a loopback HTTPS server.
//
//   swift build -c release --product ProbeBenchmarks
//   ProbeBenchmarks single     --url https://127.0.0.1:18490/ --ca ca.pem [--runs 200] [--warmup 10]
//   ProbeBenchmarks throughput --url https://127.0.0.1:18490/ --ca ca.pem --concurrency 16 [--seconds 20] [--warmup 2]
//   (every mode takes --http-version auto|1.1|2, default auto, and the TLS policy's --validation webpki|rfc5280
//   (default webpki), --revocation off|soft|hard (default soft) and --crl FILE (repeatable), as the daemon's defaults)
//   ProbeBenchmarks rss        --url https://127.0.0.1:18490/ --ca ca.pem [--probes 10000] [--concurrency 1]
//                              [--expect-failure] [--timeout 10] [--max-growth-mb 2] [--baseline 100]
//   ProbeBenchmarks fanout     --url https://127.0.0.1:18490/ --ca ca.pem [--addresses 127.0.0.1,...] [--rounds 5] [--ticks 200]
//
// Every probe is a fresh Prober.probe: getaddrinfo, new TCP connection, full TLS handshake, trust evaluation of
// the served chain, GET, response validation. Trust anchors are only the --ca file (no system roots), as with
// `curl --cacert` and blackbox_exporter's `tls_config.ca_file`. Benchmarks/run.sh probe starts nginx and runs all
// modes next to curl, blackbox_exporter and `openssl s_time`.
import Foundation
import NetVigilProber
import NetVigilTrust

// MARK: Arguments and process statistics

func argument(_ name: String, default value: String) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: name), index + 1 < arguments.count { return arguments[index + 1] }
    return value
}

func flag(_ name: String) -> Bool { CommandLine.arguments.contains(name) }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ProbeBenchmarks: \(message)\n".utf8))
    exit(64)
}

/// User + system CPU of this process in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// A field of /proc/self/status in kB (VmRSS, VmHWM).
func statusKilobytes(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
    return 0
}

/// Open file descriptors of this process (entries of /proc/self/fd).
func openDescriptors() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}

func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
}

func quantile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1))
    return sorted[index]
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}

// MARK: Probing

/// One fresh probe; returns the result and the wall time around the call in milliseconds.
func timedProbe(_ prober: Prober, _ request: ProbeRequest, _ configuration: ProbeConfiguration) async -> (ProbeResult, Double) {
    let start = ContinuousClock.now
    let result = await prober.probe(request, configuration: configuration)
    return (result, seconds(ContinuousClock.now - start) * 1_000)
}

/// Counts of outcomes by error kind ("ok" for successes).
struct Outcomes {
    var counts: [String: Int] = [:]
    var firstFailure: String?
    /// Trust finding codes seen, and how many probes downloaded revocation data (a cold CRL or OCSP cache).
    var findingCodes: Set<String> = []
    var revocationDownloads = 0

    mutating func add(_ result: ProbeResult) {
        findingCodes.formUnion(result.findings.map(\.code))
        if result.timings.revocation != nil { revocationDownloads += 1 }
        if let error = result.error {
            counts[error.kind.rawValue + (error.phase.map { "(\($0))" } ?? ""), default: 0] += 1
            if firstFailure == nil { firstFailure = "\(error.kind.rawValue): \(error.message)" }
        } else {
            counts["ok", default: 0] += 1
        }
    }

    mutating func merge(_ other: Outcomes) {
        for (key, value) in other.counts { counts[key, default: 0] += value }
        if firstFailure == nil { firstFailure = other.firstFailure }
        findingCodes.formUnion(other.findingCodes)
        revocationDownloads += other.revocationDownloads
    }

    var total: Int { counts.values.reduce(0, +) }
    var ok: Int { counts["ok"] ?? 0 }
    var summary: String { counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
}

// Every probing task prefers the event loop `prober.nextTaskExecutor()` gives, as the daemon's scheduler starts each
// probe's task (`ProbeScheduler`), so the probes run where the daemon's do: task and channel on one loop, the loops
// taken in turn.

/// Runs `count` probes on `concurrency` loops (work shared through a counter on the caller's task).
func runProbes(count: Int, concurrency: Int, prober: Prober, request: ProbeRequest,
               configuration: ProbeConfiguration) async -> Outcomes {
    await withTaskGroup(of: Outcomes.self) { group in
        let loops = max(1, min(concurrency, count))
        for loop in 0..<loops {
            let share = count / loops + (loop < count % loops ? 1 : 0)
            group.addTask(executorPreference: prober.nextTaskExecutor()) {
                var outcomes = Outcomes()
                for _ in 0..<share { outcomes.add(await prober.probe(request, configuration: configuration)) }
                return outcomes
            }
        }
        var all = Outcomes()
        for await outcomes in group { all.merge(outcomes) }
        return all
    }
}

/// `concurrency` loops probing until `end`.
func runUntil(_ end: ContinuousClock.Instant, concurrency: Int, prober: Prober, request: ProbeRequest,
              configuration: ProbeConfiguration) async -> Outcomes {
    await withTaskGroup(of: Outcomes.self) { group in
        for _ in 0..<concurrency {
            group.addTask(executorPreference: prober.nextTaskExecutor()) {
                var outcomes = Outcomes()
                while ContinuousClock.now < end { outcomes.add(await prober.probe(request, configuration: configuration)) }
                return outcomes
            }
        }
        var all = Outcomes()
        for await outcomes in group { all.merge(outcomes) }
        return all
    }
}

// MARK: Modes

/// N sequential probes: percentiles of `timings.total` and of the wall time around `probe`, phase medians.
func single(prober: Prober, request: ProbeRequest, configuration: ProbeConfiguration) async {
    let runs = Int(argument("--runs", default: "200")) ?? 200
    let warmup = Int(argument("--warmup", default: "10")) ?? 10
    for _ in 0..<warmup { _ = await prober.probe(request, configuration: configuration) }
    var totals: [Double] = [], walls: [Double] = []
    var phases: [String: [Double]] = [:]
    var outcomes = Outcomes()
    var versions: Set<String> = []
    let cpuBefore = cpuSeconds()
    for _ in 0..<runs {
        let (result, wall) = await timedProbe(prober, request, configuration)
        outcomes.add(result)
        guard result.error == nil else { continue }
        if let tls = result.tls { versions.insert("\(tls.version) \(tls.cipher)") }
        walls.append(wall)
        totals.append(result.timings.total ?? .nan)
        let t = result.timings
        for (name, value) in [("resolve", t.resolve), ("connect", t.connect), ("tls", t.tls), ("processing", t.processing),
                              ("transfer", t.transfer)] {
            if let value { phases[name, default: []].append(value) }
        }
    }
    let cpu = cpuSeconds() - cpuBefore
    let sortedTotals = totals.sorted(), sortedWalls = walls.sorted()
    print("single: \(runs) sequential fresh probes of \(request.url.absoluteString) after \(warmup) warm-up probes; \(outcomes.summary)")
    if let failure = outcomes.firstFailure { print("  first failure: \(failure)") }
    print("  negotiated: " + versions.sorted().joined(separator: "; "))
    print(String(format: "  timings.total: median %.3f ms, p90 %.3f ms, min %.3f ms", median(totals), quantile(sortedTotals, 0.9),
                 sortedTotals.first ?? .nan))
    print(String(format: "  wall around probe(): median %.3f ms, p90 %.3f ms, min %.3f ms", median(walls), quantile(sortedWalls, 0.9),
                 sortedWalls.first ?? .nan))
    print("  phase medians: " + ["resolve", "connect", "tls", "processing", "transfer"].map {
        String(format: "%@ %.3f ms", $0, median(phases[$0] ?? []))
    }.joined(separator: ", "))
    print(String(format: "  CPU %.3f ms per probe", cpu / Double(max(1, runs)) * 1_000))
    print(String(format: "RESULT single median_total_ms=%.4f p90_total_ms=%.4f median_wall_ms=%.4f p90_wall_ms=%.4f ok=%d runs=%d",
                 median(totals), quantile(sortedTotals, 0.9), median(walls), quantile(sortedWalls, 0.9), outcomes.ok, runs))
}

/// C loops of fresh probes for S seconds: probes/s of wall time and probes per CPU-second of this process.
func throughput(prober: Prober, request: ProbeRequest, configuration: ProbeConfiguration) async {
    let concurrency = Int(argument("--concurrency", default: "1")) ?? 1
    let duration = Double(argument("--seconds", default: "20")) ?? 20
    let warmup = Double(argument("--warmup", default: "2")) ?? 2
    _ = await runUntil(.now + .milliseconds(Int(warmup * 1_000)), concurrency: concurrency, prober: prober, request: request,
                       configuration: configuration)
    let cpuBefore = cpuSeconds()
    let start = ContinuousClock.now
    let outcomes = await runUntil(start + .milliseconds(Int(duration * 1_000)), concurrency: concurrency, prober: prober,
                                  request: request, configuration: configuration)
    let elapsed = seconds(ContinuousClock.now - start)
    let cpu = cpuSeconds() - cpuBefore
    let probes = outcomes.total
    print(String(format: "throughput: concurrency %d for %.1f s (after %.0f s warm-up): %d probes (%@)", concurrency, elapsed, warmup,
                 probes, outcomes.summary))
    if let failure = outcomes.firstFailure { print("  first failure: \(failure)") }
    print("  findings: \(outcomes.findingCodes.sorted().joined(separator: ", ").ifEmpty("none")); "
          + "probes that downloaded revocation data: \(outcomes.revocationDownloads)")
    print(String(format: "  %.1f probes/s wall; CPU %.2f s (%.0f%% of one core) = %.0f probes per CPU-second, %.3f ms CPU per probe",
                 Double(probes) / elapsed, cpu, cpu / elapsed * 100, Double(probes) / cpu, cpu / Double(max(1, probes)) * 1_000))
    print(String(format: "RESULT throughput concurrency=%d probes=%d ok=%d seconds=%.3f cpu=%.3f per_cpu_second=%.1f per_second=%.1f",
                 concurrency, probes, outcomes.ok, elapsed, cpu, Double(probes) / cpu, Double(probes) / elapsed))
}

/// VmRSS, RssAnon and open descriptors after 100 probes and at checkpoints up to --probes (default 10,000).
/// Fails (exit 1) when VmRSS grew by more than --max-growth-mb (default 2 MB) from 100 to the end, when descriptors
/// did not return to their count after 100 probes, or when probes did not end as expected.
func rss(prober: Prober, request: ProbeRequest, configuration: ProbeConfiguration) async -> Bool {
    let total = max(100, Int(argument("--probes", default: "10000")) ?? 10_000)
    let concurrency = Int(argument("--concurrency", default: "1")) ?? 1
    let maxGrowth = Double(argument("--max-growth-mb", default: "2")) ?? 2
    // The reference point of the check: 100 probes (the issue's), or later when concurrent probes are still warming
    // up arenas and buffers then.
    let baseline = min(total, max(100, Int(argument("--baseline", default: "100")) ?? 100))
    let expectFailure = flag("--expect-failure")
    let checkpoints = Array(Set([100, 1_000, 2_500, 5_000, 7_500, baseline, total].filter { $0 <= total })).sorted()
    var done = 0
    var outcomes = Outcomes()
    var atHundred: (rss: Int, anon: Int, fds: Int) = (0, 0, 0)
    var atBaseline: (rss: Int, anon: Int, fds: Int) = (0, 0, 0)
    var last: (rss: Int, anon: Int, fds: Int) = (0, 0, 0)
    print("rss: \(total) fresh probes of \(request.url.absoluteString) at concurrency \(concurrency)"
          + "\(expectFailure ? " (failure path)" : ""); open fds before the first probe: \(openDescriptors())")
    for checkpoint in checkpoints {
        outcomes.merge(await runProbes(count: checkpoint - done, concurrency: concurrency, prober: prober, request: request,
                                       configuration: configuration))
        done = checkpoint
        // Let NIO finish closing the last channels before counting descriptors.
        try? await Task.sleep(for: .milliseconds(200))
        last = (statusKilobytes("VmRSS"), statusKilobytes("RssAnon"), openDescriptors())
        if checkpoint == 100 { atHundred = last }
        if checkpoint == baseline { atBaseline = last }
        print(String(format: "  after %6d probes: VmRSS %.1f MB (RssAnon %.1f MB), open fds %d", checkpoint,
                     Double(last.rss) / 1024, Double(last.anon) / 1024, last.fds))
    }
    print("  outcomes: \(outcomes.summary)")
    if let failure = outcomes.firstFailure { print("  first failure: \(failure)") }
    let growth = Double(last.rss - atHundred.rss) / 1024
    print(String(format: "  growth 100 → %d probes: VmRSS %+.2f MB (%+.1f KB per 1,000 probes), RssAnon %+.2f MB, open fds %+d; peak VmHWM %.1f MB",
                 total, growth, Double(last.rss - atHundred.rss) / Double(total - 100) * 1_000,
                 Double(last.anon - atHundred.anon) / 1024, last.fds - atHundred.fds, Double(statusKilobytes("VmHWM")) / 1024))
    let checked = Double(last.rss - atBaseline.rss) / 1024
    if baseline != 100 {
        print(String(format: "  growth %d → %d probes: VmRSS %+.2f MB, RssAnon %+.2f MB, open fds %+d", baseline, total, checked,
                     Double(last.anon - atBaseline.anon) / 1024, last.fds - atBaseline.fds))
    }
    var problems: [String] = []
    if checked > maxGrowth {
        problems.append(String(format: "VmRSS grew %.2f MB from %d to %d probes (limit %.1f MB)", checked, baseline, total, maxGrowth))
    }
    if last.fds > atBaseline.fds { problems.append("\(last.fds - atBaseline.fds) descriptors more than after \(baseline) probes") }
    let unexpected = expectFailure ? outcomes.ok : outcomes.total - outcomes.ok
    if unexpected > 0 { problems.append("\(unexpected) probes \(expectFailure ? "succeeded" : "failed")") }
    print(problems.isEmpty ? "  check: PASS (VmRSS growth \(baseline) → \(total) <= \(maxGrowth) MB, descriptors freed)"
          : "  check: FAIL: " + problems.joined(separator: "; "))
    print(String(format: "RESULT rss probes=%d rss100_kb=%d rss_end_kb=%d anon100_kb=%d anon_end_kb=%d fds100=%d fds_end=%d ok=%d pass=%d",
                 total, atHundred.rss, last.rss, atHundred.anon, last.anon, atHundred.fds, last.fds, outcomes.ok, problems.isEmpty ? 1 : 0))
    return problems.isEmpty
}

// MARK: Main

let mode = CommandLine.arguments.dropFirst().first ?? ""
guard ["single", "throughput", "rss", "fanout"].contains(mode) else {
    fail("usage: ProbeBenchmarks single|throughput|rss|fanout --url URL --ca CA.pem [options]; see the comment in main.swift")
}
let url = argument("--url", default: "")
guard !url.isEmpty else { fail("--url is required") }
let caPaths = CommandLine.arguments.indices.filter { CommandLine.arguments[$0] == "--ca" && $0 + 1 < CommandLine.arguments.count }
    .map { CommandLine.arguments[$0 + 1] }
let trustStore: TrustStore
do {
    trustStore = try TrustStore(systemRoots: flag("--system-roots"), caPaths: caPaths)
} catch {
    fail("--ca: \(error)")
}
var configuration = ProbeConfiguration(trustStore: trustStore, timeout: Double(argument("--timeout", default: "10")) ?? 10)
// --http-version auto|1.1|2 (default auto, as the daemon): HTTP/2 is spoken when the server selects h2.
guard let httpVersion = HTTPVersionPreference(rawValue: argument("--http-version", default: "auto")) else {
    fail("--http-version: want auto, 1.1 or 2")
}
configuration.httpVersion = httpVersion
// The default TLS policy, as a target's `tls:` would set it (issue #20's benchmark compares rfc5280 + revocation off
// with webpki + revocation soft).
guard let validation = ValidationProfile(rawValue: argument("--validation", default: "webpki")),
      let revocationMode = RevocationPolicy.Mode(rawValue: argument("--revocation", default: "soft")) else {
    fail("--validation: want webpki or rfc5280; --revocation: want off, soft or hard")
}
do {
    let crls = try CommandLine.arguments.indices.filter { CommandLine.arguments[$0] == "--crl" && $0 + 1 < CommandLine.arguments.count }
        .flatMap { try CertificateRevocationList.load(path: CommandLine.arguments[$0 + 1]) }
    let policy = try SecurityPolicy(validation: validation, revocation: RevocationPolicy(mode: revocationMode, crls: crls))
    configuration.policies = try PolicySet(default: policy, entries: [])
} catch {
    fail("TLS policy: \(error)")
}
let request: ProbeRequest
if let parsed = URL(string: url), ServiceScheme(url: parsed) != nil {
    request = ProbeRequest(url: parsed)  // tls://, smtp://, ...: the service's negotiation, TLS, trust, goodbye
} else {
    do {
        request = try RequestSerializer(version: "bench").request(method: .GET, url: url)
    } catch {
        fail("--url: \(error)")
    }
}
let prober = Prober()
// Sequential modes probe from this task, on a loop as the daemon's probe tasks do; the concurrent ones give each
// probing task its own loop (`runProbes`, `runUntil`).
let passed = await withTaskExecutorPreference(prober.nextTaskExecutor()) { () async -> Bool in
    switch mode {
    case "single": await single(prober: prober, request: request, configuration: configuration)
    case "throughput": await throughput(prober: prober, request: request, configuration: configuration)
    case "fanout": await fanOut(prober: prober, request: request, configuration: configuration)
    default: return await rss(prober: prober, request: request, configuration: configuration)
    }
    return true
}
if !passed { exit(1) }
