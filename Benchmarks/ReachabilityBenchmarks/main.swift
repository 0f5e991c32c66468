// Reachability event-latency and idle-CPU benchmark (run as root; release build):
//
//   swift build -c release --product netvigil --product ReachabilityBenchmarks
//   .build/release/ReachabilityBenchmarks [--toggles 300] [--targets 100] [--idle-seconds 60] [--netvigil PATH]
//
// Creates a network namespace `nvb-PID` with a veth pair va/vb, watches `default` plus 99 on-link
// addresses with `netvigil reachability --watch --json` (under `ip netns exec`; with `--in-process`, a
// ReachabilityMonitor in this process whose watcher thread enters the namespace) and, as the baseline,
// `ip -n NS monitor link` through the same line-reading harness. Then toggles vb up/down through
// netlink from a thread inside the namespace; each toggle takes away / restores va's carrier, which
// changes all 100 targets. Reports the time from the change request to the first line of each tool
// (and to netvigil's 100th line), and netvigil's CPU time over an idle period. The namespace is removed
// at the end (and on SIGINT/SIGTERM).
import CLibMNL
import CNetlink
import Foundation
import NetVigilReachability
#if canImport(Glibc)
import Glibc
#endif

func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

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
var toggles = 300
var targetCount = 100
var idleSeconds = 60
var netvigilPath: String?
var inProcess = false
var argIterator = CommandLine.arguments.dropFirst().makeIterator()
while let arg = argIterator.next() {
    switch arg {
    case "--toggles": toggles = Int(argIterator.next() ?? "") ?? toggles
    case "--targets": targetCount = max(1, min(250, Int(argIterator.next() ?? "") ?? targetCount))
    case "--idle-seconds": idleSeconds = Int(argIterator.next() ?? "") ?? idleSeconds
    case "--netvigil": netvigilPath = argIterator.next()
    case "--in-process": inProcess = true
    default: fail("unknown argument \(arg); usage: [--toggles N] [--targets N] [--idle-seconds S] [--netvigil PATH]")
    }
}
guard getuid() == 0 else { fail("must run as root (creates a network namespace)") }
let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
let netvigil = netvigilPath ?? binDir.appendingPathComponent("netvigil").path
if !inProcess && !FileManager.default.isExecutableFile(atPath: netvigil) {
    fail("netvigil binary not found at \(netvigil) (build it, pass --netvigil PATH, or use --in-process)")
}

// MARK: namespace
let ns = "nvb-\(getpid())"
nonisolated(unsafe) var children: [Process] = []
func cleanup() {
    for child in children where child.isRunning { kill(child.processIdentifier, SIGKILL); child.waitUntilExit() }
    _ = sh(["ip", "netns", "del", ns], check: false)
}
signal(SIGINT) { _ in cleanup(); exit(130) }
signal(SIGTERM) { _ in cleanup(); exit(143) }

sh(["ip", "netns", "add", ns])
sh(["ip", "-n", ns, "link", "set", "lo", "up"])
sh(["ip", "-n", ns, "link", "add", "va", "type", "veth", "peer", "name", "vb"])
sh(["ip", "-n", ns, "addr", "add", "10.77.0.2/24", "dev", "va"])
sh(["ip", "-n", ns, "link", "set", "va", "up"])
sh(["ip", "-n", ns, "link", "set", "vb", "up"])
sh(["ip", "-n", ns, "route", "add", "default", "via", "10.77.0.1", "dev", "va"])
let vbIndex = Int32(sh(["ip", "netns", "exec", ns, "cat", "/sys/class/net/vb/ifindex"])
    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
guard vbIndex > 0 else { fail("cannot find vb's ifindex") }

// MARK: line readers
final class LineLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [(time: Double, text: String)] = []

    func append(_ text: String, at time: Double) {
        condition.lock()
        lines.append((time, text))
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `count` lines after index `from` exist (or timeout); returns them.
    func wait(from: Int, count: Int, timeout: Double) -> [(time: Double, text: String)] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while lines.count - from < count {
            if !condition.wait(until: deadline) { break }
        }
        return Array(lines[min(from, lines.count)...])
    }

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return lines.count
    }
}

func spawnReader(_ args: [String], into log: LineLog) -> Process {
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
                log.append(String(decoding: pending[..<newline], as: UTF8.self), at: now)
                pending.removeSubrange(...newline)
            }
        }
    }
    thread.start()
    return p
}

var targets = ["default"]
for i in 0..<(targetCount - 1) { targets.append("10.77.0.\(10 + i)") }
let netvigilLog = LineLog()
let ipLog = LineLog()
var watcher: Process?
nonisolated(unsafe) var monitor: ReachabilityMonitor?
if inProcess {
    let parsed = targets.map { ReachabilityTarget($0)! }
    let m = ReachabilityMonitor(
        targets: parsed, options: ReachabilityMonitor.Options(networkNamespacePath: "/var/run/netns/\(ns)"))
    monitor = m
    let started = DispatchSemaphore(value: 0)
    Task.detached {
        do { try await m.start() } catch { fail("monitor start: \(error)") }
        let stream = await m.changes(for: parsed)
        started.signal()
        for await evaluation in stream {
            netvigilLog.append("\"status\":\"\(evaluation.status.name)\"", at: monotonicNow())
        }
    }
    started.wait()
} else {
    watcher = spawnReader(["ip", "netns", "exec", ns, netvigil, "reachability", "--watch", "--json"] + targets,
                          into: netvigilLog)
}
let ipMonitor = spawnReader(["ip", "-n", ns, "monitor", "link"], into: ipLog)
let initial = netvigilLog.wait(from: 0, count: targetCount, timeout: 10)
guard initial.count >= targetCount else { fail("netvigil printed \(initial.count) of \(targetCount) initial lines") }
Thread.sleep(forTimeInterval: 0.5)  // let `ip monitor` subscribe

