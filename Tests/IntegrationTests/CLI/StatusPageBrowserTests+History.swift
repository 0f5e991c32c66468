import Foundation
import NetVigilProbeModel
import NetVigilStore
import NetVigilTestSupport
import XCTest

/// The redesigned overview and the target page in Chromium: a seeded 24 h history in the uptime bar, both viewports
/// without horizontal overflow, reasons in words, the target page, a badge, and the "disconnected" state.
extension StatusPageBrowserTests {
    private static let bucketMs: Int64 = 1_800_000

    /// Results of `target` 11 h (ok), 8 h (skipped) and 5 h (failed) ago; returns each bucket's start in ms.
    @discardableResult
    func seedHistory(at path: String, now: Timestamp, target: String = "api") async throws -> [String: Int64] {
        let store = try Store.open(path: path)
        var starts: [String: Int64] = [:]
        var probes: [ProbeRecord] = []
        for (outcome, hours) in [(ProbeOutcome.ok, 11), (.skipped, 8), (.failed, 5)] {
            let time = now.adding(.seconds(-3_600 * Int64(hours)))
            starts[outcome.rawValue] = time.milliseconds / Self.bucketMs * Self.bucketMs
            probes.append(ProbeRecord(time: time, target: target, outcome: outcome,
                                      errorKind: outcome == .failed ? .connectRefused : nil,
                                      timings: PhaseTimings(resolve: 1, connect: 2, tls: 5, processing: 3, transfer: 1, total: 12)))
        }
        try await store.write(WriteBatch(probes: probes))
        return starts
    }

    /// Whether the document fits the viewport's width, and every card's status and reason are on screen.
    func checkLayout(_ browser: HeadlessBrowser, width: Int, height: Int) throws {
        _ = try browser.step(["viewport": width, "height": height])
        try waitInPage(browser, "the layout at \(width) px", "document.documentElement.clientWidth === \(width)")
        let overflow = try browser.step(["eval": "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"]) as? [Int]
        XCTAssertEqual(overflow?.count, 2)
        if let overflow, overflow.count == 2 {
            XCTAssertLessThanOrEqual(overflow[0], overflow[1], "horizontal overflow at \(width)×\(height)")
        }
        let hidden = try browser.step(["eval": """
            [...document.querySelectorAll('#targets .target')].flatMap((card) => [".state", ".reason", ".bar"].map((part) => {
              const node = card.querySelector(part);
              const box = node && node.getBoundingClientRect();
              return box && box.width > 0 && box.height > 0 && box.left >= 0 && box.right <= \(width) ? null : card.dataset.target + " " + part;
            })).filter(Boolean)
            """]) as? [String]
        XCTAssertEqual(hidden, [], "parts not fully visible at \(width)×\(height)")
        saveScreenshot(browser, "overview-\(width)x\(height)")
    }

