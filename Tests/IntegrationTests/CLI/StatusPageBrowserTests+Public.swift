import Foundation
import NetVigilTestSupport
import XCTest

/// `feed.public_status: true` in Chromium: the overview shows the redacted view without asking for the token.
extension StatusPageBrowserTests {
    func testPublicModeShowsTheRedactedViewWithoutTheToken() throws {
        pki = try LoopbackPKI(in: directory, caName: "netvigil page CA", leaves: [("a", "/CN=127.0.0.1")])
        let tlsPort = ProcessRunner.freePort(), httpPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        try pki.serve("a", nginx: nil)
        _ = try startNginx(tlsPort: tlsPort, httpPort: httpPort)
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort), token: public-\(UUID().uuidString), public_status: true }
            targets:
              - name: api
                url: https://127.0.0.1:\(tlsPort)/health?key=hidden-query
                interval: 1s
                tls: { ca: [\(directory.path("ca.pem"))] }
            """)
        try startDaemon(config: config, feedPort: feedPort)
        XCTAssertEqual(try ProcessRunner.curl("http://127.0.0.1:\(feedPort)/v1/status").0, 401, "the full document keeps its token")
        let browser = try openBrowser()
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])
        try waitInPage(browser, "the public view", """
            \(row("api"))?.dataset.status === "up" && document.getElementById('token-form').hidden
              && document.getElementById('summary').textContent.includes('public view')
              && document.getElementById('reachability-section').hidden
              && document.getElementById('connection').className === 'polling'
            """)
        XCTAssertFalse(try text(browser, "#targets").contains("hidden-query"), "the query is not shown")
        XCTAssertEqual(browser.exceptions, [], "the page threw")
        XCTAssertEqual(browser.console, [], "console errors")
    }
}