// MARK: toggler inside the namespace
final class Toggler: @unchecked Sendable {
    let request = NSCondition()
    var command: Bool?
    var done = true
    var sentAt = 0.0
    var error: Int32 = 0

    func start(namespace: String, index: Int32) {
        let thread = Thread { [self] in
            let fd = open("/var/run/netns/\(namespace)", O_RDONLY)
            guard fd >= 0, cnl_setns_net(fd) == 0 else { fail("setns into \(namespace) failed") }
            close(fd)
            guard let nl = mnl_socket_open(NETLINK_ROUTE), mnl_socket_bind(nl, 0, pid_t(MNL_SOCKET_AUTOPID)) == 0
            else { fail("netlink socket failed") }
            var buf = [UInt8](repeating: 0, count: 8192)
            var seq: UInt32 = 1
            while true {
                request.lock()
                while command == nil { request.wait() }
                let up = command!
                request.unlock()
                seq += 1
                let len = cnl_build_setlink_up(&buf, buf.count, index, up, seq)
                let t0 = monotonicNow()
                var rc: Int32 = 0
                if mnl_socket_sendto(nl, buf, len) < 0 { rc = errno } else {
                    let n = mnl_socket_recvfrom(nl, &buf, buf.count)
                    if n < 0 { rc = errno } else if cnl_nlmsg_error_code(buf) != 0 { rc = -cnl_nlmsg_error_code(buf) }
                }
                request.lock()
                sentAt = t0
                error = rc
                command = nil
                done = true
                request.broadcast()
                request.unlock()
            }
        }
        thread.start()
    }

    func toggle(up: Bool) -> Double {
        request.lock()
        command = up
        done = false
        request.broadcast()
        while !done { request.wait() }
        let t0 = sentAt
        let rc = error
        request.unlock()
        if rc != 0 { fail("RTM_NEWLINK failed: errno \(rc)") }
        return t0
    }
}

let toggler = Toggler()
toggler.start(namespace: ns, index: vbIndex)

var firstLatency: [Double] = []
var allLatency: [Double] = []
var ipLatency: [Double] = []
var missed = 0
for i in 0..<toggles {
    let up = i % 2 == 1
    let nvStart = netvigilLog.count
    let ipStart = ipLog.count
    let t0 = toggler.toggle(up: up)
    let nvLines = netvigilLog.wait(from: nvStart, count: targetCount, timeout: 2)
    let ipLines = ipLog.wait(from: ipStart, count: 1, timeout: 2)
    let expected = up ? "ReachableViaWiFi" : "NotReachable"
    let matching = nvLines.filter { $0.text.contains("\"status\":\"\(expected)\"") }
    if matching.count >= targetCount, let first = matching.first, let last = matching.last, let ipFirst = ipLines.first {
        firstLatency.append((first.time - t0) * 1000)
        allLatency.append((last.time - t0) * 1000)
        ipLatency.append((ipFirst.time - t0) * 1000)
    } else {
        missed += 1
    }
    Thread.sleep(forTimeInterval: 0.02)  // let both tools go quiet (ip prints several lines per toggle)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
    return sorted[rank]
}

func cpuSeconds(pid: Int32) -> Double {
    if pid == getpid() {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return .nan }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // fields[0] is state (field 3); utime is field 14, stime field 15 → indexes 11, 12
    let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}

let nvPid = watcher?.processIdentifier ?? getpid()
let comm = (try? String(contentsOfFile: "/proc/\(nvPid)/comm", encoding: .utf8))?
    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
let linesBeforeIdle = netvigilLog.count
let cpuBefore = cpuSeconds(pid: nvPid)
Thread.sleep(forTimeInterval: Double(idleSeconds))
let cpuAfter = cpuSeconds(pid: nvPid)
let idleLines = netvigilLog.count - linesBeforeIdle

func fmt(_ v: Double) -> String { String(format: "%.3f", v) }
print("""
    reachability event latency: \(toggles) veth toggles, \(targetCount) targets watched, \(missed) missed, \
    netvigil \(inProcess ? "in-process ReachabilityMonitor" : "CLI --watch --json")
    tool                               median ms   p99 ms   max ms   samples
    netvigil, first status line        \(fmt(percentile(firstLatency, 50)))      \(fmt(percentile(firstLatency, 99)))    \(fmt(percentile(firstLatency, 100)))    \(firstLatency.count)
    netvigil, all \(targetCount) targets' lines    \(fmt(percentile(allLatency, 50)))      \(fmt(percentile(allLatency, 99)))    \(fmt(percentile(allLatency, 100)))    \(allLatency.count)
    ip monitor link, first line        \(fmt(percentile(ipLatency, 50)))      \(fmt(percentile(ipLatency, 99)))    \(fmt(percentile(ipLatency, 100)))    \(ipLatency.count)
    netvigil median / ip monitor median: \(String(format: "%.2f", percentile(firstLatency, 50) / percentile(ipLatency, 50)))x
    idle: netvigil (pid \(nvPid), \(comm)) used \(fmt((cpuAfter - cpuBefore) * 1000)) ms CPU in \(idleSeconds) s, printed \(idleLines) lines
    """)
_ = ipMonitor
cleanup()
exit(missed == 0 ? 0 : 2)
