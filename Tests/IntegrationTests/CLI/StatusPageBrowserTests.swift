import Foundation
import NetVigilTestSupport
import XCTest

/// The status page in a real browser: Debian's headless Chromium loads `/` from the running daemon, which probes
/// real nginx; the test reads the rendered DOM. A failed wait saves a screenshot under ``artefacts``.
///
/// Chromium is driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`) rather than with
/// `--dump-dom --virtual-time-budget`: the page keeps `/v1/events` open, and virtual time never advances while a
/// request is pending, so a one-shot dump would wait forever. The pipe lets the test wait for a state in real time,
/// change nginx's key and watch the same page update from the event stream.
final class StatusPageBrowserTests: XCTestCase {
    static let chromium = "/usr/bin/chromium"

    var directory: TemporaryDirectory!
    var processes: [Process] = []
    /// `b`, the MITM leaf, has another key than the pinned `a`.
    var pki: LoopbackPKI!
    var nginxes: [NginxProcess] = []
    var browser: HeadlessBrowser?

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            throw XCTSkip("chromium is not installed (apt-get install --no-install-recommends chromium): the status page browser tests are skipped")
        }
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        browser?.close()
        browser = nil
        for nginx in nginxes { nginx.stop() }
        nginxes.removeAll()
        // SIGTERM first: nginx's master then stops its workers too.
        for process in processes.reversed() { ProcessRunner.stop(process, grace: 5) }
        processes.removeAll()
    }

    // MARK: Fixtures

    /// nginx with TLS on `tlsPort` (`/health`) and plain HTTP on `httpPort`, where `/generate_204` answers 200 with a
    /// login page: a captive portal.
    func startNginx(tlsPort: Int, httpPort: Int) throws -> NginxProcess {
        let nginx = try NginxProcess(prefix: directory.path("nginx"), servers: """
                server {
                    listen 127.0.0.1:\(tlsPort) ssl;
                    ssl_certificate \(directory.path("served.pem"));
                    ssl_certificate_key \(directory.path("served.key"));
                    location = /health { default_type application/json; return 200 '{"status":"UP"}'; }
                }
                server {
                    listen 127.0.0.1:\(httpPort);
                    location = /generate_204 { default_type text/html; return 200 '<a>log in</a>'; }
                }
            """, ports: [tlsPort, httpPort])
        nginxes.append(nginx)
        return nginx
    }

    func startDaemon(config: String, feedPort: Int, environment: [String: String] = [:]) throws {
        let log = directory.path("daemon.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        let process = Process()
        process.executableURL = ProcessRunner.binary
        process.arguments = ["run", "--config", config]
        process.currentDirectoryURL = directory.url
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        processes.append(process)
        try waitUntil("the feed to answer", timeout: 20) {
            (try? ProcessRunner.curl("http://127.0.0.1:\(feedPort)/healthz"))?.0 == 200
        }
    }

    func daemonLog() -> String {
        String((try? String(contentsOfFile: directory.path("daemon.log"), encoding: .utf8))?.suffix(3_000) ?? "")
    }

    func waitUntil(_ what: String, timeout: TimeInterval, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTFail("timed out after \(timeout) s waiting for \(what); daemon log tail:\n\(daemonLog())")
        throw XCTSkip("aborted: \(what)")
    }

    func openBrowser() throws -> HeadlessBrowser {
        let driver = try directory.write("devtools.py", HeadlessBrowser.driver)
        let opened = try HeadlessBrowser(driver: driver, chromium: Self.chromium)
        browser = opened
        return opened
    }

    /// Waits in the page until `expression` is truthy; fails with the page's state and the daemon log otherwise.
    func waitInPage(_ browser: HeadlessBrowser, _ what: String, _ expression: String, timeout: TimeInterval = 15) throws {
        let value = try browser.step(["waitFor": expression, "timeout": timeout])
        if !(value as? Bool ?? false) {
            let page = try? browser.step(["eval": "document.body.innerText"])
            let shot = saveScreenshot(browser, what)
            XCTFail("page: timed out after \(timeout) s waiting for \(what) (screenshot: \(shot ?? "none")).\nPage text:\n\(page ?? "?")\nDaemon log:\n\(daemonLog())")
            throw XCTSkip("aborted: \(what)")
        }
    }

    /// Where failed browser tests leave screenshots: `$NETVIGIL_TEST_ARTEFACTS`, else `test-artefacts` next to the binary.
    static var artefacts: URL {
        if let path = ProcessInfo.processInfo.environment["NETVIGIL_TEST_ARTEFACTS"] { return URL(fileURLWithPath: path) }
        return ProcessRunner.binary.deletingLastPathComponent().appendingPathComponent("test-artefacts")
    }

    /// Saves the page as `artefacts/<test>-<what>.png`; returns the path, nil when it could not.
    @discardableResult
    func saveScreenshot(_ browser: HeadlessBrowser, _ what: String) -> String? {
        let slug = (name + "-" + what).map { $0.isLetter || $0.isNumber ? $0 : "-" }
        try? FileManager.default.createDirectory(at: Self.artefacts, withIntermediateDirectories: true)
        let path = Self.artefacts.appendingPathComponent(String(slug.prefix(120)) + ".png").path
        return (try? browser.step(["screenshot": path])) as? String
    }

    func text(_ browser: HeadlessBrowser, _ selector: String) throws -> String {
        let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [selector]), as: UTF8.self).dropFirst().dropLast()
        return try browser.step(["eval": "(document.querySelector(\(quoted)) || {}).textContent || ''"]) as? String ?? ""
    }

    func row(_ name: String) -> String { "document.querySelector('#targets .target[data-target=\"\(name)\"]')" }

    // MARK: Scenarios

    func testPageShowsTargetsReachabilityAndPinMismatchAndFollowsTheEventStream() throws {
        pki = try LoopbackPKI(in: directory, caName: "netvigil page CA",
                                leaves: [("a", "/CN=127.0.0.1"), ("b", "/O=<i>mitm<i>/CN=127.0.0.1")])
        let pinA = try pki.pin(of: "a")
        let backup = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let tlsPort = ProcessRunner.freePort(), httpPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        try pki.serve("b", nginx: nil)
        let nginx = try startNginx(tlsPort: tlsPort, httpPort: httpPort)
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            targets:
              - name: api
                url: https://127.0.0.1:\(tlsPort)/health
                interval: 1s
                timeout: 3s
                tls: { pinning: publicKey, pins: [\(pinA), \(backup)], ca: [\(directory.path("ca.pem"))] }
              - name: plain
                url: https://127.0.0.1:\(tlsPort)/health
                interval: 1s
                tls: { ca: [\(directory.path("ca.pem"))] }
            alerts:
              rules: { pin_mismatch: { threshold: 1 } }
            """)
        try startDaemon(config: config, feedPort: feedPort)
        let browser = try openBrowser()
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])

        // The served key does not match the pins: the row shows the mismatch and the firing alert.
        try waitInPage(browser, "api to show a firing pin mismatch", """
            \(row("api"))?.dataset.pin === "mismatch" && \(row("api")).dataset.status === "down"
              && !!\(row("api")).querySelector('.alert[data-kind="pin_mismatch"]')
            """)
        try waitInPage(browser, "plain to be up", "\(row("plain"))?.dataset.status === 'up'")
        let api = try text(browser, "#targets .target[data-target=\"api\"]")
        for expected in ["api", "https://127.0.0.1:\(tlsPort)/health", "down", "TLSv1.", "untrusted", "mismatch", "pin_mismatch", "29"] {
            XCTAssertTrue(api.contains(expected), "the api row shows \(expected): \(api)")
        }
        let plain = try text(browser, "#targets .target[data-target=\"plain\"]")
        for expected in ["up", "not_pinned", "trusted", "200", "TLSv1."] {
            XCTAssertTrue(plain.contains(expected), "the plain row shows \(expected): \(plain)")
        }
        let timings = try browser.step(["eval": """
            ["total", "connect", "tls"].map((p) => \(row("plain")).querySelector(".phase-" + p).textContent)
            """]) as? [String] ?? []
        XCTAssertEqual(timings.count, 3)
        XCTAssertTrue(timings.allSatisfy { Double($0) != nil }, "phase cells hold milliseconds: \(timings)")
        XCTAssertTrue(try text(browser, "#targets .target[data-target=\"plain\"] .age").hasSuffix("s ago"))

        // The mismatch message names the MITM's subject as text: its markup creates no element.
        let detail = try text(browser, "#targets .detail[data-detail-of=\"api\"]")
        XCTAssertTrue(detail.contains("pinning failure"), detail)
        XCTAssertTrue(detail.contains("mitm") && detail.contains("<i"), "the subject is shown literally: \(detail)")
        XCTAssertEqual(try browser.step(["eval": """
            document.querySelector('#targets .detail[data-detail-of="api"] pre').children.length
            """]) as? Int, 0, "server text was parsed as HTML")

        // Reachability: the default route, with its status, flags and interface.
        try waitInPage(browser, "the default reachability row", "!!document.querySelector('#reachability tr[data-target=\"default\"]')")
        let reachability = try text(browser, "#reachability tr[data-target=\"default\"]")
        XCTAssertTrue(reachability.hasPrefix("default"), reachability)
        XCTAssertNotNil(reachability.range(of: "ReachableVia|NotReachable|Unknown", options: .regularExpression), reachability)

        // Back to the pinned key: the same page turns matched/up from the event stream, no reload.
        try waitInPage(browser, "the event stream", "document.getElementById('connection').className === 'live'")
        _ = try browser.step(["eval": "window.__samePage = true"])
        try pki.serve("a", nginx: nginx)
        try waitInPage(browser, "api to recover in place", """
            window.__samePage === true && \(row("api"))?.dataset.pin === "matched" && \(row("api")).dataset.status === "up"
              && !\(row("api")).querySelector('.alert')
            """, timeout: 10)

        XCTAssertEqual(browser.exceptions, [], "the page threw")
        XCTAssertEqual(browser.console, [], "console errors (a CSP violation shows here)")
    }

    func testPageAsksForTheTokenUsesItForTheStreamAndShowsACaptivePortal() throws {
        pki = try LoopbackPKI(in: directory, caName: "netvigil page CA",
                                leaves: [("a", "/CN=127.0.0.1"), ("b", "/O=<i>mitm<i>/CN=127.0.0.1")])
        let pinA = try pki.pin(of: "a")
        let tlsPort = ProcessRunner.freePort(), httpPort = ProcessRunner.freePort(), feedPort = ProcessRunner.freePort()
        let token = "page-\(UUID().uuidString)"
        try pki.serve("a", nginx: nil)
        let nginx = try startNginx(tlsPort: tlsPort, httpPort: httpPort)
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort), token: \(token) }
            reachability:
              captive_portal: { url: "http://127.0.0.1:\(httpPort)/generate_204", expect_status: 204, interval: 1s, timeout: 2s }
            targets:
              - name: api
                url: https://127.0.0.1:\(tlsPort)/health
                interval: 1s
                timeout: 3s
                tls: { pinning: publicKey, pins: [\(pinA)], ca: [\(directory.path("ca.pem"))] }
            """)
        try startDaemon(config: config, feedPort: feedPort)
        XCTAssertEqual(try ProcessRunner.curl("http://127.0.0.1:\(feedPort)/v1/status").0, 401, "the data needs the token")
        XCTAssertEqual(try ProcessRunner.curl("http://127.0.0.1:\(feedPort)/").0, 200, "the page does not")

        let browser = try openBrowser()
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])
        try waitInPage(browser, "the token form", "!document.getElementById('token-form').hidden")
        XCTAssertEqual(try browser.step(["eval": "document.getElementById('content').hidden"]) as? Bool, true)
        XCTAssertEqual(try browser.step(["eval": "document.querySelectorAll('#targets .target').length"]) as? Int, 0, "no target cards")

        func submit(_ value: String) throws {
            let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [value]), as: UTF8.self).dropFirst().dropLast()
            _ = try browser.step(["eval": """
                document.getElementById('token-input').value = \(quoted);
                document.getElementById('token-form').requestSubmit(); true
                """])
        }
        try submit("wrong-token")
        try waitInPage(browser, "the refusal", """
            !document.getElementById('token-form').hidden
              && document.getElementById('token-message').textContent.includes('refused')
            """)
        XCTAssertNil(try browser.step(["eval": "sessionStorage.getItem('netvigil.token')"]) as? String)

        try submit(token)
        try waitInPage(browser, "api to be up with the token", "\(row("api"))?.dataset.status === 'up'")
        XCTAssertEqual(try browser.step(["eval": "sessionStorage.getItem('netvigil.token')"]) as? String, token)
        try waitInPage(browser, "the authenticated event stream", "document.getElementById('connection').className === 'live'")

        // The captive-portal check gets 200 instead of 204: default carries the portal badge and the banner shows.
        try waitInPage(browser, "the portal state", """
            document.querySelector('#reachability tr[data-target="default"]')?.dataset.portal === "true"
              && !document.getElementById('banner').hidden
            """)
        XCTAssertTrue(try text(browser, "#reachability tr[data-target=\"default\"] td.status").contains("portal"))
        XCTAssertTrue(try text(browser, "#captive-portal").contains("HTTP 200"))

        // A key change reaches the page through the token-authenticated stream.
        _ = try browser.step(["eval": "window.__samePage = true"])
        try pki.serve("b", nginx: nginx)
        try waitInPage(browser, "the mismatch in place", "window.__samePage === true && \(row("api"))?.dataset.pin === 'mismatch'",
                       timeout: 10)

        // A reload in the same tab keeps the token (sessionStorage): no form.
        _ = try browser.step(["navigate": "http://127.0.0.1:\(feedPort)/"])
        try waitInPage(browser, "the reloaded page with data", "\(row("api"))?.dataset.pin === 'mismatch' && document.getElementById('token-form').hidden")

        XCTAssertEqual(browser.exceptions, [], "the page threw")
        XCTAssertEqual(browser.console.filter { !$0.contains("401") }, [], "console errors other than the expected 401s")
    }
}
