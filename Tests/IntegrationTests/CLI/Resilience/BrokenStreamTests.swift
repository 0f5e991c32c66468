import Foundation
import NetVigilTestSupport
import XCTest

/// Standard output and error that cannot be written: a pipe whose reader went away while SIGPIPE is ignored, as
/// systemd does for services (`IgnoreSIGPIPE=yes`, when journald restarts) and SwiftNIO does for every process
/// that uses it. Foundation's `FileHandle.write(_:)` trapped there: the daemon died with SIGILL at its first log
/// line, and `netvigil status --json | head -c 1` crashed instead of ending.
final class BrokenStreamTests: XCTestCase {
    private var daemon: DaemonUnderTest?

    override func tearDown() { daemon?.tearDown() }

    /// `broken.py FD... -- COMMAND...`: points each FD at a pipe with no reader, ignores SIGPIPE, execs COMMAND.
    private static let broken = #"""
        import os, signal, sys
        split = sys.argv.index("--")
        read, write = os.pipe()
        os.close(read)
        for fd in sys.argv[1:split]: os.dup2(write, int(fd))
        os.close(write)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        os.execv(sys.argv[split + 1], sys.argv[split + 1:])
        """#

    func testTheDaemonOutlivesAStderrWithNoReader() throws {
        let daemon = try DaemonUnderTest()
        self.daemon = daemon
        let script = try daemon.directory.write("broken.py", Self.broken)
        // Every second three probes fail against a closed port, and each failure is a warning on stderr.
        try daemon.start(config: daemon.configuration(targets: 3, url: "http://127.0.0.1:\(ProcessRunner.freePort())/"),
                         wrapper: ["/usr/bin/python3", script, "1", "2", "--"])
        try daemon.waitUntil("nine failed probes, each logged", timeout: 20) {
            daemon.metric("netvigil_probes_total", matching: "outcome=\"failed\"") >= 9
        }
        XCTAssertEqual(daemon.health().status, 200)
        XCTAssertEqual(daemon.log, "", "stdout and stderr went to the broken pipe, not to the log file")
        XCTAssertLessThan(daemon.stop(), 5)
        XCTAssertEqual(daemon.process?.terminationReason, .exit)
        XCTAssertEqual(daemon.process?.terminationStatus, 0)
    }

    /// A command whose output has nowhere to go ends with 74 and says why on stderr (once, not a crash).
    func testACommandWhoseStdoutHasNoReaderExits74() throws {
        let directory = try TemporaryDirectory()
        let script = try directory.write("broken.py", Self.broken)
        let result = try ProcessRunner.run([script, "1", "--", ProcessRunner.binary.path, "reachability", "default", "--json"],
                                           executable: URL(fileURLWithPath: "/usr/bin/python3"))
        XCTAssertEqual(result.status, 74, result.stderr)
        XCTAssertEqual(result.stderr, "netvigil: cannot write to standard output: Broken pipe\n")
    }
}
