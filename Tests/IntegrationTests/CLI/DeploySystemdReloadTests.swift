import Foundation
import NetVigilTestSupport
import XCTest

/// `systemctl reload netvigil` fails when the new configuration is refused: the unit's `ExecReload=` commands run in
/// order as systemd runs them (each one must exit 0 before the next starts; the first failure fails the reload),
/// against a real daemon.
final class DeploySystemdReloadTests: XCTestCase {
    private let unit = SchemaValidator.repositoryRoot.appendingPathComponent("deploy/systemd/netvigil.service")
    private static let unitConfig = "/etc/netvigil/netvigil.yml"

    /// The `ExecReload=` command lines, in order.
    private func execReloadLines() throws -> [String] {
        try String(contentsOf: unit, encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("ExecReload=") }.map { String($0.dropFirst("ExecReload=".count)) }
    }

    func testReloadChecksTheFileBeforeSignalling() throws {
        let lines = try execReloadLines()
        XCTAssertEqual(lines, ["/usr/bin/netvigil check-config \(Self.unitConfig)", "/bin/kill -HUP $MAINPID"])
        let text = try String(contentsOf: unit, encoding: .utf8)
        XCTAssertTrue(text.contains("ExecStart=/usr/bin/netvigil run --config \(Self.unitConfig)"), "the file the daemon runs")
    }

    /// Runs the ExecReload commands like systemd: no shell, `$MAINPID` replaced, stop at the first failure.
    private func systemctlReload(pid: Int32, config: String) throws -> (status: Int32, stderr: String) {
        var last: (status: Int32, stderr: String) = (0, "")
        for line in try execReloadLines() {
            let words = line.replacingOccurrences(of: "/usr/bin/netvigil", with: ProcessRunner.binary.path)
                .replacingOccurrences(of: Self.unitConfig, with: config)
                .replacingOccurrences(of: "$MAINPID", with: "\(pid)")
                .split(separator: " ").map(String.init)
            let result = try ProcessRunner.run(Array(words.dropFirst()), executable: URL(fileURLWithPath: words[0]), timeout: 20)
            last = (result.status, result.stderr)
            if last.status != 0 { return last }
        }
        return last
    }

    private func metric(_ name: String, port: Int) throws -> Double? {
        let (status, body) = try ProcessRunner.curl("http://127.0.0.1:\(port)/metrics")
        guard status == 200 else { return nil }
        let line = body.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ")[1]) }
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 20, _ condition: () throws -> Bool) rethrows {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("timed out waiting for \(what)")
    }

    func testRefusedConfigurationFailsTheReloadAndTheDaemonRunsOn() throws {
        let directory = try TemporaryDirectory()
        let port = ProcessRunner.freePort()
        let good = """
            storage: { path: state/netvigil.sqlite, retention: 1d }
            feed: { listen: 127.0.0.1:\(port) }
            reachability: { targets: [127.0.0.1] }
            """
        let config = try directory.write("netvigil.yml", good)
        let (daemon, log) = try DaemonProcess.start(config: config, in: directory)
        defer {
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
        }
        try waitUntil("the feed") { try metric("netvigil_config_last_reload_successful", port: port) == 1 }
        let started = try XCTUnwrap(try metric("netvigil_config_last_reload_success_timestamp_seconds", port: port))

        // A typo: the reload fails with the one error line, and the daemon is not even signalled.
        _ = try directory.write("netvigil.yml", good + "\nlables: { site: fra1 }\n")
        let refused = try systemctlReload(pid: daemon.processIdentifier, config: config)
        XCTAssertEqual(refused.status, 78, "EX_CONFIG: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.contains("netvigil.yml:4:1: lables: unknown key (did you mean labels?)"), refused.stderr)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try metric("netvigil_config_last_reload_successful", port: port), 1)
        XCTAssertFalse(try String(contentsOfFile: log, encoding: .utf8).contains("reload"), "no SIGHUP was sent")

        // A valid file: the reload succeeds and the daemon applies it.
        _ = try directory.write("netvigil.yml", good + "\nlabels: { site: fra1 }\n")
        let accepted = try systemctlReload(pid: daemon.processIdentifier, config: config)
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
        try waitUntil("the reload") {
            (try metric("netvigil_config_last_reload_success_timestamp_seconds", port: port) ?? 0) > started
        }
        XCTAssertTrue(try String(contentsOfFile: log, encoding: .utf8).contains("configuration reloaded"))
        XCTAssertTrue(daemon.isRunning)
    }
}
