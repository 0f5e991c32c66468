import Foundation
import NetVigilProbeModel
import NetVigilStore
import NetVigilTestSupport
import XCTest

final class ExportCommandTests: XCTestCase {
    static func seed(_ path: String, probes: Int = 50) async throws {
        let store = try Store.open(path: path)
        let base = Timestamp(milliseconds: 1_795_000_000_000)
        let certificate = CertificateRecord(
            sha256: String(repeating: "ab", count: 32), pem: "PEM", subject: "CN=leaf", issuer: "CN=ca", serial: "01",
            notBefore: base, notAfter: base.adding(.seconds(86_400)), spkiPin: "sha256/AAAA")
        try await store.write(WriteBatch(
            probes: (0..<probes).map { i in
                ProbeRecord(time: base.adding(.seconds(Int64(i) * 60)), target: i % 2 == 0 ? "api" : "web", outcome: .ok,
                            httpStatus: 200, timings: PhaseTimings(total: 1.5), servedChain: [certificate])
            },
            reachabilityEvents: [ReachabilityEventRecord(time: base, target: "default", status: "NotReachable", statusCode: 0,
                                                         flags: 0, flagNames: [])]))
    }

    func testExportToFileIsPrivateAndValid() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("n.sqlite")
        try await Self.seed(db)
        let output = directory.path("out.json")
        let result = try ProcessRunner.run(["export", "--db", db, "--output", output])
        XCTAssertEqual(result.status, 0, result.stderr)
        let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o600)
        try SchemaValidator.assertValid(output, ndjson: false)

        let filtered = try ProcessRunner.run(["export", "--db", db, "--format", "ndjson", "--target", "api", "--kind", "probes",
                                            "--since", "2026-11-18T11:06:40Z", "--until", "2026-11-18T11:16:40Z"])
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        let lines = filtered.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1 + 5, "header + api probes at minutes 0, 2, 4, 6, 8")
        try SchemaValidator.assertValid(text: filtered.stdout, ndjson: true)

        for (singular, plural) in [("probe", "probes"), ("alert", "alerts"), ("Reachability", "reachability")] {
            let one = try ProcessRunner.run(["export", "--db", db, "--format", "ndjson", "--kind", singular, "--until", "2026-11-18T11:16:40Z"])
            let many = try ProcessRunner.run(["export", "--db", db, "--format", "ndjson", "--kind", plural, "--until", "2026-11-18T11:16:40Z"])
            XCTAssertEqual(one.status, 0, one.stderr)
            // The header differs in exported_at only; the rows are the same.
            XCTAssertEqual(one.stdout.split(separator: "\n").dropFirst(), many.stdout.split(separator: "\n").dropFirst(),
                           "--kind \(singular) is --kind \(plural)")
            XCTAssertTrue(one.stdout.contains("\"kinds\":[\"\(plural)\"]"), one.stdout)
        }
    }

    func testBadInputGivesOneLineAndTheRightExitCode() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("n.sqlite")
        try await Self.seed(db)
        let text = try directory.write("text.sqlite", String(repeating: "hello\n", count: 500))
        let corrupt = directory.path("corrupt.sqlite")
        try await Self.seed(corrupt, probes: 3_000)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: corrupt))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 32_768))
        try handle.close()

        let cases: [([String], Int32, String)] = [
            (["export", "--db", db, "--since", "yesterday"], 64, "--since: cannot parse time \"yesterday\""),
            (["export", "--db", db, "--since", "-1h", "--until", "-2h"], 64, "must be after --since"),
            (["export", "--db", db, "--target", "nope"], 64, "no history for target \"nope\""),
            (["export", "--db", db, "--format", "xml"], 64, "--format: expected json or ndjson"),
            (["export", "--db", db, "--kind", "everything"], 64, "everything"),
            (["export", "--db", db, "--config", "x.yml"], 64, "either --db or --config"),
            (["export", "--db", directory.path("missing.sqlite")], 66, "no such database file"),
            (["export", "--db", text], 66, "not an SQLite database"),
            (["export", "--db", corrupt], 66, "corrupt"),
            (["export", "--db", db, "--output", "/nonexistent-dir/out.json"], 74, "cannot open /nonexistent-dir/out.json"),
            (["export", "--db", db, "--output", directory.path("")], 74, "is a directory"),
        ]
        for (arguments, status, message) in cases {
            let result = try ProcessRunner.run(arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Fatal error"), "\(arguments)")
        }
    }

    func testExportWhileAnotherProcessWrites() async throws {
        let python = try XCTUnwrap(SchemaValidator.python)
        let directory = try TemporaryDirectory()
        let db = directory.path("n.sqlite")
        try await Self.seed(db)
        // A separate writer process (python's sqlite3) inserting rows for a few seconds, in WAL mode.
        let script = try directory.write("writer.py", """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], timeout=10)
            db.execute("PRAGMA journal_mode=WAL")
            deadline = time.time() + 4
            n = 0
            while time.time() < deadline:
                with db:
                    for _ in range(20):
                        db.execute("INSERT INTO probe_results (time_ms, target, outcome) VALUES (?, 'writer', 'ok')",
                                   (1795000000000 + n,))
                        n += 1
                time.sleep(0.01)
            print(n)
            """)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: python.hasPrefix("/") ? python : "/usr/bin/python3")
        writer.arguments = [script, db]
        let pipe = Pipe()
        writer.standardOutput = pipe
        try writer.run()
        var exports = 0
        while writer.isRunning {
            let output = directory.path("export-\(exports).ndjson")
            let result = try ProcessRunner.run(["export", "--db", db, "--format", "ndjson", "--output", output])
            XCTAssertEqual(result.status, 0, result.stderr)
            // Every line is complete JSON (a consistent snapshot, never a torn row).
            let text = try String(contentsOfFile: output, encoding: .utf8)
            for line in text.split(separator: "\n") {
                XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(line.utf8)))
            }
            if exports == 0 { try SchemaValidator.assertValid(output, ndjson: true) }
            exports += 1
        }
        writer.waitUntilExit()
        XCTAssertEqual(writer.terminationStatus, 0)
        let written = Int(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        XCTAssertGreaterThan(written, 500)
        XCTAssertGreaterThan(exports, 1)
        let final = try ProcessRunner.run(["export", "--db", db, "--format", "ndjson", "--kind", "probes", "--target", "writer"])
        XCTAssertEqual(final.stdout.split(separator: "\n").count, 1 + written, "every committed row is exported")
    }
}
