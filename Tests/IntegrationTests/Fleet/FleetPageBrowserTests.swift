import Foundation
import NetVigilTestSupport
import XCTest

/// The hub's pages in a real browser against a large fleet: 500 agents in 25 sites probing 100 endpoints, written
/// straight into a real PostgreSQL 15 (no agent could ship that many in a test's time), read by a real
/// `netvigil fleet serve` and shown by headless Chromium at desktop and phone sizes.
///
/// The fleet holds one endpoint down in most sites, one failing from a single site (partial), one intercepted in
/// site sin1 (mitmproxy's key and issuer, pins not evaluated there and matched elsewhere), one skipped in one site,
/// two silent agents and one behind.
final class FleetPageBrowserTests: XCTestCase {
    static let chromium = "/usr/bin/chromium"
    static let sites = ["ams1", "fra1", "lon1", "par1", "mad1", "mil1", "waw1", "sto1", "hel1", "dub1", "nyc1", "iad1",
                        "ord1", "dfw1", "sfo1", "sea1", "yyz1", "gru1", "scl1", "jnb1", "dxb1", "bom1", "sin1", "syd1", "nrt1"]
    static let down = "https://login.example.net/health"
    static let partial = "https://payments-gateway-internal.eu-central.example.net/api/v2/health/readiness"
    static let intercepted = "https://api.example.net/v1/health"
    /// Agents 7 and 311 stopped an hour ago; agent 123 ships far behind.
    static let silentAgents = ["agent-007", "agent-311"]
    static let behindAgent = "agent-123"

    private var bed: FleetTestBed?
    private var hub: HubUnderTest?
    private var browser: HeadlessBrowser?
    /// Holds the browser's driver script for the test's duration.
    private var scratch: TemporaryDirectory?

