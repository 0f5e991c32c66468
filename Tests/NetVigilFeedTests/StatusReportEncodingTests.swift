import Foundation
import NetVigilAgent
import NetVigilProbeModel
import NetVigilReachability
import NetVigilStore
import NIOCore
import XCTest
@testable import NetVigilFeed

/// `/v1/status` assembled from per-target fragments (``TargetFragmentCache``) is byte for byte what `JSONEncoder`
/// makes of the whole report, with a cold cache, a warm one, after a target changed, was reloaded or was removed,
/// after an alert fired and as time moved its uptime.
final class StatusReportEncodingTests: XCTestCase {
    private static let yaml = """
        labels: { team: edge }
        targets:
          - { name: api, url: "https://api.example.com/v1?q=1", labels: { tier: "gold \\"1\\"" } }
          - { name: down, url: "https://down.example.com/" }
          - { name: pending, url: "http://pending.example.com/" }
        """

    func states() throws -> TargetStates {
        let configured = try AgentConfiguration(yaml: Self.yaml, file: "t.yml")
        let states = TargetStates()
        states.configure(configured.targets.targets)
        let now = Timestamp.now()
        states.record(ProbeRecord(
            time: now.adding(.seconds(-5)), target: "api", url: "https://api.example.com/v1?q=1", outcome: .ok,
            timings: PhaseTimings(resolve: 0.002, connect: 0.278, tls: 5.398, processing: 8.309, transfer: 0.013, total: 14.223),
            trustVerdict: .trusted,
            findings: [TrustFinding(code: "w_x", certificate: 0, message: "é / \"quoted\"\ttab\u{1}")]))
        states.record(ProbeRecord(
            time: now.adding(.seconds(-3)), target: "down", url: "https://down.example.com/", outcome: .failed,
            errorKind: .connectRefused, errorMessage: "connect(2) to 192.0.2.1:443: refused <a&b>\n",
            timings: PhaseTimings(resolve: 1, connect: 2, tls: 0, processing: 0, transfer: 0, total: 3)))
        return states
    }

    func report(_ targets: [TargetSnapshot], portal: Bool) throws -> StatusReport {
        let store = try JSONDecoder().decode(StoreStatistics.self, from: Data("""
            {"path": "/var/lib/netvigil/n.sqlite", "size_bytes": 4096, "probe_results": 2, "certificates": 0,
             "reachability_events": 1, "alerts": 1, "alerts_pending": 0, "oldest": "2026-11-24T10:00:00.000Z"}
            """.utf8))
        let verdict = try JSONDecoder().decode(CaptivePortalChecker.Verdict.self, from: Data("""
            {"state": "portal", "url": "http://captive.example/generate_204", "http_status": 302, "message": "redirected"}
            """.utf8))
        return StatusReport(
            version: "1.2.3", startedAt: Timestamp(milliseconds: 1_790_000_000_123), uptimeSeconds: 3_601.25,
            store: store, reachability: [.unknown(.default, time: Date(timeIntervalSince1970: 1_790_000_000))],
            captivePortal: portal ? verdict : nil, targets: targets,
            health: portal ? StatusReport.Health(DaemonHealth.Report(problems: ["store not writable"])) : nil)
    }

