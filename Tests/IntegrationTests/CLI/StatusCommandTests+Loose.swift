import Foundation
import NetVigilTestSupport
import XCTest

extension StatusCommandTests {
    /// A document from an older or newer daemon: unknown fields are ignored, a field of another type shows as `-` (or is
    /// left out of the summary), a non-ASCII target name keeps its column; a body that is not an object exits 65.
    func testTableReadsAnUnexpectedDocumentLoosely() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("v1"), withIntermediateDirectories: true)
        _ = try directory.write("v1/status", """
            {"version": "9.9.9", "uptime_seconds": "soon", "store": {"probe_results": "many", "alerts_pending": 2},
             "extra": {"x": [1, 2]},
             "targets": [{"name": "a", "status": "down", "consecutive_failures": "3", "new_field": true,
                          "last_result": {"http_status": "500", "error_kind": "connectRefused", "certificate_days_left": 30.5},
                          "firing_alerts": [{"kind": "target_down"}, {"other": 1}]},
                         {"name": "b-ü", "status": "up", "consecutive_failures": 0, "last_result": {"http_status": 200}}],
             "reachability": [{"target": "default", "status": "ReachableViaWiFi", "flags": ["reachable", 3]}],
             "captive_portal": null}
            """)
        _ = try directory.write("v1/array", "[1, 2]")
        let port = ProcessRunner.freePort()
        _ = try start(URL(fileURLWithPath: "/usr/bin/python3"), ["-m", "http.server", "\(port)", "--bind", "127.0.0.1"],
                      in: directory, log: "web.log")
        let feed = "http://127.0.0.1:\(port)"
        var result = try ProcessRunner.run(["status", "--feed", feed])
        for _ in 0..<50 where result.status == 74 {  // the server is still starting
            Thread.sleep(forTimeInterval: 0.1)
            result = try ProcessRunner.run(["status", "--feed", feed])
        }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, """
            netvigil 9.9.9 at \(feed), 2 alerts pending delivery

            TARGET  STATUS  LAST PROBE  HTTP  PIN  DAYS LEFT  ALERTS       REASON
            a       down    never       -     -    -          target_down  connection refused
            b-ü     up      never       200   -    -          -            -

            reachability default: ReachableViaWiFi

            """)
        let check = try ProcessRunner.run(["status", "--feed", feed, "--check"])
        XCTAssertEqual(check.status, 1)
        XCTAssertEqual(check.stderr, "netvigil: check failed: 1 target down (a), 2 alerts firing (a: target_down, a: ?)\n")
        // `--feed URL/v1/array?` asks for `/v1/array?/v1/status`: the server ignores the query and sends the array.
        let array = try ProcessRunner.run(["status", "--feed", feed + "/v1/array?"])
        XCTAssertEqual(array.status, 65, array.stderr)
        XCTAssertTrue(array.stderr.contains("did not answer with a status document"), array.stderr)
    }
}
