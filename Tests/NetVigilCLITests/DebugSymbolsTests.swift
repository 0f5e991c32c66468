import Foundation
import NetVigilTestSupport
import XCTest

/// `make debug-symbols` (deploy/debug-symbols.sh): the debug symbols that `make install` and the .deb strip are
/// kept apart, by build id, where gdb finds them for the stripped binary.
final class DebugSymbolsTests: XCTestCase {
    func testTheStrippedBinaryGetsItsSymbolsBackByBuildID() throws {
        let gdb = URL(fileURLWithPath: "/usr/bin/gdb")
        guard FileManager.default.isExecutableFile(atPath: gdb.path) else {
            return XCTFail("gdb missing: make test installs the Debian package gdb")
        }
        let directory = try TemporaryDirectory()
        let script = SchemaValidator.repositoryRoot.appendingPathComponent("deploy/debug-symbols.sh").path
        let split = try ProcessRunner.run([script, ProcessRunner.binary.path, directory.path("root")],
                                          executable: URL(fileURLWithPath: "/bin/bash"), timeout: 120)
        XCTAssertEqual(split.status, 0, split.stderr)
        let notes = try ProcessRunner.run(["-n", ProcessRunner.binary.path], executable: URL(fileURLWithPath: "/usr/bin/readelf"))
        let id = try XCTUnwrap(notes.stdout.split(separator: "\n").first { $0.contains("Build ID:") }?
            .split(separator: " ").last.map(String.init))
        let debugFile = directory.path("root/usr/lib/debug/.build-id/\(id.prefix(2))/\(id.dropFirst(2)).debug")
        XCTAssertTrue(FileManager.default.fileExists(atPath: debugFile), split.stdout)

        // What install does (`install -s`): the shipped binary has no symbols of its own.
        let stripped = directory.path("netvigil")
        let strip = try ProcessRunner.run(["-o", stripped, ProcessRunner.binary.path], executable: URL(fileURLWithPath: "/usr/bin/strip"))
        XCTAssertEqual(strip.status, 0, strip.stderr)
        let question = ["-nx", "-batch", "-ex", "info line ShutdownDeadline.swift:20"]
        let without = try ProcessRunner.run(question + [stripped], executable: gdb, timeout: 120)
        XCTAssertTrue((without.stdout + without.stderr).contains("No symbol table is loaded"), without.stdout + without.stderr)
        let with = try ProcessRunner.run(["-iex", "set debug-file-directory \(directory.path("root/usr/lib/debug"))"] + question + [stripped],
                                         executable: gdb, timeout: 120)
        XCTAssertTrue(with.stdout.contains("ShutdownDeadline.swift\" starts at address"), with.stdout + with.stderr)

        // A binary without symbols is refused with one line.
        let refused = try ProcessRunner.run([script, stripped, directory.path("again")], executable: URL(fileURLWithPath: "/bin/bash"))
        XCTAssertEqual(refused.status, 65)
        XCTAssertEqual(refused.stderr, "debug-symbols: \(stripped) carries no debug symbols (already stripped?)\n")
    }
}
