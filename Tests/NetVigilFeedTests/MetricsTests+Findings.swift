import Foundation
import NetVigilAgent
import XCTest
@testable import NetVigilFeed

extension MetricsTests {
    /// `netvigil_tls_findings`: the number of Baseline Requirements findings, absent without a TLS verdict.
    func testTLSFindingsGaugeFollowsTheLastProbe() throws {
        let metrics = FeedMetrics()
        metrics.agent.probeFinished(target: "api", record: Self.okRecord(), findings: 3)
        XCTAssertEqual(try render(metrics).samples[#"netvigil_tls_findings{target="api"}"#], 3)
        XCTAssertEqual(try render(metrics).type["netvigil_tls_findings"], "gauge")
        metrics.agent.probeFinished(target: "api", record: Self.refusedRecord())
        XCTAssertTrue(try render(metrics).series(named: "netvigil_tls_findings").isEmpty)
    }
}
