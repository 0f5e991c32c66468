import Foundation
import NetVigilTestSupport
import XCTest

/// The served chain's findings in Chromium: the overview card's count and the target page's Findings table. The test
/// CA stands in for the system roots (`SSL_CERT_FILE`), so the chain is publicly trusted and the Baseline
/// Requirements apply: the leaf has no certificatePolicies.
extension StatusPageBrowserTests {
    func testFindingsShowAsACountOnTheCardAndAsRowsOnTheTargetPage() throws {
        let (tlsPort, httpPort, feedPort) = (ProcessRunner.freePort(), ProcessRunner.freePort(), ProcessRunner.freePort())
        pki = try LoopbackPKI(in: directory, caName: "netvigil findings CA", leaves: [("a", "/CN=127.0.0.1")])
        try pki.serve("a", nginx: nil)  // no certificatePolicies in the leaf: one finding
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
              - { name: api, url: "https://127.0.0.1:\(tlsPort)/health", interval: 1s, timeout: 3s }
            """)
        _ = try startNginx(tlsPort: tlsPort, httpPort: httpPort)
        try startDaemon(config: config, feedPort: feedPort, environment: ["SSL_CERT_FILE": directory.path("ca.pem")])
        let browser = try openBrowser()
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])
        try waitInPage(browser, "the findings badge", "\(row("api"))?.querySelector('.badge.findings') != null")
        let badge = try text(browser, "#targets .target[data-target=\"api\"] .badge.findings")
        XCTAssertTrue(badge.hasSuffix(" finding") || badge.hasSuffix(" findings"), badge)

        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/targets/api"])
        try waitInPage(browser, "the findings table", """
            document.querySelector('#findings tr.finding[data-code="e_sub_cert_certificate_policies_missing"][data-certificate="0"]') !== null
            """)
        let finding = try text(browser, "#findings tr.finding[data-code=\"e_sub_cert_certificate_policies_missing\"]")
        XCTAssertTrue(finding.contains("warning"), finding)
        XCTAssertTrue(try text(browser, "#findings-line").contains("The verdict is unchanged."))
        XCTAssertLessThanOrEqual(try browser.step(["eval": "document.documentElement.scrollWidth - document.documentElement.clientWidth"]) as? Int ?? 1, 0)
        saveScreenshot(browser, "target-page-findings")
        XCTAssertEqual(browser.exceptions, [], "the page threw")
    }
}
