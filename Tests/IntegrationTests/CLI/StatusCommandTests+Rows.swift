import Foundation
import NetVigilTestSupport
import XCTest

extension StatusCommandTests {
    private static let columns = #"""
        ["name", "status", "consecutive_failures", "last_probe_at", "last_result.time", "last_result.outcome",
         "last_result.error_kind", "last_result.http_status", "last_result.trust_verdict", "last_result.pin_verdict",
         "last_result.reachability_status", "last_result.certificate_days_left", "firing_alerts", "from_a_newer_daemon",
         "addresses"]
        """#

    /// `netvigil status` against `document` served at `/v1/status` by a Python server (which ignores the query):
    /// its output, once the server answers.
    private func status(serving document: String, _ arguments: [String] = []) throws -> ProcessRunner.Result {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("v1"), withIntermediateDirectories: true)
        _ = try directory.write("v1/status", document)
        let port = ProcessRunner.freePort()
        _ = try start(URL(fileURLWithPath: "/usr/bin/python3"), ["-m", "http.server", "\(port)", "--bind", "127.0.0.1"],
                      in: directory, log: "web.log")
        let command = ["status", "--feed", "http://127.0.0.1:\(port)"] + arguments
        var result = try ProcessRunner.run(command)
        for _ in 0..<50 where result.status == 74 {  // the server is still starting
            Thread.sleep(forTimeInterval: 0.1)
            result = try ProcessRunner.run(command)
        }
        return result
    }

    /// The rows view prints the table the brief view prints for the same targets, the loose reading included: a cell of
    /// another type is `-`, an unknown column is skipped, an alert kind that is not a string counts as `?`.
    func testTheRowsViewPrintsWhatTheBriefViewPrints() throws {
        let head = #""version": "9.9.9", "store": {"probe_results": 5, "alerts_pending": 0}, "reachability": [{"target": "default", "status": "ReachableViaWiFi"}]"#
        let rows = try status(serving: """
            {\(head), "target_columns": \(Self.columns),
             "targets": [
              ["a", "down", "3", null, "2025-01-01T10:00:00.000Z", "failed", "connectRefused", "500", null, null,
               "ReachableViaWiFi", 30.5, ["target_down", {"other": 1}], {"x": [1]}, null],
              ["b-ü", "up", 0, "2025-01-01T10:00:00.000Z", "2025-01-01T10:00:00.000Z", "ok", null, 200, "trusted",
               "matched", null, 48, [], "new", null],
              ["c", "pending", 0, null, null, null, null, null, null, null, null, null, [], null, null],
              ["d", "down", 1, "2025-01-01T10:00:00.000Z", "2025-01-01T10:00:00.000Z", "failed", "trust", null,
               "untrusted: expired", "mismatch", null, -2, [], null,
               [{"address": "192.0.2.6", "status": "up"},
                {"address": "192.0.2.7", "status": "down", "error_kind": "trust", "pin_verdict": "mismatch"}]]]}
            """, ["--check"])
        let objects = try status(serving: """
            {\(head),
             "targets": [
              {"name": "a", "status": "down", "consecutive_failures": "3",
               "last_result": {"time": "2025-01-01T10:00:00.000Z", "outcome": "failed", "error_kind": "connectRefused",
                               "http_status": "500", "reachability_status": "ReachableViaWiFi", "certificate_days_left": 30.5},
               "firing_alerts": [{"kind": "target_down"}, {"other": 1}]},
              {"name": "b-ü", "status": "up", "consecutive_failures": 0, "last_probe_at": "2025-01-01T10:00:00.000Z",
               "last_result": {"time": "2025-01-01T10:00:00.000Z", "outcome": "ok", "http_status": 200,
                               "trust_verdict": "trusted", "pin_verdict": "matched", "certificate_days_left": 48},
               "firing_alerts": []},
              {"name": "c", "status": "pending", "consecutive_failures": 0, "firing_alerts": []},
              {"name": "d", "status": "down", "consecutive_failures": 1, "last_probe_at": "2025-01-01T10:00:00.000Z",
               "last_result": {"time": "2025-01-01T10:00:00.000Z", "outcome": "failed", "error_kind": "trust",
                               "trust_verdict": "untrusted: expired", "pin_verdict": "mismatch", "certificate_days_left": -2},
               "firing_alerts": [],
               "addresses": [{"address": "192.0.2.6", "status": "up"},
                             {"address": "192.0.2.7", "status": "down", "error_kind": "trust", "pin_verdict": "mismatch"}]}]}
            """, ["--check"])
        XCTAssertEqual(rows.status, 1, rows.stderr)
        XCTAssertEqual(rows.stderr, "netvigil: check failed: 2 targets down (a, d), 2 alerts firing (a: target_down, a: ?)\n")
        XCTAssertEqual(objects.stderr, rows.stderr)
        // The same tables but for the feed's address (another port) in the first line.
        let table = { (output: String) in output.split(separator: "\n", omittingEmptySubsequences: false).dropFirst() }
        XCTAssertEqual(table(rows.stdout), table(objects.stdout), rows.stdout)
        XCTAssertTrue(rows.stdout.contains("d addresses: 192.0.2.6 up, 192.0.2.7 down"), rows.stdout)
        XCTAssertTrue(rows.stdout.contains("connection refused"), rows.stdout)
    }

    /// A row that is not an array, or is shorter than the columns, leaves the rest of its target unknown (`-`); a
    /// `targets` that is not an array shows no targets; neither is an error.
    func testRowsThatAreNotRowsAreReadLoosely() throws {
        let result = try status(serving: """
            {"version": "9.9.9", "target_columns": \(Self.columns), "targets": [7, ["short", "up"], ["x", 3, 0]]}
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        // The row that is not an array has no name (`?`); `x`'s status is not a string.
        XCTAssertEqual(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n"), """

            TARGET  STATUS  LAST PROBE  HTTP  PIN  DAYS LEFT  ALERTS  REASON
            ?       -       never       -     -    -          -       no result
            short   up      never       -     -    -          -       no result
            x       -       never       -     -    -          -       no result

            """)
        let none = try status(serving: #"{"version": "9.9.9", "target_columns": ["name"], "targets": {"a": 1}}"#)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertFalse(none.stdout.contains("TARGET"), none.stdout)
    }

    /// A daemon from before the rows view answers 400 to it: the brief view is asked for next, and its table printed.
    func testADaemonWithoutTheRowsViewIsAskedForTheBriefOne() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("status.json", """
            {"version": "0.9.0", "targets": [{"name": "old", "status": "up", "consecutive_failures": 0,
             "last_result": {"time": "2025-01-01T10:00:00.000Z", "outcome": "ok", "http_status": 204}, "firing_alerts": []}]}
            """)
        let server = try directory.write("server.py", #"""
            import http.server, sys
            class Feed(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    with open("requests.log", "a") as log: log.write(self.path + "\n")
                    if self.path.endswith("view=rows"):
                        code, body = 400, b'{"error": "unknown view \\"rows\\" (expected full or brief)"}'
                    else:
                        code, body = 200, open("status.json", "rb").read()
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *arguments): pass
            http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Feed).serve_forever()
            """#)
        let port = ProcessRunner.freePort()
        _ = try start(URL(fileURLWithPath: "/usr/bin/python3"), [server, "\(port)"], in: directory, log: "web.log")
        var result = try ProcessRunner.run(["status", "--feed", "http://127.0.0.1:\(port)"])
        for _ in 0..<50 where result.status == 74 {
            Thread.sleep(forTimeInterval: 0.1)
            result = try ProcessRunner.run(["status", "--feed", "http://127.0.0.1:\(port)"])
        }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.split(separator: "\n").contains { $0.hasPrefix("old ") && $0.contains(" 204 ") }, result.stdout)
        let requests = try String(contentsOfFile: directory.path("requests.log"), encoding: .utf8)
        XCTAssertTrue(requests.hasSuffix("/v1/status?view=rows\n/v1/status?view=brief\n"), requests)
    }
}
