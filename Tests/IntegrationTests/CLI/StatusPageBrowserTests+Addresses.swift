import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest

/// Per-address rows and matched pins in Chromium: a `connect_to` target whose second address refuses shows
/// "1 of 2 addresses up" naming that address on its card and both rows on its page, at 1280×900 and 390×844 without
/// horizontal overflow; the served chain marks the configured pin it matched, says "No configured pin matched" on a
/// mismatch and "No pins configured" without pins.
extension StatusPageBrowserTests {
    /// At a `width` × `height` viewport the page does not scroll sideways (a vertical scrollbar may take some of the
    /// width) and every node `selectors` names is inside it.
    func checkFits(_ browser: HeadlessBrowser, width: Int, height: Int, _ selectors: [String], _ what: String) throws {
        _ = try browser.step(["viewport": width, "height": height])
        try waitInPage(browser, "\(what) at \(width) px", """
            window.innerWidth === \(width) && document.documentElement.scrollWidth <= document.documentElement.clientWidth
            """)
        let list = String(decoding: try JSONSerialization.data(withJSONObject: selectors), as: UTF8.self)
        let hidden = try browser.step(["eval": """
            \(list).filter((selector) => { const node = document.querySelector(selector); const box = node && node.getBoundingClientRect();
              return !(box && box.width > 0 && box.height > 0 && box.left >= 0 && box.right <= document.documentElement.clientWidth); })
            """]) as? [String]
        XCTAssertEqual(hidden, [], "\(what): not fully visible at \(width)×\(height)")
        saveScreenshot(browser, "\(what)-\(width)x\(height)")
    }

