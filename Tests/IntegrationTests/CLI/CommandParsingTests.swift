import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil CMD ARGS` is parsed from `netvigil` (`NetVigilCommand.parseAsRoot()`). These check that help,
/// `--version`, completion scripts and usage errors after a command read as they do from the root: parsed from CMD
/// alone, help would say `USAGE: probe` and list no `--version`.
final class CommandParsingTests: XCTestCase {
    /// The top-level commands without subcommands of their own.
    private let commands = ["probe", "version", "run", "check-config", "export", "status", "reachability", "pin"]

    func testHelpAfterACommandIsTheRootsHelpForIt() throws {
        for command in commands {
            let help = try ProcessRunner.run([command, "--help"])
            XCTAssertEqual(help.status, 0, "\(command) --help: \(help.stderr)")
            XCTAssertTrue(help.stdout.contains("USAGE: netvigil \(command)"), "\(command) --help:\n\(help.stdout)")
            XCTAssertTrue(help.stdout.contains("--version"), "\(command) --help lists no --version:\n\(help.stdout)")
            let viaHelp = try ProcessRunner.run(["help", command])
            XCTAssertEqual(help.stdout, viaHelp.stdout, "\(command) --help differs from help \(command)")
        }
    }

    func testEnumeratedOptionValuesAreListedInHelp() throws {
        let probe = try helpText(["probe", "--help"])
        XCTAssertTrue(probe.contains("(values: none, certificate, publicKey)"), probe)
        XCTAssertTrue(probe.contains("(values: webpki, rfc5280, strict)"), probe)
        XCTAssertTrue(probe.contains("(values: off, soft, hard)"), probe)
        let export = try helpText(["export", "--help"])
        XCTAssertTrue(export.contains("(values: probes, reachability, alerts, all; default: all)"), export)
    }

    /// The output of `arguments` with every run of white space made one space, so that wrapped lines read whole.
    private func helpText(_ arguments: [String]) throws -> String {
        try ProcessRunner.run(arguments).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    func testVersionFlagAfterACommandPrintsTheVersion() throws {
        let version = try ProcessRunner.run(["version"])
        XCTAssertEqual(version.status, 0)
        for command in ["probe", "status", "version"] {
            let result = try ProcessRunner.run([command, "--version"])
            XCTAssertEqual(result.status, 0, "\(command) --version: \(result.stderr)")
            XCTAssertEqual(result.stdout, version.stdout, "\(command) --version")
        }
    }

    /// `version` and `--version` alone print what ArgumentParser's own `--version` prints, and the spellings around
    /// them parse.
    func testVersionAloneReadsAsArgumentParsersVersion() throws {
        let parsed = try ProcessRunner.run(["version", "--version"])
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        XCTAssertEqual(parsed.stdout.split(separator: "\n").count, 1, parsed.stdout)
        XCTAssertTrue(parsed.stdout.hasSuffix("\n") && parsed.stdout.count > 1, parsed.stdout)
        for arguments in [["version"], ["--version"]] {
            let result = try ProcessRunner.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, parsed.stdout, "\(arguments)")
            XCTAssertEqual(result.stderr, "", "\(arguments)")
        }
        XCTAssertTrue(try ProcessRunner.run(["version", "--help"]).stdout.contains("Print the netvigil version."))
        XCTAssertEqual(try ProcessRunner.run(["--version", "version"]).status, 0)
    }

    func testVersionToAFullDeviceIsOneLineAndExit74() throws {
        for arguments in [["version"], ["--version"]] {
            let result = try ProcessRunner.run(["-c", "exec \"$0\" \"$@\" > /dev/full", ProcessRunner.binary.path] + arguments,
                                               executable: URL(fileURLWithPath: "/bin/bash"))
            XCTAssertEqual(result.status, 74, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr, "netvigil: cannot write to standard output: No space left on device\n", "\(arguments)")
        }
    }

    func testCompletionScriptRequestAfterACommandIsTheRootsScript() throws {
        let root = try ProcessRunner.run(["--generate-completion-script", "bash"])
        XCTAssertEqual(root.status, 0)
        XCTAssertTrue(root.stdout.contains("netvigil"), root.stdout)
        let afterProbe = try ProcessRunner.run(["probe", "--generate-completion-script", "bash"])
        XCTAssertEqual(afterProbe.status, 0, afterProbe.stderr)
        XCTAssertEqual(afterProbe.stdout, root.stdout)
    }

    func testUsageErrorsAfterACommandAreOneLineFromTheRoot() throws {
        let cases: [([String], String)] = [
            (["probe", "--bogus"], "netvigil: Unknown option '--bogus' (see netvigil --help)"),
            (["probe", "https://a", "https://b"], "netvigil: Unexpected argument 'https://b' (see netvigil --help)"),
            (["probe", "--timeout"], "netvigil: Missing value for '--timeout <timeout>' (see netvigil --help)"),
            (["version", "extra"], "netvigil: Unexpected argument 'extra' (see netvigil --help)"),
            (["status", "--bogus"], "netvigil: Unknown option '--bogus' (see netvigil --help)"),
        ]
        for (arguments, line) in cases {
            let result = try ProcessRunner.run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            XCTAssertEqual(result.stderr, line + "\n", "\(arguments)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
        }
    }
}
