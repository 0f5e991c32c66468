import Foundation
import NetVigilTestSupport
import XCTest

/// The real `netvigil reachability` binary under `ip netns exec` (which also bind-mounts /etc/netns/NAME/*).
final class ReachabilityCLITests: XCTestCase {
    private func makeNamespace() throws -> NetworkNamespace {
        let ns = try NetworkNamespace(for: self)
        try ns.addVethPair("va", "vb", address: "10.77.0.2/24")
        return ns
    }

    private func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    func testHostNamesResolveThroughNamespaceHostsFile() throws {
        let ns = try makeNamespace()
        try ns.writeEtcFile("hosts", "127.0.0.1 localhost\n10.77.0.9 web.nvt.test\n192.0.2.50 far.nvt.test\n")
        try ns.writeEtcFile("resolv.conf", "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
        let binary = ProcessRunner.binary.path

        let result = try ns.exec([binary, "reachability", "web.nvt.test", "far.nvt.test", "nothere.invalid", "--json"],
                                 check: false)
        XCTAssertEqual(result.status, 1, "not all reachable → exit 1; stderr: \(result.stderr)")
        let lines = try jsonLines(result.stdout)
        XCTAssertEqual(lines.count, 3)
        let byTarget = Dictionary(uniqueKeysWithValues: lines.map { ($0["target"] as? String ?? "?", $0) })
        let web = try XCTUnwrap(byTarget["web.nvt.test"])
        XCTAssertEqual(web["status"] as? String, "ReachableViaWiFi")
        XCTAssertEqual(web["status_code"] as? Int, 2)
        XCTAssertEqual(web["address"] as? String, "10.77.0.9")
        XCTAssertEqual(web["flags"] as? [String], ["reachable", "isDirect"])
        XCTAssertEqual(web["interface"] as? String, "va")
        XCTAssertEqual(web["interface_kind"] as? String, "virtual")
        // No route to 192.0.2.50 (no default route in the namespace).
        XCTAssertEqual(byTarget["far.nvt.test"]?["status"] as? String, "NotReachable")
        // A name that does not resolve is NotReachable, never "reachable" (Alamofire #3794).
        let missing = try XCTUnwrap(byTarget["nothere.invalid"])
        XCTAssertEqual(missing["status"] as? String, "NotReachable")
        XCTAssertEqual(missing["flags_raw"] as? Int, 0)

        let ok = try ns.exec([binary, "reachability", "web.nvt.test"], check: false)
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.hasPrefix("web.nvt.test  ReachableViaWiFi  flags=reachable,isDirect  interface=va"), ok.stdout)
    }

    func testBadTargetIsOneLineAndExit64() throws {
        let binary = ProcessRunner.binary.path
        let result = try runProcess([binary, "reachability", "not a host"], check: false)
        XCTAssertEqual(result.status, 64)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1)
        XCTAssertTrue(result.stderr.contains("invalid reachability target \"not a host\""), result.stderr)
        XCTAssertEqual(result.stdout, "")
    }

    func testWatchPrintsOneJSONLinePerChange() throws {
        let ns = try makeNamespace()
        let binary = ProcessRunner.binary.path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip", "netns", "exec", ns.name, binary, "reachability", "--watch", "--json"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        defer {
            if process.isRunning { process.interrupt() }
            process.waitUntilExit()
        }
        let reader = LineReader(out.fileHandleForReading)

        let first = try XCTUnwrap(reader.next(timeout: 10), "initial line")
        let initial = try jsonLines(first)[0]
        XCTAssertEqual(initial["target"] as? String, "default")
        XCTAssertEqual(initial["status"] as? String, "NotReachable")
        for key in ["time", "target", "status", "status_code", "flags", "flags_raw", "interface", "interface_kind",
                    "gateway", "source", "family"] {
            XCTAssertTrue(initial.keys.contains(key), "missing \(key)")
        }

        try ns.ip("route", "add", "default", "via", "10.77.0.1", "dev", "va")
        let up = try jsonLines(try XCTUnwrap(reader.next(timeout: 5), "line after adding default"))[0]
        XCTAssertEqual(up["status"] as? String, "ReachableViaWiFi")
        XCTAssertEqual(up["gateway"] as? String, "10.77.0.1")
        XCTAssertEqual(up["interface"] as? String, "va")

        // Unrelated routes: no line. Then carrier loss: one line.
        try ns.ip("route", "add", "198.51.100.0/24", "via", "10.77.0.1", "dev", "va")
        try ns.ip("link", "set", "vb", "down")
        let down = try jsonLines(try XCTUnwrap(reader.next(timeout: 5), "line after carrier loss"))[0]
        XCTAssertEqual(down["status"] as? String, "NotReachable")
        XCTAssertEqual(down["flags"] as? [String], ["connectionRequired"])
        XCTAssertNil(reader.next(timeout: 0.5), "no further line without a change")
    }
}

/// Reads lines from a pipe on a background thread.
final class LineReader: @unchecked Sendable {
    private let condition = NSCondition()
    private var lines: [String] = []
    private var pending = Data()

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                condition.lock()
                if data.isEmpty {
                    condition.unlock()
                    return
                }
                pending.append(data)
                while let newline = pending.firstIndex(of: 10) {
                    lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
                condition.broadcast()
                condition.unlock()
            }
        }
        thread.start()
    }

    func next(timeout: TimeInterval) -> String? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while lines.isEmpty {
            if !condition.wait(until: deadline) { break }
        }
        return lines.isEmpty ? nil : lines.removeFirst()
    }
}
