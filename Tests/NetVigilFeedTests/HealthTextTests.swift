import NetVigilAgent
import XCTest
@testable import NetVigilFeed

/// `/healthz`'s body: a warning (the fleet shipping lag) keeps `ok` and the 200, a problem makes it `unhealthy`.
final class HealthTextTests: XCTestCase {
    func testWarningsKeepOkAndProblemsWin() {
        let warning = "fleet shipping lag 400 s (over 10 × heartbeat, 300 s)"
        let health = DaemonHealth(scheduler: nil, writer: nil, warnings: { [warning] })
        let report = health.check()
        XCTAssertTrue(report.isHealthy)
        XCTAssertEqual(report.warnings, [warning])
        XCTAssertEqual(healthText(report), "ok; warning: \(warning)\n")
        XCTAssertEqual(healthText(DaemonHealth.Report(problems: [])), "ok\n")
        XCTAssertEqual(healthText(DaemonHealth.Report(problems: ["store not writable"], warnings: [warning])),
                       "unhealthy: store not writable\n")
    }
}
