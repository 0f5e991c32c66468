import Foundation
import NetVigilTestSupport
import XCTest

/// `check-config` with `include:`: the included files in the summary, relative includes against the config's
/// directory, and one located line per error (up to 20) with exit 78.
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
}