    private func expected(_ report: StatusReport) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
    }

    /// The document of a view: the report with no targets, and each target's `View` spliced in, as `JSONEncoder`
    /// writes them.
    private func expected<View: Encodable>(_ report: StatusReport, as view: (TargetSnapshot) -> View) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var shell = report
        shell.targets = []
        let outer = String(decoding: try encoder.encode(shell), as: UTF8.self)
        let targets = try report.targets.map { String(decoding: try encoder.encode(view($0)), as: UTF8.self) }
        return outer.replacingOccurrences(of: #""targets":[]"#, with: #""targets":["# + targets.joined(separator: ",") + "]") + "\n"
    }

    func testFragmentsMatchTheWholeReportColdWarmChangedAndRemoved() throws {
        let states = try states()
        let cache = TargetFragmentCache()
        let firing = ["down": [FiringAlert(target: "down", kind: "target_down", since: .now(), message: "down 3x")]]
        for portal in [true, false] {
            let report = try report(states.snapshots(firing: firing), portal: portal)
            XCTAssertEqual(String(buffer: try report.encodedJSON(cache: cache).buffer), try expected(report), "cold or warm, portal \(portal)")
        }
        states.record(ProbeRecord(time: .now(), target: "down", url: "https://down.example.com/", outcome: .ok,
                                  timings: PhaseTimings(resolve: 1, connect: 2, tls: 3, processing: 4, transfer: 5, total: 15)))
        let changed = try report(states.snapshots(), portal: true)
        XCTAssertEqual(String(buffer: try changed.encodedJSON(cache: cache).buffer), try expected(changed), "a changed target is encoded again")
        let reordered = try report(Array(states.snapshots().reversed()), portal: true)
        XCTAssertEqual(String(buffer: try reordered.encodedJSON(cache: cache).buffer), try expected(reordered),
                       "targets in another order are found by name")
        let removed = try report(Array(states.snapshots().prefix(1)), portal: false)
        XCTAssertEqual(String(buffer: try removed.encodedJSON(cache: cache).buffer), try expected(removed))
        let none = try report([], portal: false)
        XCTAssertEqual(String(buffer: try none.encodedJSON(cache: cache).buffer), try expected(none), "no targets: []")
    }

    /// The route's way: sources from the target states, a target's JSON reused while its key is unchanged. Each
    /// document equals the whole report's encoding with the targets built at that moment, warm cache or not.
    func testFragmentsFromTheStatesFollowEveryChange() throws {
        let states = try states()
        let cache = TargetFragmentCache()
        let briefCache = TargetFragmentCache(BriefTargetSnapshot.init)
        let rowCache = TargetFragmentCache(TargetRow.init)
        func check(_ what: String, now: Timestamp = .now(), firing: [String: [FiringAlert]] = [:],
                   file: StaticString = #filePath, line: UInt = #line) throws {
            for view in [StatusView.full, .brief, .rows] {
                let sources = states.snapshotSources(now: now, firing: firing, uptime: view == .full)
                var whole = try report(sources.map { $0.snapshot() }, portal: false)
                let encoded: EncodedStatusReport
                let expected: String
                switch view {
                case .full:
                    encoded = try whole.encodedJSON(targets: sources, cache: cache)
                    expected = try self.expected(whole)
                case .brief:
                    encoded = try whole.encodedJSON(targets: sources, cache: briefCache)
                    expected = try self.expected(whole, as: BriefTargetSnapshot.init)
                case .rows:
                    whole.targetColumns = TargetRow.columns
                    encoded = try whole.encodedJSON(targets: sources, cache: rowCache)
                    expected = try self.expected(whole, as: TargetRow.init)
                }
                XCTAssertEqual(String(buffer: encoded.buffer), expected, "\(what), view \(view)", file: file, line: line)
            }
        }
        try check("cold")
        try check("warm")
        states.record(ProbeRecord(time: .now(), target: "pending", url: "http://pending.example.com/", outcome: .ok,
                                  httpStatus: 204, timings: PhaseTimings(resolve: 1, connect: 2, tls: 0, processing: 4, transfer: 5, total: 12)))
        try check("a result")
        try check("an alert", firing: ["api": [FiringAlert(target: "api", kind: "pin_mismatch", since: .now(), message: "pin")]])
        try check("the alert resolved")
        states.configure(try AgentConfiguration(yaml: Self.yaml, file: "t.yml").targets.targets)
        try check("a reload that changed nothing")
        let relabeled = try AgentConfiguration(yaml: Self.yaml.replacingOccurrences(of: "team: edge", with: "team: core"), file: "t.yml")
        states.configure(relabeled.targets.targets)
        try check("a reload that changed the top-level labels")
        let reloaded = try AgentConfiguration(yaml: Self.yaml.replacingOccurrences(of: "https://down.example.com/", with: "https://down.example.com/moved"),
                                              file: "t.yml")
        states.configure(reloaded.targets.targets)
        try check("a reload that changed a URL")
        states.configure(Array(reloaded.targets.targets.prefix(2)))
        try check("a target removed")
        try check("two hours on: the uptime windows moved", now: Timestamp.now().adding(.seconds(7_200)))
    }

    /// `?view=brief`: every member but `targets` as in the full document, and each target the full one cut to the
    /// fields `netvigil status` shows, under the same names; a warm brief cache gives the same bytes.
    func testTheBriefViewIsTheFullDocumentCutToWhatTheTableShows() throws {
        let report = try report(variedTargets(), portal: true)
        let briefCache = TargetFragmentCache(BriefTargetSnapshot.init)
        let briefBytes = try report.encodedJSON(cache: briefCache).buffer
        XCTAssertEqual(try report.encodedJSON(cache: briefCache).buffer, briefBytes, "warm")
        var full = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(buffer: report.encodedJSON(cache: TargetFragmentCache()).buffer)) as? [String: Any])
        var brief = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(buffer: briefBytes)) as? [String: Any])
        let fullTargets = try XCTUnwrap(full.removeValue(forKey: "targets") as? [[String: Any]])
        let briefTargets = try XCTUnwrap(brief.removeValue(forKey: "targets") as? [[String: Any]])
        XCTAssertEqual(NSDictionary(dictionary: brief), NSDictionary(dictionary: full), "everything but the targets")
        func cut(_ object: [String: Any], to keys: Set<String>) -> [String: Any] { object.filter { keys.contains($0.key) } }
        let expected: [[String: Any]] = fullTargets.map { target in
            var target = cut(target, to: ["name", "status", "last_result", "last_probe_at", "consecutive_failures",
                                          "firing_alerts", "addresses"])
            if let last = target["last_result"] as? [String: Any] {
                target["last_result"] = cut(last, to: ["time", "outcome", "error_kind", "http_status", "trust_verdict",
                                                       "pin_verdict", "reachability_status", "certificate_days_left"])
            }
            target["firing_alerts"] = (target["firing_alerts"] as? [[String: Any]])?.map { cut($0, to: ["kind"]) }
            if let addresses = target["addresses"] as? [[String: Any]] {
                target["addresses"] = addresses.map { cut($0, to: ["address", "interface", "status", "error_kind", "pin_verdict"]) }
            }
            return target
        }
        XCTAssertEqual(briefTargets.count, 3)
        for (briefTarget, expectedTarget) in zip(briefTargets, expected) {
            XCTAssertEqual(NSDictionary(dictionary: briefTarget), NSDictionary(dictionary: expectedTarget))
        }
        XCTAssertEqual((briefTargets[1]["firing_alerts"] as? [[String: Any]])?.first?["kind"] as? String, "target_down")
        XCTAssertEqual((briefTargets[0]["addresses"] as? [[String: Any]])?.count, 2)
        XCTAssertLessThan(briefBytes.readableBytes, try report.encodedJSON(cache: TargetFragmentCache()).count)
    }

    /// Three targets: one up with two addresses, one down with an alert firing, one pending.
    func variedTargets() throws -> [TargetSnapshot] {
        let firing = ["down": [FiringAlert(target: "down", kind: "target_down", since: .now(), message: "down 3x")]]
        var targets = try states().snapshots(firing: firing)
        targets[0].addresses = try JSONDecoder().decode([TargetSnapshot.AddressStatus].self, from: Data("""
            [{"address": "192.0.2.6", "interface": "eth0", "interface_kind": "ethernet", "status": "up",
              "served_pin": "pin=", "time": "2026-11-27T10:00:00.000Z", "total_ms": 12.5, "http_status": 200},
             {"address": "192.0.2.7", "status": "down", "error_kind": "trust", "error_message": "untrusted",
              "trust_verdict": "untrusted: expired", "pin_verdict": "mismatch", "certificate_days_left": -2}]
            """.utf8))
        return targets
    }

    /// The brief view's snapshots skip the uptime windows: their ratios are nil, the rest is the same.
    func testSnapshotsWithoutUptimeLeaveOnlyItsRatiosNil() throws {
        let states = try states()
        let with = states.snapshots()
        let without = states.snapshots(uptime: false)
        XCTAssertEqual(with.first?.uptime.lastHour, 1.0)
        XCTAssertTrue(without.allSatisfy { $0.uptime.lastHour == nil && $0.uptime.lastDay == nil && $0.uptime.lastWeek == nil })
        XCTAssertEqual(with.map(BriefTargetSnapshot.init), without.map(BriefTargetSnapshot.init))
    }

    /// The response's chunks join to the whole document, none much over the chunk size unless one target is, and
    /// `count` is the document's length (the response's Content-Length).
    func testChunksJoinToTheDocument() throws {
        let report = try report(try states().snapshots(), portal: true)
        let encoded = try report.encodedJSON(cache: TargetFragmentCache())
        let whole = try expected(report)
        XCTAssertEqual(encoded.count, whole.utf8.count)
        for size in [1, 300, 1_000, 65_536] {
            var chunks = encoded.chunks(of: size)
            var joined = ""
            var sizes: [Int] = []
            while let chunk = chunks.next() {
                joined += String(buffer: chunk)
                sizes.append(chunk.readableBytes)
            }
            XCTAssertEqual(joined, whole, "chunk size \(size)")
            XCTAssertEqual(sizes.count, size == 1 ? 4 : size == 65_536 ? 1 : sizes.count, "chunk size \(size): \(sizes)")
            if size == 300 { XCTAssertGreaterThan(sizes.count, 2, "\(sizes)") }
        }
        let empty = try self.report([], portal: false).encodedJSON(cache: TargetFragmentCache())
        var chunks = empty.chunks()
        XCTAssertEqual(chunks.next().map { String(buffer: $0) }, try expected(try self.report([], portal: false)))
        XCTAssertNil(chunks.next())
    }

    func testTheSpliceTakesOnlyTheTopLevelTargetsMember() throws {
        let json = Data(#"{"a":{"targets":[]},"b":"\"targets\":[]","targets":[],"z":1}"#.utf8)
        let split = try XCTUnwrap(StatusReport.topLevelTargetsArray(in: json))
        XCTAssertEqual(String(decoding: json[..<split], as: UTF8.self), #"{"a":{"targets":[]},"b":"\"targets\":[]","targets":["#)
        XCTAssertNil(StatusReport.topLevelTargetsArray(in: Data(#"{"a":{"targets":[]}}"#.utf8)), "a nested member is not taken")
    }
}

extension StatusReport {
    /// The report with its own ``targets`` as the document's (snapshots compared whole by the cache).
    func encodedJSON<View>(cache: TargetFragmentCache<View>) throws -> EncodedStatusReport {
        try encodedJSON(targets: targets.map(TargetStates.SnapshotSource.init), cache: cache)
    }
}

extension EncodedStatusReport {
    /// The whole document in one buffer, joined from its chunks (what a client receives).
    var buffer: ByteBuffer {
        var whole = ByteBuffer()
        whole.reserveCapacity(count)
        var chunks = chunks()
        while var chunk = chunks.next() { whole.writeBuffer(&chunk) }
        return whole
    }
}
