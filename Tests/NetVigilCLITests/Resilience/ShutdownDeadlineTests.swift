import Foundation
import NetVigilTestSupport
import XCTest

/// SIGTERM and SIGINT end the daemon within 5 s even while every probe hangs on a server that never answers.
final class ShutdownDeadlineTests: XCTestCase {
    private var daemon: DaemonUnderTest!

    override func tearDown() {
        daemon?.tearDown()
    }

    private func startWithHangingTargets() throws {
        daemon = try DaemonUnderTest()
        let port = ProcessRunner.freePort()
        try daemon.python("blackhole.py", HostileClients.blackhole, ["\(port)"])
        try daemon.waitUntil("the black hole listens", timeout: 10) {
            (try? ProcessRunner.run(["-tlnH", "sport", "=", ":\(port)"], executable: URL(fileURLWithPath: "/usr/bin/ss")).stdout)?
                .contains("\(port)") == true
        }
        try daemon.start(config: """
            storage: { path: n.sqlite }
            feed: { listen: 127.0.0.1:\(daemon.feedPort) }
            targets:
            \(daemon.targets(20, url: "http://127.0.0.1:\(port)/", interval: "1s", timeout: "60s"))
            """)
        // Every probe is now stuck waiting for a response.
        Thread.sleep(forTimeInterval: 3)
    }

    func testSIGTERMWithHangingProbesEndsWithinFiveSeconds() throws {
        try startWithHangingTargets()
        let seconds = daemon.stop(signal: SIGTERM)
        XCTAssertLessThan(seconds, 5, daemon.log.suffix(2_000).description)
        XCTAssertFalse(daemon.process?.isRunning ?? true)
    }

    func testSIGINTWithHangingProbesEndsWithinFiveSeconds() throws {
        try startWithHangingTargets()
        let seconds = daemon.stop(signal: SIGINT)
        XCTAssertLessThan(seconds, 5, daemon.log.suffix(2_000).description)
        XCTAssertFalse(daemon.process?.isRunning ?? true)
    }
}
