// Reachability event-latency and idle-CPU benchmark (run as root; release build):
//
//   swift build -c release --product ReachabilityBenchmarks [--product netvigil]
//   .build/release/ReachabilityBenchmarks [--in-process] [--toggle va|vb] [--toggles 300] [--targets 100]
//                                         [--idle-seconds 60] [--netvigil PATH]
//
// Creates a network namespace `nvb-PID` with a veth pair va (10.77.0.2/24) – vb, and watches 100 targets
// routed over va with `netvigil reachability --watch --json` (under `ip netns exec`; with `--in-process`,
// a ReachabilityMonitor in this process whose watcher thread enters the namespace) and, as the baseline,
// `ip -n NS monitor link` through the same time-stamping harness. Then toggles a link up/down through
// netlink from a thread inside the namespace, waiting for both tools after each toggle:
//
// - `--toggle va` (default, like for like): va itself, admin up/down. Going down, `ip monitor` and
//   netvigil react to the same RTM_NEWLINK of va; going up, the kernel sends va's RTM_NEWLINK with
//   operstate LOWERLAYERDOWN and, once linkwatch has run, one with operstate UP, which netvigil needs
//   (both usually arrive together). Targets: 100 on-link addresses (taking va down flushes the default
//   route, and bringing it up does not restore it).
// - `--toggle vb`: the peer, which takes away / restores va's carrier (the kernel reports va's change
//   after vb's). Targets: `default` (via 10.77.0.1) plus 99 on-link addresses.
//
// Reports, from just before the RTM_NEWLINK request: netvigil's first status event and the time by which
// every target had its event; `ip monitor`'s first line for va, its first line for va showing the new
// operstate, and its first line for any link; per direction too. Then netvigil's CPU time over an idle
// period. The namespace is removed at the end (and on SIGINT/SIGTERM).
import Foundation
import NetVigilReachability
#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ReachabilityBenchmarks: \(message)\n".utf8))
    cleanup()
    exit(1)
}

@discardableResult
func sh(_ args: [String], check: Bool = true) -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = args
    let out = Pipe()
    p.standardOutput = out
    do { try p.run() } catch { fail("cannot run \(args[0]): \(error)") }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    if check && p.terminationStatus != 0 { fail("\(args.joined(separator: " ")) exited \(p.terminationStatus)") }
    return String(decoding: data, as: UTF8.self)
}

// MARK: arguments
// Declared before argument parsing: `fail` (bad arguments) runs `cleanup`, which reads them.
let ns = "nvb-\(getpid())"
nonisolated(unsafe) var children: [Process] = []
nonisolated(unsafe) var namespaceCreated = false
var toggles = 300
var targetCount = 100
var idleSeconds = 60
var netvigilPath: String?
var inProcess = false
var ipMonitorFirst = false
var toggledLink = "va"
let usage = "[--in-process] [--ip-monitor-first] [--toggle va|vb] [--toggles N] [--targets N] [--idle-seconds S] [--netvigil PATH]"
var argIterator = CommandLine.arguments.dropFirst().makeIterator()
while let arg = argIterator.next() {
    switch arg {
    case "--toggles": toggles = Int(argIterator.next() ?? "") ?? toggles
    case "--targets": targetCount = max(1, min(240, Int(argIterator.next() ?? "") ?? targetCount))
    case "--idle-seconds": idleSeconds = Int(argIterator.next() ?? "") ?? idleSeconds
    case "--netvigil": netvigilPath = argIterator.next()
    case "--in-process": inProcess = true
    case "--ip-monitor-first": ipMonitorFirst = true
    case "--toggle":
        toggledLink = argIterator.next() ?? ""
        guard toggledLink == "va" || toggledLink == "vb" else { fail("--toggle takes va or vb; usage: \(usage)") }
    default: fail("unknown argument \(arg); usage: \(usage)")
    }
}
guard getuid() == 0 else { fail("must run as root (creates a network namespace)") }
let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
let netvigil = netvigilPath ?? binDir.appendingPathComponent("netvigil").path
if !inProcess && !FileManager.default.isExecutableFile(atPath: netvigil) {
    fail("netvigil binary not found at \(netvigil) (build it, pass --netvigil PATH, or use --in-process)")
}
let loadBefore = loadAverage()

// MARK: namespace
func cleanup() {
    for child in children where child.isRunning { kill(child.processIdentifier, SIGKILL); child.waitUntilExit() }
    if namespaceCreated { _ = sh(["ip", "netns", "del", ns], check: false) }
}
signal(SIGINT) { _ in cleanup(); exit(130) }
signal(SIGTERM) { _ in cleanup(); exit(143) }

