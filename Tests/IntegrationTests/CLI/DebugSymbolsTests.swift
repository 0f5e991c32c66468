import Foundation
import NetVigilTestSupport
import XCTest

/// `make debug-symbols` (deploy/debug-symbols.sh): the debug symbols that `make install` and the .deb strip are
/// kept apart, by build id, where gdb finds them for the stripped binary.
final class DebugSymbolsTests: XCTestCase {
    private let gdb = URL(fileURLWithPath: "/usr/bin/gdb")
    private let bash = URL(fileURLWithPath: "/bin/bash")
    private let readelf = URL(fileURLWithPath: "/usr/bin/readelf")

    private struct MissingTool: Error, CustomStringConvertible { let description: String }

    /// The path of a script in deploy/, after checking that gdb is there to read what it writes (a failure if not).
    private func deployScript(_ name: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: gdb.path) else {
            throw MissingTool(description: "gdb missing: make test installs the Debian package gdb")
        }
        return SchemaValidator.repositoryRoot.appendingPathComponent("deploy/\(name)").path
    }

    func testTheStrippedBinaryGetsItsSymbolsBackByBuildID() throws {
        let script = try deployScript("debug-symbols.sh")
        let directory = try TemporaryDirectory()
        let split = try ProcessRunner.run([script, ProcessRunner.binary.path, directory.path("root")], executable: bash, timeout: 120)
        XCTAssertEqual(split.status, 0, split.stderr)
        let notes = try ProcessRunner.run(["-n", ProcessRunner.binary.path], executable: readelf)
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
        let refused = try ProcessRunner.run([script, stripped, directory.path("again")], executable: bash)
        XCTAssertEqual(refused.status, 65)
        XCTAssertEqual(refused.stderr, "debug-symbols: \(stripped) carries no debug symbols (already stripped?)\n")
    }

    /// deploy/strip-binary.sh (what `make install` and the .deb install): no symbol table or DWARF, but the names of
    /// all functions, local ones too, in `.gnu_debugdata`, where gdb (and systemd-coredump) read them.
    func testTheInstalledBinaryStillNamesItsFunctions() throws {
        let script = try deployScript("strip-binary.sh")
        let directory = try TemporaryDirectory()
        let installed = directory.path("netvigil")
        let result = try ProcessRunner.run([script, ProcessRunner.binary.path, installed], executable: bash, timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try ProcessRunner.run(["--version"], executable: URL(fileURLWithPath: installed)).status, 0)

        let sections = try ProcessRunner.run(["-S", "-W", installed], executable: readelf).stdout
        XCTAssertTrue(sections.contains(".gnu_debugdata"), sections)
        for gone in [".symtab", ".debug_info", ".debug_line"] { XCTAssertFalse(sections.contains(gone), gone) }

        // A local function (never in the dynamic symbol table): named from .gnu_debugdata, not from a plain strip.
        let symbols = try ProcessRunner.run(["--defined-only", ProcessRunner.binary.path], executable: URL(fileURLWithPath: "/usr/bin/nm"),
                                            timeout: 120).stdout
        let local = try XCTUnwrap(symbols.split(separator: "\n").first { $0.contains(" t $s8netvigil") }?.split(separator: " "))
        let question = ["-nx", "-batch", "-ex", "info symbol 0x\(local[0])"]
        let named = try ProcessRunner.run(question + [installed], executable: gdb, timeout: 120)
        XCTAssertTrue(named.stdout.hasPrefix("\(local[2]) in section .text"), named.stdout + named.stderr)
        let plain = directory.path("plain")
        XCTAssertEqual(try ProcessRunner.run(["-o", plain, ProcessRunner.binary.path], executable: URL(fileURLWithPath: "/usr/bin/strip")).status, 0)
        let unnamed = try ProcessRunner.run(question + [plain], executable: gdb, timeout: 120)
        XCTAssertTrue(unnamed.stdout.contains("No symbol matches"), unnamed.stdout + unnamed.stderr)

        // An input without symbols is refused with one line.
        let refused = try ProcessRunner.run([script, installed, directory.path("again")], executable: bash)
        XCTAssertEqual(refused.status, 65)
        XCTAssertEqual(refused.stderr, "strip-binary: \(installed) has no symbol table (already stripped?)\n")
    }
}
