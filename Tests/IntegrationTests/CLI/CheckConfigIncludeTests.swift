import Foundation
import NetVigilTestSupport
import XCTest

/// `check-config` with `include:`: the included files in the summary, relative includes against the config's
/// directory, and one located line per error (up to 20) with exit 78; a FIFO in `conf.d` or includes past the
/// whole configuration's size are one line at once (`systemctl reload` runs `check-config`).
final class CheckConfigIncludeTests: XCTestCase {
    private func makeTree() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("etc/netvigil/conf.d"), withIntermediateDirectories: true)
        _ = try directory.write("etc/netvigil/netvigil.yml", "include: [conf.d/*.yml]\nstorage: { path: n.sqlite }\n")
        _ = try directory.write("etc/netvigil/conf.d/a.yml", "targets: [{ name: a, url: \"https://a.example/\" }]\n")
        return directory
    }

    func testSummaryListsTheIncludedFiles() throws {
        let directory = try makeTree()
        let result = try ProcessRunner.run(["check-config", "etc/netvigil/netvigil.yml"], currentDirectory: directory.url)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("  include: 1 files (etc/netvigil/conf.d/a.yml)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("  targets: 1"), result.stdout)
    }

    func testEveryErrorIsOneLocatedLineNamingTheFileAsGiven() throws {
        let directory = try makeTree()
        _ = try directory.write("etc/netvigil/conf.d/b.yml", """
            targets:
              - { name: a, url: "https://b.example/" }
              - { name: c, url: "ftp://c.example/" }
              - { name: d, url: "https://d.example/", intervall: 30s }
            """)
        let result = try ProcessRunner.run(["check-config", "etc/netvigil/netvigil.yml"], currentDirectory: directory.url)
        XCTAssertEqual(result.status, 78)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, result.stderr)
        XCTAssertEqual(lines[0], "netvigil: etc/netvigil/conf.d/b.yml:2:5: targets[0]: target name \"a\" is used twice (first at etc/netvigil/conf.d/a.yml:1:11)")
        XCTAssertTrue(lines[1].hasPrefix("netvigil: etc/netvigil/conf.d/b.yml:3:21: targets[1].url: expected an"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("netvigil: etc/netvigil/conf.d/b.yml:4:43: targets[2].intervall: unknown key (did you mean interval?)"), lines[2])
    }

    func testAFIFOInConfDIsOneLinePromptly() throws {
        let directory = try makeTree()
        XCTAssertEqual(mkfifo(directory.path("etc/netvigil/conf.d/50-x.yml"), 0o600), 0)
        let start = Date()
        let result = try ProcessRunner.run(["check-config", "etc/netvigil/netvigil.yml"], currentDirectory: directory.url, timeout: 15)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(result.status, 78, result.stderr)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr, "netvigil: etc/netvigil/conf.d/50-x.yml: is a FIFO (named pipe), not a regular file\n")
    }

    func testTwentyLargeIncludesAreRefusedBeforeAnyIsParsed() throws {
        let directory = try makeTree()
        // ~1.8 MB of targets each: every file within the per-file limits, together past the whole configuration's.
        for file in 0..<20 {
            let lines = (0..<36_000).map { "  - { name: f\(file)t\($0), url: 'https://h\($0).example/' }" }
            _ = try directory.write("etc/netvigil/conf.d/\(file + 10).yml", "targets:\n" + lines.joined(separator: "\n") + "\n")
        }
        let start = Date()
        let result = try ProcessRunner.run(["check-config", "etc/netvigil/netvigil.yml"], currentDirectory: directory.url, timeout: 60)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        XCTAssertEqual(result.status, 78, result.stderr)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("netvigil: etc/netvigil/netvigil.yml:1:10: include: this file and the 21 included files hold "),
                      result.stderr)
        XCTAssertTrue(result.stderr.hasSuffix(" MiB together; a whole configuration may hold at most 16 MiB (the limit)\n"), result.stderr)
    }
}
