import Foundation
import NetVigilTestSupport
import XCTest

/// Per-path rows in Chromium: a `source: { interfaces: [lo, nvgone0] }` target (lo carries 127.0.0.1; nvgone0 does
/// not exist, so its path is skipped as a removed modem's would be) shows "1 of 2 paths up" naming "127.0.0.1 via
/// nvgone0" on its card, and a "Paths" section with an interface column on its page, at 1280×900 and 390×844 without
/// horizontal overflow; the public view numbers the rows and names no interface.
extension StatusPageBrowserTests {
    /// The daemon probing `edge` over lo and the missing nvgone0, with `feed` settings added to the feed's line;
    /// returns the feed's port.
    private func startPathDaemon(feed: String = "") async throws -> Int {
        pki = try LoopbackPKI(in: directory, caName: "netvigil page CA", leaves: [("a", "/CN=127.0.0.1")])
        let tlsPort = ProcessRunner.freePort(), httpPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        try pki.serve("a", nginx: nil)
        _ = try startNginx(tlsPort: tlsPort, httpPort: httpPort)
        try await seedHistory(at: directory.path("state/netvigil.sqlite"), now: .now(), target: "edge")
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort)\(feed) }
            targets:
              - { name: edge, url: "https://127.0.0.1:\(tlsPort)/health", interval: 1s, timeout: 3s, source: { interfaces: [lo, nvgone0] },
                  tls: { pinning: publicKey, pins: [\(try pki.pin(of: "a"))], ca: [\(directory.path("ca.pem"))] } }
              - { name: plain, url: "https://127.0.0.1:\(tlsPort)/health", interval: 1s, timeout: 3s, tls: { ca: [\(directory.path("ca.pem"))] } }
            """)
        try startDaemon(config: config, feedPort: feedPort)
        return feedPort
    }

    func testPathRowsOnCardAndTargetPage() async throws {
        let feedPort = try await startPathDaemon()
        let browser = try openBrowser()

        // The card: how many paths are up, and which path is not, named "ADDR via IFACE".
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])
        try waitInPage(browser, "edge's path summary", """
            \(row("edge"))?.querySelector('.address-summary')?.dataset.up === "1"
              && \(row("edge")).querySelector('.address-summary').dataset.total === "2" && \(row("plain"))?.dataset.status === "up"
            """)
        let summary = try text(browser, "#targets .target[data-target=\"edge\"] .address-summary")
        XCTAssertTrue(summary.contains("1 of 2 paths up"), summary)
        XCTAssertTrue(summary.contains("127.0.0.1 via nvgone0"), summary)
        XCTAssertFalse(summary.contains("via lo"), "only the failing path is named: \(summary)")
        try checkLayout(browser, width: 1280, height: 900)
        try checkLayout(browser, width: 390, height: 844)
        try checkFits(browser, width: 390, height: 844, ["#targets .target[data-target=\"edge\"] .address-summary .failing-address"], "path-card")

        // The target page: the section is titled Paths, an interface column, a row per path.
        _ = try browser.step(["viewport": 1280, "height": 900])
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/targets/edge"])
        try waitInPage(browser, "edge's path rows", """
            document.querySelectorAll('#addresses tr.address-row').length === 2 && !document.querySelector('#addresses-section').hidden
              && document.querySelector('#addresses tr.address-row:last-child')?.dataset.status === "skipped"
            """)
        XCTAssertEqual(try text(browser, "#addresses-title"), "Paths in the last check")
        XCTAssertEqual(try browser.step(["eval": "[...document.querySelectorAll('#addresses th')].map((th) => th.textContent)"]) as? [String],
                       ["address", "interface", "status", "reason", "pin", "latency", "last checked"])
        let rows = try browser.step(["eval": """
            [...document.querySelectorAll('#addresses tr.address-row')].map((tr) =>
              [tr.dataset.address, tr.querySelector('.interface').textContent, tr.dataset.status, tr.innerText])
            """]) as? [[String]]
        XCTAssertEqual(rows?.map { $0[0] }, ["127.0.0.1", "127.0.0.1"])
        XCTAssertEqual(rows?.map { $0[1] }, ["lo", "nvgone0"])
        XCTAssertEqual(rows?.map { $0[2] }, ["up", "skipped"])
        if let rows, rows.count == 2 {
            for expected in ["HTTP 200", "matched", " ms"] { XCTAssertTrue(rows[0][3].contains(expected), "\(expected) in \(rows[0][3])") }
        }
        XCTAssertTrue(try text(browser, "#addresses-summary").contains("1 of 2 paths up"))
        XCTAssertTrue(try text(browser, "#addresses-summary").contains("127.0.0.1 via nvgone0"))
        let cells = ["#addresses tr.address-row:last-child .interface", "#addresses tr.address-row:last-child .reason", "#addresses-summary"]
        try checkFits(browser, width: 1280, height: 900, cells, "path-page")
        try checkFits(browser, width: 390, height: 844, cells + ["#addresses tr.address-row:first-child .interface"], "path-page")

        XCTAssertEqual(browser.exceptions, [], "the page threw")
        XCTAssertEqual(browser.console.filter { !$0.contains("/favicon.ico") }, [], "console errors")
    }

    func testPublicViewOfPathRowsNamesNoInterface() async throws {
        let feedPort = try await startPathDaemon(feed: ", token: public-\(UUID().uuidString), public_status: true")
        let browser = try openBrowser()
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])
        try waitInPage(browser, "the public path summary", """
            document.getElementById('summary').textContent.includes('public view')
              && \(row("edge"))?.querySelector('.address-summary')?.dataset.total === "2"
              && \(row("edge")).querySelector('.address-summary').dataset.up === "1"
            """)
        let card = try text(browser, "#targets .target[data-target=\"edge\"]")
        for name in ["nvgone0", "via lo"] { XCTAssertFalse(card.contains(name), "\(name) in the public card: \(card)") }
        let summary = try text(browser, "#targets .target[data-target=\"edge\"] .address-summary")
        XCTAssertTrue(summary.contains("1 of 2 addresses up · address 2: "), "the rows are numbered, not named: \(summary)")
        XCTAssertFalse(summary.contains("127.0.0.1"), summary)
        try checkLayout(browser, width: 1280, height: 900)
        try checkLayout(browser, width: 390, height: 844)
        let document = try ProcessRunner.curl("http://127.0.0.1:\(feedPort)/v1/public/status")
        XCTAssertEqual(document.0, 200)
        XCTAssertFalse(document.1.contains("nvgone0") || document.1.contains("\"lo\""), "interface names in the public document: \(document.1)")
        XCTAssertEqual(browser.exceptions, [], "the page threw")
    }
}