    func testAddressRowsOnCardAndTargetPageAndTheMatchedPin() async throws {
        pki = try LoopbackPKI(in: directory, caName: "netvigil page CA", leaves: [("a", "/CN=127.0.0.1")])
        let pinA = try pki.pin(of: "a")
        let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let tlsPort = ProcessRunner.freePort(), httpPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        try pki.serve("a", nginx: nil)
        _ = try startNginx(tlsPort: tlsPort, httpPort: httpPort)   // 127.0.0.1 only: 127.0.0.2 refuses
        try await seedHistory(at: directory.path("state/netvigil.sqlite"), now: .now(), target: "edge")
        let ca = directory.path("ca.pem")
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
              - { name: edge, url: "https://127.0.0.1:\(tlsPort)/health", interval: 1s, timeout: 3s, addresses: all, connect_to: [127.0.0.1, 127.0.0.2],
                  tls: { pinning: publicKey, pins: [\(pinA), \(backup)], ca: [\(ca)] } }
              - { name: wrong-pin, url: "https://127.0.0.1:\(tlsPort)/health", interval: 1s, timeout: 3s,
                  tls: { pinning: publicKey, pins: [\(backup)], ca: [\(ca)] } }
              - { name: unpinned, url: "https://127.0.0.1:\(tlsPort)/health", interval: 1s, timeout: 3s, tls: { ca: [\(ca)] } }
            """)
        try startDaemon(config: config, feedPort: feedPort)
        let browser = try openBrowser()

        // The card: how many addresses are up, and which one failed and why.
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])
        try waitInPage(browser, "edge's address summary", """
            \(row("edge"))?.querySelector('.address-summary')?.dataset.up === "1"
              && \(row("wrong-pin"))?.dataset.pin === "mismatch" && \(row("unpinned"))?.dataset.status === "up"
            """)
        let summary = try text(browser, "#targets .target[data-target=\"edge\"] .address-summary")
        XCTAssertTrue(summary.contains("1 of 2 addresses up"), summary)
        XCTAssertTrue(summary.contains("127.0.0.2: connection refused"), summary)
        XCTAssertFalse(summary.contains("127.0.0.1"), "only the failing address is named: \(summary)")
        XCTAssertEqual(try browser.step(["eval": "!!\(row("unpinned")).querySelector('.address-summary')"]) as? Bool, false,
                       "one-address targets have no summary line")
        try checkLayout(browser, width: 1280, height: 900)
        try checkLayout(browser, width: 390, height: 844)
        for width in [1280, 390] {
            _ = try browser.step(["viewport": width, "height": width == 390 ? 844 : 900])
            try waitInPage(browser, "the card at \(width) px", "document.documentElement.clientWidth === \(width)")
            let box = try browser.step(["eval": """
                (() => { const box = \(row("edge")).querySelector('.address-summary .failing-address').getBoundingClientRect();
                  return box.width > 0 && box.left >= 0 && box.right <= \(width); })()
                """]) as? Bool
            XCTAssertEqual(box, true, "the failing address is on screen at \(width) px")
        }

        // The target page: both rows with status, reason, pin verdict, latency; the chain marks the matched pin.
        _ = try browser.step(["viewport": 1280, "height": 900])
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/targets/edge"])
        try waitInPage(browser, "edge's address rows and matched pin", """
            document.querySelectorAll('#addresses tr.address-row').length === 2 && !document.querySelector('#addresses-section').hidden
              && document.querySelector('#pin-match')?.dataset.verdict === "matched"
              && !!document.querySelector('#chain tr.certificate[data-pin-match="true"]')
            """)
        let rows = try browser.step(["eval": """
            [...document.querySelectorAll('#addresses tr.address-row')].map((tr) => [tr.dataset.address, tr.dataset.status, tr.innerText])
            """]) as? [[String]]
        XCTAssertEqual(rows?.map { $0[0] }, ["127.0.0.1", "127.0.0.2"])
        XCTAssertEqual(rows?.map { $0[1] }, ["up", "down"])
        if let rows, rows.count == 2 {
            for expected in ["up", "HTTP 200", "matched", " ms"] { XCTAssertTrue(rows[0][2].contains(expected), "\(expected) in \(rows[0][2])") }
            for expected in ["down", "connection refused"] { XCTAssertTrue(rows[1][2].contains(expected), "\(expected) in \(rows[1][2])") }
        }
        XCTAssertTrue(try text(browser, "#addresses-summary").contains("1 of 2 addresses up"))
        XCTAssertEqual(try browser.step(["eval": "[...document.querySelectorAll('#addresses th')].map((th) => th.textContent)"]) as? [String],
                       ["address", "status", "reason", "pin", "latency", "last checked"], "no interface column without per-path rows")
        let match = try text(browser, "#pin-match")
        XCTAssertTrue(match.contains("matched") && match.contains(pinA) && match.contains("certificate #0"), match)
        XCTAssertFalse(match.contains(backup), "the backup pin did not match: \(match)")
        XCTAssertTrue(try text(browser, "#chain tr.certificate[data-pin-match=\"true\"]").contains(pinA))
        try checkFits(browser, width: 1280, height: 900, ["#addresses tr.address-row[data-address=\"127.0.0.2\"] .reason", "#pin-match"], "target-page")
        try checkFits(browser, width: 390, height: 844, ["#addresses tr.address-row[data-address=\"127.0.0.2\"] .reason", "#addresses-summary",
                                                         "#addresses tr.address-row[data-address=\"127.0.0.1\"] .badge", "#pin-match"], "target-page")

        // A chain no configured pin matched, and a policy without pins.
        _ = try browser.step(["viewport": 1280, "height": 900])
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/targets/wrong-pin"])
        try waitInPage(browser, "the mismatch", "document.querySelector('#pin-match')?.dataset.verdict === 'mismatch'")
        XCTAssertTrue(try text(browser, "#pin-match").contains("No configured pin matched"))
        XCTAssertEqual(try browser.step(["eval": "document.querySelectorAll('#chain [data-pin-match]').length"]) as? Int, 0)
        XCTAssertTrue(try browser.step(["eval": "document.querySelector('#addresses-section').hidden"]) as? Bool ?? false,
                      "no address table for a one-address target")
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/targets/unpinned"])
        try waitInPage(browser, "no pins", "document.querySelector('#pin-match')?.dataset.verdict === 'not_pinned'")
        XCTAssertTrue(try text(browser, "#pin-match").contains("No pins configured"))

        XCTAssertEqual(browser.exceptions, [], "the page threw")
        XCTAssertEqual(browser.console.filter { !$0.contains("/favicon.ico") }, [], "console errors")
    }
}
