import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil status --check` and the REASON column on status documents served by a static HTTP server (states a
/// daemon reaches only slowly, such as a firing pin alert on a target that is up).
extension StatusCommandTests {
    /// Serves `documents` (name → /v1/status body) as `BASE/name/v1/status`; returns BASE.
    private func serve(_ documents: [String: String], in directory: TemporaryDirectory) throws -> String {
        for (name, body) in documents {
            try FileManager.default.createDirectory(atPath: directory.path("\(name)/v1"), withIntermediateDirectories: true)
            _ = try directory.write("\(name)/v1/status", body)
        }
        let port = ProcessRunner.freePort()
        _ = try start(URL(fileURLWithPath: "/usr/bin/python3"), ["-m", "http.server", "\(port)", "--bind", "127.0.0.1"],
                      in: directory, log: "feed.log")
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, (try? ProcessRunner.curl("http://127.0.0.1:\(port)/\(documents.keys.first!)/v1/status"))?.0 != 200 {
            Thread.sleep(forTimeInterval: 0.1)
        }
        return "http://127.0.0.1:\(port)"
    }

    func testCheckFailsOnAFiringAlertAndPassesOnPendingOrSkippedTargets() throws {
        let directory = try TemporaryDirectory()
        let alerting = """
            {"version":"0.1.0","targets":[
              {"name":"api","status":"up","last_result":{"outcome":"ok","http_status":200},"firing_alerts":[]},
              {"name":"pinned","status":"up","last_result":{"outcome":"failed","error_kind":"trust","pin_verdict":"mismatch"},
               "firing_alerts":[{"kind":"pin_mismatch"}]}]}
            """
        let quiet = """
            {"version":"0.1.0","targets":[
              {"name":"new","status":"pending","firing_alerts":[]},
              {"name":"far","status":"skipped","last_result":{"outcome":"skipped","error_kind":"connect"},"firing_alerts":[]}]}
            """
        let base = try serve(["alerting": alerting, "quiet": quiet], in: directory)

        let failed = try ProcessRunner.run(["status", "--feed", base + "/alerting", "--check"])
        XCTAssertEqual(failed.status, 1, failed.stderr)
        XCTAssertEqual(failed.stderr, "netvigil: check failed: 1 alert firing (pinned: pin_mismatch)\n")
        let lines = failed.stdout.components(separatedBy: "\n")
        let pinned = try XCTUnwrap(lines.first { $0.hasPrefix("pinned ") }, failed.stdout)
        XCTAssertTrue(pinned.hasSuffix("pin_mismatch  pin mismatch"), pinned)
        let api = try XCTUnwrap(lines.first { $0.hasPrefix("api ") }, failed.stdout)
        XCTAssertEqual(api.split(separator: " ").last, "-", api)

        let json = try ProcessRunner.run(["status", "--feed", base + "/alerting", "--check", "--json"])
        XCTAssertEqual(json.status, 1)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual(try ProcessRunner.run(["status", "--feed", base + "/alerting"]).status, 0, "no --check: exit 0")

        let passed = try ProcessRunner.run(["status", "--feed", base + "/quiet", "--check", "--timeout", "1500ms"])
        XCTAssertEqual(passed.status, 0, passed.stderr)
        XCTAssertEqual(passed.stderr, "")
        let rows = passed.stdout.components(separatedBy: "\n")
        XCTAssertTrue(try XCTUnwrap(rows.first { $0.hasPrefix("new ") }).hasSuffix("  not probed yet"), passed.stdout)
        let far = try XCTUnwrap(rows.first { $0.hasPrefix("far ") }, passed.stdout)
        XCTAssertTrue(far.hasSuffix("  not reachable"), far)
    }

    func testReasonsAreTheStatusPagesWords() throws {
        let directory = try TemporaryDirectory()
        let base = try serve(["words": """
            {"version":"0.1.0","uptime_seconds":11520,"targets":[
              {"name":"expiring","status":"up","last_result":{"outcome":"ok","http_status":200,"certificate_days_left":9},
               "firing_alerts":[]},
              {"name":"refused","status":"down","last_result":{"outcome":"failed","error_kind":"connectRefused"},"firing_alerts":[]},
              {"name":"untrusted","status":"down",
               "last_result":{"outcome":"failed","error_kind":"trust","trust_verdict":"untrusted:chainInvalid"},"firing_alerts":[]}]}
            """], in: directory)
        let result = try ProcessRunner.run(["status", "--feed", base + "/words"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = result.stdout.components(separatedBy: "\n")
        XCTAssertTrue(rows[0].hasSuffix(", up 3 h 12 min"), rows[0])
        XCTAssertTrue(try XCTUnwrap(rows.first { $0.hasPrefix("expiring ") }).hasSuffix("  certificate expires in 9 days"), result.stdout)
        XCTAssertTrue(try XCTUnwrap(rows.first { $0.hasPrefix("refused ") }).hasSuffix("  connection refused"), result.stdout)
        XCTAssertTrue(try XCTUnwrap(rows.first { $0.hasPrefix("untrusted ") }).hasSuffix("  certificate not trusted (chainInvalid)"),
                      result.stdout)
    }
}