    func testOverviewShowsHistoryFitsPhoneAndDesktopAndTheTargetPageAndBadgeRender() async throws {
        pki = try LoopbackPKI(in: directory, caName: "netvigil page CA", leaves: [("a", "/CN=127.0.0.1")])
        let pinA = try pki.pin(of: "a")
        let tlsPort = ProcessRunner.freePort(), httpPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        let closedPort = ProcessRunner.freePort()
        try pki.serve("a", nginx: nil)
        _ = try startNginx(tlsPort: tlsPort, httpPort: httpPort)
        let refused = "refused-with-a-rather-long-name-that-must-wrap"
        let starts = try await seedHistory(at: directory.path("state/netvigil.sqlite"), now: .now())
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
              - { name: api, url: "https://127.0.0.1:\(tlsPort)/health", interval: 1s, timeout: 3s,
                  tls: { pinning: publicKey, pins: [\(pinA)], ca: [\(directory.path("ca.pem"))] } }
              - { name: \(refused), interval: 1s,
                  url: "https://127.0.0.1:\(closedPort)/a/very/long/path/that/must/not/widen/the/page/on/a/phone?query=1" }
            """)
        try startDaemon(config: config, feedPort: feedPort)
        let browser = try openBrowser()
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])
        try waitInPage(browser, "api up and the other down", """
            \(row("api"))?.dataset.status === "up" && \(row(refused))?.dataset.status === "down"
            """)
        XCTAssertEqual(try text(browser, "#targets .target[data-target=\"\(refused)\"] .reason"), "connection refused")
        XCTAssertTrue(try text(browser, "#targets .target[data-target=\"api\"] .state").contains("up"))

        // The seeded buckets: shape and colour by the worst outcome, counts in the title.
        try waitInPage(browser, "the uptime bar", "\(row("api"))?.querySelectorAll('.bucket').length === 48")
        for (outcome, colour) in [("ok", "rgb(26, 127, 55)"), ("failed", "rgb(207, 34, 46)"), ("skipped", "")] {
            let start = try XCTUnwrap(starts[outcome])
            let cell = try browser.step(["eval": """
                (() => { const cell = \(row("api")).querySelector('.bucket[data-start="\(start)"]');
                  if (!cell) return null; const style = getComputedStyle(cell);
                  return [cell.dataset.worst, style.backgroundColor, style.backgroundImage, cell.title]; })()
                """]) as? [String]
            XCTAssertEqual(cell?.first, outcome, "bucket at \(start): \(cell ?? [])")
            if outcome == "skipped" {
                XCTAssertTrue(cell?[2].contains("repeating-linear-gradient") == true, "skipped buckets are hatched: \(cell ?? [])")
            } else {
                XCTAssertEqual(cell?[1], colour, "\(outcome) bucket colour")
            }
            XCTAssertTrue(cell?[3].contains("1 \(outcome)") == true, "title counts: \(cell ?? [])")
        }
        XCTAssertTrue(try text(browser, "#targets .target[data-target=\"api\"] .bar-words").contains("1 bucket with failures"))
        // The current bucket follows the live results, before the next read of the buckets.
        try waitInPage(browser, "the current buckets", """
            \(row("api")).querySelectorAll('.bucket')[47].dataset.worst === "ok"
              && \(row(refused)).querySelectorAll('.bucket')[47].dataset.worst === "failed"
            """)

        try checkLayout(browser, width: 1280, height: 900)
        try checkLayout(browser, width: 390, height: 844)

        // The target page: chart, chain, results; then a badge.
        _ = try browser.step(["viewport": 1280, "height": 900])
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/targets/api"])
        try waitInPage(browser, "the target page", """
            document.querySelector('#target')?.dataset.status === "up" && document.querySelectorAll('#phase-chart rect').length > 0
              && document.querySelectorAll('#chain tr.certificate').length > 0 && document.querySelectorAll('#results tr.result').length > 0
              && document.querySelectorAll('#uptime .bucket').length === 48
            """)
        XCTAssertTrue(try text(browser, "#chain tr.certificate").contains("127.0.0.1"))
        XCTAssertTrue(try text(browser, "#pin-line").contains("matched"))
        XCTAssertLessThanOrEqual(try browser.step(["eval": "document.documentElement.scrollWidth - document.documentElement.clientWidth"]) as? Int ?? 1, 0)
        saveScreenshot(browser, "target-page")
        _ = try browser.step(["viewport": 390, "height": 844])
        try waitInPage(browser, "the target page on a phone", """
            document.documentElement.clientWidth === 390 && document.documentElement.scrollWidth <= 390
            """)
        // On a phone the chart is drawn for its width (labels keep a readable size), the served chain needs no
        // sideways scroll to show "not after", and the legend names only phases the probes had (no proxy here).
        try waitInPage(browser, "the phone layout of the chart, the chain and the legend", """
            [...document.querySelectorAll('#phase-chart text')].every((t) => t.getBoundingClientRect().height >= 9)
              && [...document.querySelectorAll('#chain tr.certificate td.not-after')].every((cell) => {
                   const box = cell.getBoundingClientRect(); return box.width > 0 && box.left >= 0 && box.right <= 390; })
              && document.querySelector('#chain').parentElement.scrollWidth <= document.querySelector('#chain').parentElement.clientWidth
              && document.querySelector('#phase-legend').textContent.includes("connect")
              && !document.querySelector('#phase-legend').textContent.includes("proxy")
            """)
        saveScreenshot(browser, "target-page-390")
        _ = try browser.step(["viewport": 1280, "height": 900])
        _ = try browser.step(["eval": "document.querySelector('[data-range=\"7d\"]').click(); true"])
        try waitInPage(browser, "the 7-day chart", "document.querySelectorAll('#uptime .bucket').length === 42")

        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/badge/api/status.svg"])
        try waitInPage(browser, "the badge", "document.documentElement.localName === 'svg' && document.documentElement.textContent.includes('up')")

        // The feed goes away: the overview says so instead of showing old data as live.
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])
        try waitInPage(browser, "the event stream", "document.getElementById('connection').className === 'live'")
        for process in processes where process.isRunning { kill(process.processIdentifier, SIGTERM) }
        try waitInPage(browser, "the disconnected state", """
            document.getElementById('connection').textContent.startsWith('disconnected, retrying') && document.body.classList.contains('stale')
            """, timeout: 20)
        XCTAssertEqual(browser.exceptions, [], "the page threw")
        XCTAssertEqual(browser.console.filter { !$0.contains("ERR_CONNECTION_REFUSED") && !$0.contains("Failed to fetch") && !$0.contains("/favicon.ico") }, [],
                       "console errors other than the feed going away (and the badge document's favicon request)")
    }
}