sh(["ip", "netns", "add", ns])
namespaceCreated = true
sh(["ip", "-n", ns, "link", "set", "lo", "up"])
sh(["ip", "-n", ns, "link", "add", "va", "type", "veth", "peer", "name", "vb"])
sh(["ip", "-n", ns, "addr", "add", "10.77.0.2/24", "dev", "va"])
sh(["ip", "-n", ns, "link", "set", "va", "up"])
sh(["ip", "-n", ns, "link", "set", "vb", "up"])
sh(["ip", "-n", ns, "route", "add", "default", "via", "10.77.0.1", "dev", "va"])
let toggledIndex = Int32(sh(["ip", "netns", "exec", ns, "cat", "/sys/class/net/\(toggledLink)/ifindex"])
    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
guard toggledIndex > 0 else { fail("cannot find \(toggledLink)'s ifindex") }

// MARK: readers
/// Runs `args` and hands each stdout line, time-stamped on arrival, to `line` (on a reader thread).
func spawnReader(_ args: [String], line: @escaping @Sendable (String, Double) -> Void) -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = args
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.standardError
    do { try p.run() } catch { fail("cannot start \(args.joined(separator: " ")): \(error)") }
    children.append(p)
    let fd = out.fileHandleForReading.fileDescriptor
    let thread = Thread {
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return }
            let now = monotonicNow()
            pending.append(contentsOf: buffer[0..<n])
            while let newline = pending.firstIndex(of: 10) {
                line(String(decoding: pending[..<newline], as: UTF8.self), now)
                pending.removeSubrange(...newline)
            }
        }
    }
    thread.start()
    return p
}

var targets: [String] = toggledLink == "vb" ? ["default"] : []
for i in 0..<(targetCount - targets.count) { targets.append("10.77.0.\(10 + i)") }
let statusLog = StatusEventLog()
/// Wall clock minus monotonic clock: maps an evaluation's `time` (taken when the watcher starts a
/// recompute) onto the monotonic clock, to split the in-process latency in two.
let wallClockOffset = Date().timeIntervalSince1970 - monotonicNow()
let linkLog = LinkMonitorLog()
statusLog.arm(status: nil, count: targetCount)
// The kernel delivers a multicast notification to the most recently subscribed socket first (and wakes
// its reader first), so the subscription order favours one tool: `--ip-monitor-first` subscribes
// `ip monitor` before netvigil, the default after.
nonisolated(unsafe) var ipMonitor: Process?
func startIPMonitor() {
    ipMonitor = spawnReader(["ip", "-n", ns, "monitor", "link"]) { line, time in linkLog.record(line: line, at: time) }
    Thread.sleep(forTimeInterval: 0.5)  // let `ip monitor` subscribe
}
if ipMonitorFirst { startIPMonitor() }
var watcher: Process?
nonisolated(unsafe) var monitor: ReachabilityMonitor?
if inProcess {
    let parsed = targets.map { ReachabilityTarget($0)! }
    let m = ReachabilityMonitor(
        targets: parsed, options: ReachabilityMonitor.Options(networkNamespacePath: "/var/run/netns/\(ns)"))
    monitor = m
    Task.detached {
        do { try await m.start() } catch { fail("monitor start: \(error)") }
        for await evaluation in await m.changes(for: parsed) {
            statusLog.record(
                target: evaluation.target.description, status: evaluation.status.name, at: monotonicNow(),
                made: evaluation.time.timeIntervalSince1970 - wallClockOffset)
        }
    }
} else {
    watcher = spawnReader(["ip", "netns", "exec", ns, netvigil, "reachability", "--watch", "--json"] + targets) {
        line, time in
        guard let target = StatusEventLog.jsonString("target", in: line),
              let status = StatusEventLog.jsonString("status", in: line) else { return }
        statusLog.record(target: target, status: status, at: time)
    }
}
let initial = statusLog.wait(timeout: 10).arrivals
guard initial.count >= targetCount else { fail("netvigil reported \(initial.count) of \(targetCount) initial targets") }
if !ipMonitorFirst { startIPMonitor() }

// MARK: toggles
let toggler = LinkToggler()
toggler.start(namespace: ns, index: toggledIndex)

