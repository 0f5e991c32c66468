import Foundation
import NetVigilTestSupport
import XCTest

final class CheckConfigCommandTests: XCTestCase {
    func testVersion() throws {
        let flag = try ProcessRunner.run(["--version"])
        let command = try ProcessRunner.run(["version"])
        XCTAssertEqual(flag.status, 0)
        XCTAssertEqual(command.status, 0)
        XCTAssertEqual(flag.stdout, command.stdout)
        XCTAssertTrue(flag.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, flag.stdout)
    }

    func testExampleConfigurationIsValid() throws {
        let example = SchemaValidator.repositoryRoot.appendingPathComponent("deploy/netvigil.example.yml").path
        let result = try ProcessRunner.run(["check-config", example])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains(": ok"))
        XCTAssertTrue(result.stdout.contains("retention 30d"))
    }

    func testTypoIsOneLocatedLineAndExit78() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("etc/typos"), withIntermediateDirectories: true)
        _ = try directory.write("etc/typos/retension.yml", "storage:\n  path: x.sqlite\n  retension: 30d\n")
        // The file is named as given on the command line, directories included.
        let result = try ProcessRunner.run(["check-config", "etc/typos/retension.yml"], currentDirectory: directory.url)
        XCTAssertEqual(result.status, 78)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("netvigil: etc/typos/retension.yml:3:3: storage.retension: unknown key"), result.stderr)
    }

    func testBadDurationAndMissingFile() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("n.yml", "storage:\n  retention: forever\n")
        let bad = try ProcessRunner.run(["check-config", file])
        XCTAssertEqual(bad.status, 78)
        XCTAssertEqual(bad.stderr, "netvigil: \(file):2:14: storage.retention: expected a duration like 30d\n")
        let missing = try ProcessRunner.run(["check-config", directory.path("nope.yml")])
        XCTAssertEqual(missing.status, 78)
        XCTAssertTrue(missing.stderr.contains("nope.yml: no such file"), missing.stderr)
    }

    func testUsageErrorsExit64() throws {
        XCTAssertEqual(try ProcessRunner.run(["check-config"]).status, 64)
        XCTAssertEqual(try ProcessRunner.run(["no-such-command"]).status, 64)
        XCTAssertEqual(try ProcessRunner.run(["run", "--bogus"]).status, 64)
    }
}