    override func tearDown() {
        browser?.close()
        if let hub, let process = hub.process, process.isRunning {
            // SIGTERM, as an operator would, possibly while a status read the closed page left is still in flight
            // (a read of this fleet takes seconds in a debug build): the hub ends within its 5 s bound (gracefully, or
            // forced with 70 once 4.8 s have passed). Once, such a stop waited for the database pool without end.
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(8)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                XCTFail("the hub did not stop within 8 s of SIGTERM; log:\n\(hub.log.suffix(2_000))")
            } else {
                XCTAssertTrue([0, 70].contains(process.terminationStatus), "exit \(process.terminationStatus)")
            }
        }
        bed?.tearDown()
    }

    // MARK: Fixtures

    /// 500 agents (20 a site, round robin) and their latest result for each of 100 endpoints, with 24 h of history
    /// for the down and the intercepted endpoint; generated in SQL so that seeding takes a second.
    func seedFleet(_ postgres: FleetPostgres) throws {
        let sites = "ARRAY[" + Self.sites.map { "'\($0)'" }.joined(separator: ",") + "]"
        // One row per agent: its name, site, whether it is silent. Shared by the statements below.
        let agents = """
            SELECT i, 'agent-' || lpad(i::text, 3, '0') AS agent, (\(sites))[1 + (i - 1) % 25] AS site,
                   i IN (7, 311) AS silent
            FROM generate_series(1, 500) AS i
            """
        let url = """
            CASE e WHEN 13 THEN '\(Self.down)' WHEN 42 THEN '\(Self.partial)' WHEN 77 THEN '\(Self.intercepted)'
                   ELSE 'https://svc-' || lpad(e::text, 3, '0') || '.example.net/health' END
            """
        // What each agent sees of endpoint e: ok, a failure of a kind, or skipped.
        let state = """
            CASE WHEN e = 13 AND a.site NOT IN ('sfo1', 'sin1', 'syd1') THEN 'connectTimeout'
                 WHEN e = 42 AND a.site = 'par1' THEN 'connectRefused'
                 WHEN e = 77 AND a.site = 'sin1' THEN 'trust'
                 WHEN e = 90 AND a.site = 'jnb1' THEN 'skipped'
                 ELSE 'ok' END
            """
        let spki = "'sha256/' || encode(sha256(convert_to(CASE WHEN s.state = 'trust' THEN 'mitmproxy' ELSE 'origin' END || e, 'UTF8')), 'base64')"
        let statements = [
            """
            INSERT INTO agents (agent, version, labels, targets, config_digest, last_seen, shipping_lag_seconds)
            SELECT agent, '1.0.0', jsonb_build_object('site', site), '[]', 'seeded',
                   CASE WHEN silent THEN now() - interval '1 hour' ELSE now() - (i % 20) * interval '1 second' END,
                   CASE WHEN i = 123 THEN 900 ELSE 0.4 END
            FROM (\(agents)) AS a
            """,
            """
            INSERT INTO latest_results (agent, target, seq, time, outcome, error_kind, http_status, total_ms,
                                        trust_verdict, pin_verdict, url, served_spki, served_issuer)
            SELECT a.agent, 'svc-' || lpad(e::text, 3, '0'), 1000 + e,
                   CASE WHEN a.silent THEN now() - interval '1 hour' ELSE now() - ((a.i + e) % 30) * interval '1 second' END,
                   CASE s.state WHEN 'ok' THEN 'ok' WHEN 'skipped' THEN 'skipped' ELSE 'failed' END,
                   CASE WHEN s.state NOT IN ('ok', 'skipped') THEN s.state END,
                   CASE WHEN s.state = 'ok' THEN 200 END,
                   CASE s.state WHEN 'ok' THEN 12.5 + (a.i * 7 + e * 13) % 180 WHEN 'connectTimeout' THEN 3000
                                WHEN 'skipped' THEN NULL ELSE 4.2 END,
                   CASE s.state WHEN 'ok' THEN 'trusted' WHEN 'trust' THEN 'untrusted:self-signed certificate in chain' END,
                   CASE WHEN e % 5 <> 2 THEN 'not_pinned' WHEN s.state = 'ok' THEN 'matched' ELSE 'not_evaluated' END,
                   \(url),
                   CASE WHEN s.state IN ('ok', 'trust') THEN \(spki) END,
                   CASE s.state WHEN 'ok' THEN 'CN=Example Issuing CA R3,O=Example Trust'
                                WHEN 'trust' THEN 'CN=mitmproxy,O=mitmproxy' END
            FROM (\(agents)) AS a CROSS JOIN generate_series(1, 100) AS e
            CROSS JOIN LATERAL (SELECT \(state) AS state) AS s
            """,
            "SELECT netvigil_ensure_partitions((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date)",
            // A result every 20 minutes over 24 h: the interception began 6 h ago, the outage 2 h ago.
            """
            INSERT INTO probe_results (agent, seq, time, target, url, outcome, error_kind, http_status, total_ms,
                                       served_spki, served_issuer)
            SELECT a.agent, e * 1000 + k, now() - k * interval '20 minutes', 'svc-' || lpad(e::text, 3, '0'), \(url),
                   CASE WHEN failing THEN 'failed' ELSE 'ok' END,
                   CASE WHEN failing THEN (CASE e WHEN 13 THEN 'connectTimeout' ELSE 'trust' END) END,
                   CASE WHEN NOT failing THEN 200 END, 40, NULL, NULL
            FROM (\(agents)) AS a CROSS JOIN (VALUES (13), (77)) AS t(e) CROSS JOIN generate_series(1, 71) AS k
            CROSS JOIN LATERAL (SELECT (e = 13 AND k <= 6 AND a.site NOT IN ('sfo1', 'sin1', 'syd1'))
                                    OR (e = 77 AND k <= 18 AND a.site = 'sin1') AS failing) AS f
            """,
        ]
        for sql in statements {
            let result = try postgres.psql(sql)
            XCTAssertEqual(result.status, 0, "\(sql.prefix(80))…: \(result.stderr)")
            guard result.status == 0 else { throw HubTestError(message: "seeding failed: \(result.stderr)") }
        }
    }

    /// A migrated database with the seeded fleet and a hub serving it; fails (never skips) when any cannot start.
    func startHub() throws -> HubUnderTest {
        let bed = try FleetTestBed()
        self.bed = bed
        try bed.migrate()
        // The seeded heartbeats stay fresh for the whole test.
        let config = try bed.hubConfiguration(consensus: "silent_after: 30m")
        try seedFleet(bed.postgres)
        let hub = try HubUnderTest()
        self.hub = hub
        try hub.start(config: config)
        return hub
    }

    /// `GET /v1/fleet/status`, allowing for the first read of 50,000 results in a debug build (seconds).
    func status(of hub: HubUnderTest) throws -> [String: Any] {
        let result = try ProcessRunner.run(["-s", "-m", "60", hub.feed + "/v1/fleet/status"],
                                           executable: URL(fileURLWithPath: "/usr/bin/curl"), timeout: 70)
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        guard result.status == 0, let object else {
            throw HubTestError(message: "GET /v1/fleet/status: curl \(result.status) \(result.stderr) \(result.stdout.prefix(300))")
        }
        return object
    }

    func openBrowser() throws -> HeadlessBrowser {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: Self.chromium),
                      "the fleet page tests need \(Self.chromium) (apt-get install --no-install-recommends chromium)")
        let directory = try TemporaryDirectory()
        scratch = directory
        let opened = try HeadlessBrowser(driver: try directory.write("devtools.py", HeadlessBrowser.driver),
                                         chromium: Self.chromium)
        browser = opened
        return opened
    }

    /// Waits in the page until `expression` is truthy; fails with the page's text, a screenshot and the hub log.
    func waitInPage(_ browser: HeadlessBrowser, _ what: String, _ expression: String, timeout: TimeInterval = 60,
                    file: StaticString = #filePath, line: UInt = #line) throws {
        let value = try browser.step(["waitFor": expression, "timeout": timeout], timeout: timeout + 30)
        guard !(value as? Bool ?? false) else { return }
        let page = (try? browser.step(["eval": "document.body.innerText"])) as? String ?? "?"
        let shot = saveScreenshot(browser, "failed-\(what)")
        XCTFail("timed out after \(timeout) s waiting for \(what) (screenshot: \(shot ?? "none")).\nPage text:\n"
                + "\(page.prefix(3_000))\nHub log:\n\(hub?.log.suffix(3_000) ?? "")", file: file, line: line)
        throw HubTestError(message: "page: \(what)")
    }

    func eval<T>(_ browser: HeadlessBrowser, _ expression: String, as type: T.Type = T.self) throws -> T? {
        try browser.step(["eval": expression]) as? T
    }

    func text(_ browser: HeadlessBrowser, _ selector: String) throws -> String {
        try eval(browser, "(document.querySelector(\(jsString(selector))) || {}).innerText || ''") ?? ""
    }

    /// `text` as a JavaScript string literal (JSON's quoting).
    func jsString(_ text: String) -> String {
        let array = (try? JSONSerialization.data(withJSONObject: [text])) ?? Data("[\"\"]".utf8)
        return String(String(decoding: array, as: UTF8.self).dropFirst().dropLast())
    }

    /// Saves the viewport as `artefacts/FleetPageBrowserTests-<what>.png` (where the status page tests put theirs).
    @discardableResult
    func saveScreenshot(_ browser: HeadlessBrowser, _ what: String) -> String? {
        let slug = ("FleetPageBrowserTests-" + what).map { $0.isLetter || $0.isNumber ? $0 : "-" }
        try? FileManager.default.createDirectory(at: StatusPageBrowserTests.artefacts, withIntermediateDirectories: true)
        let path = StatusPageBrowserTests.artefacts.appendingPathComponent(String(slug.prefix(120)) + ".png").path
        return (try? browser.step(["screenshot": path])) as? String
    }

    /// Opens `path` at `width`×`height` and waits until the page rendered its data (`ready`); then asserts the
    /// document is no wider than the viewport and saves a screenshot.
    func open(_ browser: HeadlessBrowser, _ path: String, named name: String, width: Int, height: Int, ready: String,
              file: StaticString = #filePath, line: UInt = #line) throws {
        _ = try browser.step(["viewport": width, "height": height])
        _ = try browser.step(["navigate": hub!.feed + path])
        try waitInPage(browser, "\(name) at \(width) px", """
            window.innerWidth === \(width) && !document.getElementById('content').hidden && (\(ready))
            """, file: file, line: line)
        let widths = try eval(browser, "[document.documentElement.scrollWidth, window.innerWidth]", as: [Int].self) ?? []
        XCTAssertEqual(widths.count, 2, file: file, line: line)
        if widths.count == 2 {
            XCTAssertLessThanOrEqual(widths[0], widths[1], "\(name): horizontal overflow at \(width)×\(height)",
                                     file: file, line: line)
        }
        saveScreenshot(browser, "\(name)-\(width)x\(height)")
    }

    func assertNoConsoleErrors(_ browser: HeadlessBrowser, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(browser.exceptions, [], "the page threw", file: file, line: line)
        XCTAssertEqual(browser.console.filter { !$0.contains("/favicon.ico") }, [], "console errors", file: file, line: line)
    }

    // MARK: Scenarios

    func testOverviewEndpointAndAgentsPagesShowALargeFleetOnDesktopAndPhone() throws {
        let hub = try startHub()
        let summary = try XCTUnwrap(try status(of: hub)["summary"] as? [String: Any])
        XCTAssertEqual(summary["endpoints"] as? Int, 100)
        XCTAssertEqual(summary["down"] as? Int, 1)
        XCTAssertEqual(summary["partial"] as? Int, 2)
        XCTAssertEqual(summary["interceptions"] as? Int, 1)
        let browser = try openBrowser()

        for (width, height) in [(1280, 900), (390, 844)] {
            // The overview: the summary, every endpoint worst first with its verdict, the interception's key group
            // and the grid, one square per site for each endpoint.
            try open(browser, "/", named: "overview", width: width, height: height, ready: """
                document.querySelectorAll('#endpoints tbody tr').length === 100
                  && document.querySelectorAll('#grid .grid-line').length === 100
                """)
            let summaryText = try text(browser, "#summary")
            for expected in ["100 endpoints: 97 up, 2 partial, 1 down", "500 agents", "2 silent, 1 behind"] {
                XCTAssertTrue(summaryText.contains(expected), "the summary says \(expected): \(summaryText)")
            }
            XCTAssertTrue(try text(browser, "#alerts").contains("1 interception"))
            let verdicts = try eval(browser, """
                [...document.querySelectorAll('#endpoints tbody tr')].map((row) => row.querySelector('.badge').textContent)
                """, as: [String].self) ?? []
            XCTAssertEqual(Array(verdicts.prefix(3)), ["down", "partial", "partial"], "worst first")
            XCTAssertEqual(verdicts.filter { $0 == "up" }.count, 97)
            let firstRow = try text(browser, "#endpoints tbody tr:first-child")
            XCTAssertTrue(firstRow.contains("login.example.net"), firstRow)
            let interception = try eval(browser, """
                [...document.querySelectorAll('#endpoints .keys li')].filter((li) => li.textContent.includes('interception'))
                  .map((li) => li.innerText)
                """, as: [String].self) ?? []
            XCTAssertEqual(interception.count, 1, "one key group is an interception: \(interception)")
            for expected in ["site sin1", "CN=mitmproxy,O=mitmproxy", "pins not evaluated", "20 agents"] {
                XCTAssertTrue(interception.first?.contains(expected) == true, "the interception names \(expected): \(interception)")
            }
            // The grid: 25 squares a line, each large enough to see and inside the viewport; the down endpoint
            // first, red in the 22 sites where it fails.
            let grid = try eval(browser, """
                [...document.querySelectorAll('#grid .grid-line')].map((line) => {
                  const cells = [...line.querySelectorAll('.grid-row .cell')];
                  const visible = cells.every((cell) => { const box = cell.getBoundingClientRect();
                    return box.width >= 8 && box.height >= 8 && box.left >= 0 && box.right <= window.innerWidth; });
                  return [cells.length, visible ? 1 : 0, cells.filter((cell) => cell.classList.contains('down')).length];
                })
                """, as: [[Int]].self) ?? []
            XCTAssertEqual(grid.count, 100)
            XCTAssertEqual(grid.filter { $0.first != 25 }.count, 0, "one square per site on every line")
            XCTAssertEqual(grid.filter { $0.count > 1 && $0[1] != 1 }.count, 0, "squares small or off screen at \(width) px")
            XCTAssertEqual(grid.first?.last, 22, "the down endpoint's line is first, red in 22 sites")
            XCTAssertEqual(try eval(browser, """
                document.querySelector('#grid .cell.down[aria-label^="sin1"]') !== null
                  && [...document.querySelectorAll('#grid .grid-line')].some((line) =>
                       line.textContent.includes('api.example.net') && line.querySelectorAll('.cell.down').length === 1)
                """, as: Bool.self), true, "the intercepted endpoint's line marks sin1")
            _ = try eval(browser, "document.getElementById('grid').scrollIntoView(); true", as: Bool.self)
            saveScreenshot(browser, "overview-grid-\(width)x\(height)")

            // The intercepted endpoint: its verdict, both key groups, uptime by site, every agent's result.
            try open(browser, "/endpoint?e=" + (Self.intercepted.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                     named: "endpoint", width: width, height: height, ready: """
                document.querySelectorAll('#results tbody tr').length === 500
                  && document.querySelectorAll('#uptime tbody tr').length === 25
                """)
            XCTAssertEqual(try text(browser, "#endpoint"), Self.intercepted)
            let verdict = try text(browser, "#verdict")
            for expected in ["partial", "478 up, 20 down", "2 silent", "down in sin1"] {
                XCTAssertTrue(verdict.contains(expected), "the verdict line says \(expected): \(verdict)")
            }
            let keys = try eval(browser, "[...document.querySelectorAll('#keys li')].map((li) => li.innerText)", as: [String].self) ?? []
            XCTAssertEqual(keys.count, 2, "two key groups: \(keys)")
            XCTAssertTrue(keys.contains { $0.contains("interception") && $0.contains("site sin1") && $0.contains("CN=mitmproxy,O=mitmproxy") },
                          "the interception's group: \(keys)")
            XCTAssertTrue(keys.contains { $0.contains("pins matched") && $0.contains("24 sites") && !$0.contains("interception") },
                          "the majority's group: \(keys)")
            let uptime = try eval(browser, """
                Object.fromEntries([...document.querySelectorAll('#uptime tbody tr')].map((row) =>
                  [row.cells[0].textContent, row.cells[2].textContent]))
                """, as: [String: String].self) ?? [:]
            XCTAssertEqual(try text(browser, "#uptime tbody tr:first-child td:first-child"), "sin1", "the worst site first")
            XCTAssertEqual(uptime["ams1"], "100 %")
            XCTAssertEqual(uptime["sin1"], "74.6 %", "53 of 71 results ok in the day: \(uptime)")
            let sin1 = try eval(browser, """
                [...document.querySelectorAll('#results tbody tr')].filter((row) => row.cells[1].textContent === 'sin1')
                  .map((row) => row.cells[2].innerText)
                """, as: [String].self) ?? []
            XCTAssertEqual(sin1.count, 20)
            XCTAssertTrue(sin1.allSatisfy { $0.contains("down") && $0.contains("certificate not trusted") }, "\(sin1.prefix(2))")
            if width == 1280 {
                XCTAssertTrue(try text(browser, "#results tbody").contains("not evaluated"))
            }

            // The agents: silent first, then the one behind, then the healthy by site.
            try open(browser, "/agents", named: "agents", width: width, height: height, ready: """
                document.querySelectorAll('#agents tbody tr').length === 500
                """)
            let agentsSummary = try text(browser, "#summary")
            XCTAssertTrue(agentsSummary.contains("500 agents: 497 healthy, 2 silent, 1 behind"), agentsSummary)
            let firstRows = try eval(browser, """
                [...document.querySelectorAll('#agents tbody tr')].slice(0, 4).map((row) => row.cells[0].textContent + ' ' + row.cells[2].textContent)
                """, as: [String].self) ?? []
            let seen = try eval(browser, """
                [...document.querySelectorAll('#agents tbody tr')].slice(0, 4).map((row) => row.cells[3].textContent)
                """, as: [String].self) ?? []
            XCTAssertEqual(seen.first?.hasPrefix("1 h"), true, "a silent agent's last heartbeat: \(seen)")
            XCTAssertTrue(seen.last.map { $0.hasSuffix(" ago") && !$0.hasPrefix("1 h") } == true,
                          "a healthy agent's last heartbeat: \(seen)")
            XCTAssertEqual(Set(firstRows.prefix(2)), Set(Self.silentAgents.map { "\($0) silent" }), "silent agents first: \(firstRows)")
            XCTAssertEqual(firstRows.dropFirst(2).first, "\(Self.behindAgent) behind", "\(firstRows)")
            XCTAssertEqual(firstRows.last?.hasSuffix(" ok"), true, "\(firstRows)")
            assertNoConsoleErrors(browser)
        }
    }
}