struct Sample {
    var up: Bool
    var netvigilFirst: Double
    var netvigilAll: Double
    var ipLink: Double
    var ipLinkInState: Double
    var ipAnyLink: Double
    /// In-process: from the request to the start of the recompute that made the first event (the watcher
    /// woke and drained), and from there to the consumer.
    var recomputeStart: Double?
    var handOff: Double?
}
var samples: [Sample] = []
var missed = 0
for i in 0..<toggles {
    let up = i % 2 == 1
    statusLog.arm(status: up ? "ReachableViaWiFi" : "NotReachable", count: targetCount)
    // va's operstate: DOWN when va itself goes down, LOWERLAYERDOWN when its peer vb does.
    linkLog.arm(link: "va", stateText: up ? "state UP" : toggledLink == "va" ? "state DOWN" : "state LOWERLAYERDOWN")
    let t0 = toggler.toggle(up: up)
    let (arrivals, made) = statusLog.wait(timeout: 2)
    let round = linkLog.wait(timeout: 2)
    if arrivals.count >= targetCount, let first = arrivals.min(), let last = arrivals.max(),
       let ipLink = round.link, let ipState = round.linkInState, let ipAny = round.anyLink {
        samples.append(Sample(
            up: up, netvigilFirst: (first - t0) * 1000, netvigilAll: (last - t0) * 1000,
            ipLink: (ipLink - t0) * 1000, ipLinkInState: (ipState - t0) * 1000, ipAnyLink: (ipAny - t0) * 1000,
            recomputeStart: made.map { ($0 - t0) * 1000 }, handOff: made.map { (first - $0) * 1000 }))
    } else {
        missed += 1
    }
    Thread.sleep(forTimeInterval: 0.02)  // let both tools go quiet (ip prints several lines per toggle)
}
let loadAfterToggles = loadAverage()

// MARK: idle
let nvPid = watcher?.processIdentifier ?? getpid()
let comm = (try? String(contentsOfFile: "/proc/\(nvPid)/comm", encoding: .utf8))?
    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
let eventsBeforeIdle = statusLog.count
let cpuBefore = cpuSeconds(pid: nvPid)
Thread.sleep(forTimeInterval: Double(idleSeconds))
let cpuAfter = cpuSeconds(pid: nvPid)
let idleEvents = statusLog.count - eventsBeforeIdle

// MARK: report
let allSamples = samples
func column(_ key: KeyPath<Sample, Double>, _ filter: (Sample) -> Bool = { _ in true }) -> [Double] {
    allSamples.filter(filter).map { $0[keyPath: key] }
}
let ratio = percentile(column(\.netvigilFirst), 50) / percentile(column(\.ipLink), 50)
let ratioState = percentile(column(\.netvigilFirst), 50) / percentile(column(\.ipLinkInState), 50)
let what = toggledLink == "va" ? "va admin up/down" : "vb admin up/down (va's carrier)"
var report = """
    reachability event latency: \(toggles) toggles of \(what), \(targetCount) targets, \(missed) missed, \
    netvigil \(inProcess ? "in-process ReachabilityMonitor" : "CLI --watch --json"), \
    subscribed \(ipMonitorFirst ? "after" : "before") ip monitor; \
    load average \(loadBefore) before, \(loadAfterToggles) after the toggles
    from just before the RTM_NEWLINK request        median ms    p99 ms    max ms  samples
    netvigil, first status event                   \(summary(column(\.netvigilFirst)))
    netvigil, all \(targetCount) targets' events              \(summary(column(\.netvigilAll)))
    ip monitor link, first line for va             \(summary(column(\.ipLink)))
    ip monitor link, first va line with new state  \(summary(column(\.ipLinkInState)))
    ip monitor link, first line (any link)         \(summary(column(\.ipAnyLink)))

    """
for (name, up) in [("down", false), ("up", true)] {
    report += """
        \(name) toggles: netvigil first \(summary(column(\.netvigilFirst) { $0.up == up })), \
        ip monitor va \(summary(column(\.ipLink) { $0.up == up }))

        """
}
if inProcess {
    report += """
        first event split: request to recompute start \(summary(allSamples.compactMap(\.recomputeStart))), \
        recompute start to consumer \(summary(allSamples.compactMap(\.handOff)))

        """
}
report += """
    netvigil first-event median / ip monitor va-line median: \(String(format: "%.2f", ratio))x \
    (/ va line with new state: \(String(format: "%.2f", ratioState))x)
    idle: netvigil (pid \(nvPid), \(comm)) used \(String(format: "%.3f", (cpuAfter - cpuBefore) * 1000)) ms CPU \
    in \(idleSeconds) s, \(idleEvents) events; load average \(loadAverage()) at the end
    """
print(report)
cleanup()
exit(missed == 0 ? 0 : 2)
