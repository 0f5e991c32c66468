import Foundation
import NetVigilTestSupport
import XCTest

/// `check-config` and `probe` with hostile input: one line, the right exit code, quickly, and no planted secret.
final class HostileConfigCommandTests: XCTestCase {
    /// The planted secrets plus a duplicate key (the refused reload of the issue).
    private static let secrets = PlantedSecrets.configuration + """
          - name: b
            url: https://h.test/
            url: https://h.test/again

        """

    private func assertOneLine(_ result: ProcessRunner.Result, status: Int32, prefix: String, line: UInt = #line) {
        XCTAssertEqual(result.status, status, result.stderr, line: line)
        XCTAssertEqual(result.stdout, "", line: line)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr, line: line)
        XCTAssertTrue(result.stderr.hasPrefix(prefix), result.stderr, line: line)
        XCTAssertFalse((result.stdout + result.stderr).contains("SECRET"), result.stderr, line: line)
    }

    func testDuplicateKeyNamesThePlaceAndQuotesNothing() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("netvigil.yml", Self.secrets)
        let result = try ProcessRunner.run(["check-config", file])
        assertOneLine(result, status: 78, prefix: "netvigil: \(file):12:5: targets[1].url: duplicate key")
    }

    func testAliasBombAndOversizedFileAreRefusedQuickly() throws {
        let directory = try TemporaryDirectory()
        var lines = ["targets:", "  - name: a", "    url: http://127.0.0.1:1/", "    params:",
                     "      l0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1..<10 {
            lines.append("      l\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ") + "]")
        }
        let bomb = try directory.write("bomb.yml", lines.joined(separator: "\n") + "\n")
        var start = Date()
        let bombed = try ProcessRunner.run(["check-config", bomb], timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "hang guard only; real figures are in the commit message")
        assertOneLine(bombed, status: 78, prefix: "netvigil: \(bomb):")
        XCTAssertTrue(bombed.stderr.contains("YAML aliases expand to more than 100000 nodes (the limit)"), bombed.stderr)

        let big = directory.path("big.yml")
        _ = FileManager.default.createFile(atPath: big, contents: nil)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: big))
        let megabyte = Data(String(repeating: "- { name: x, url: 'http://h.test/' }\n", count: 29_000).utf8)
        try handle.write(contentsOf: Data("targets:\n".utf8))
        for _ in 0..<50 { try handle.write(contentsOf: megabyte) }
        try handle.close()
        start = Date()
        let oversized = try ProcessRunner.run(["check-config", big], timeout: 30)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        assertOneLine(oversized, status: 78, prefix: "netvigil: \(big): file is larger than 4 MiB (the limit)")
    }

    func testRunRefusesTheSameFileWithTheSameLine() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("netvigil.yml", Self.secrets)
        let result = try ProcessRunner.run(["run", "--config", file], timeout: 30)
        assertOneLine(result, status: 78, prefix: "netvigil: \(file):12:5: targets[1].url: duplicate key")
    }

    func testProbeRefusesCredentialsInTheURL() throws {
        let result = try ProcessRunner.run(["probe", "https://probe:SECRET-pw@127.0.0.1:1/"])
        assertOneLine(result, status: 64, prefix: "netvigil: URL: credentials in the URL are not accepted; use --basic-auth USER:PASS")
    }
}
