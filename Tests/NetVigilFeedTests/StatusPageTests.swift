import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `GET /`: the status page is open, self-contained, locked down by its CSP nonce; the data behind it stays closed.
/// (What it renders is checked in a real browser by `StatusPageBrowserTests`.)
final class StatusPageTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("netvigil-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func makeApp(token: String?) throws -> some ApplicationProtocol {
        let store = try Store.open(path: directory.appendingPathComponent("n.sqlite").path)
        return buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: token.map(Secret.init)),
            state: FeedState(store: store, startedAt: .now()),
            logger: Logger(label: "test"))
    }

    /// The nonce in `script-src 'nonce-…'` of a CSP header.
    private static func scriptNonce(_ policy: String?) throws -> String {
        let policy = try XCTUnwrap(policy)
        let range = try XCTUnwrap(policy.range(of: #"script-src 'nonce-([A-Za-z0-9+/=]+)'"#, options: .regularExpression))
        return String(policy[range].dropFirst("script-src 'nonce-".count).dropLast())
    }

    func testPageIsOpenWithATokenWhileTheDataStaysClosed() async throws {
        let app = try makeApp(token: "page-token")
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
                XCTAssertEqual(response.headers[.xContentTypeOptions], "nosniff")
                XCTAssertEqual(response.headers[.cacheControl], "no-store")
                let policy = try XCTUnwrap(response.headers[.contentSecurityPolicy])
                XCTAssertTrue(policy.hasPrefix("default-src 'none'; "), policy)
                XCTAssertTrue(policy.contains("connect-src 'self'"), policy)
                XCTAssertTrue(policy.contains("frame-ancestors 'none'"), policy)
                XCTAssertFalse(policy.contains("unsafe-inline"), policy)
                XCTAssertTrue(String(buffer: response.body).hasPrefix("<!DOCTYPE html>"))
            }
            for path in ["/v1/status", "/v1/events", "/v1/history", "/metrics"] {
                try await client.execute(uri: path, method: .get) { response in
                    XCTAssertEqual(response.status, .unauthorized, "\(path) must still need the token")
                }
            }
            try await client.execute(uri: "/v1/status", method: .get, headers: [.authorization: "Bearer page-token"]) { response in
                XCTAssertEqual(response.status, .ok)
            }
        }
    }

    func testEveryResponseCarriesItsOwnNonceOnStyleAndScript() async throws {
        let app = try makeApp(token: nil)
        try await app.test(.router) { client in
            var nonces: [String] = []
            for _ in 0..<2 {
                let nonce = try await client.execute(uri: "/", method: .get) { response -> String in
                    XCTAssertEqual(response.status, .ok)
                    let policy = response.headers[.contentSecurityPolicy]
                    let nonce = try Self.scriptNonce(policy)
                    XCTAssertEqual(Data(base64Encoded: nonce)?.count, 16, nonce)
                    XCTAssertTrue(policy?.contains("style-src 'nonce-\(nonce)'") == true, policy ?? "")
                    let html = String(buffer: response.body)
                    XCTAssertEqual(html.components(separatedBy: "<script nonce=\"\(nonce)\">").count, 2, "one script, with the nonce")
                    XCTAssertEqual(html.components(separatedBy: "<style nonce=\"\(nonce)\">").count, 2, "one style, with the nonce")
                    XCTAssertEqual(html.components(separatedBy: "<script").count, 2)
                    XCTAssertEqual(html.components(separatedBy: "<style").count, 2)
                    XCTAssertFalse(html.contains("{{"), "a placeholder was left in the page")
                    return nonce
                }
                nonces.append(nonce)
            }
            XCTAssertNotEqual(nonces[0], nonces[1])
        }
    }

    /// Nothing fetched from anywhere: no src/href attributes (but the empty inline icon, which stops the browser
    /// asking for /favicon.ico), no absolute URLs, no CSS imports, no inline event handlers; server strings reach the
    /// DOM only as text: no HTML sinks in the script.
    static func assertSelfContained(html page: String, script: String, file: StaticString = #filePath, line: UInt = #line) {
        let html = page.replacingOccurrences(of: #"<link rel="icon" href="data:,">"#, with: "")
        for forbidden in [" src=", " href=", "http://", "https://", "//cdn", "@import", "url("] {
            XCTAssertFalse(html.contains(forbidden), "the page must not reference \(forbidden)", file: file, line: line)
        }
        // No inline event-handler attributes (the CSP nonce would block them anyway).
        XCTAssertNil(html.range(of: #"<[^>]*\son[a-z]+\s*="#, options: .regularExpression), file: file, line: line)
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "srcdoc"] {
            XCTAssertFalse(script.contains(sink), "the script must not use \(sink)", file: file, line: line)
        }
    }

    func testPageIsSelfContainedAndInsertsNoHTML() throws {
        Self.assertSelfContained(html: StatusPage.html(nonce: "n"), script: StatusPage.script)
        // It reads the feed relative to where it is served, with the token header on both requests.
        XCTAssertTrue(StatusPage.script.contains("fetch(\"v1/status\""))
        XCTAssertTrue(StatusPage.script.contains("fetch(\"v1/events\""))
        XCTAssertTrue(StatusPage.script.contains("result.Authorization = \"Bearer \" + token"))
        XCTAssertTrue(StatusPage.script.contains("sessionStorage"))
    }
}

/// `GET /targets/NAME`: open like `/`, self-contained under the same CSP, while its data needs the token.
final class TargetPageTests: XCTestCase {
    func testTargetPageIsOpenSelfContainedAndInsertsNoHTML() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let app = buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: Secret("page-token")),
            state: FeedState(store: store), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            try await client.execute(uri: "/targets/api", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
                let policy = try XCTUnwrap(response.headers[.contentSecurityPolicy])
                XCTAssertFalse(policy.contains("unsafe-inline"), policy)
                XCTAssertFalse(String(buffer: response.body).contains("{{"), "a placeholder was left in the page")
            }
            for path in ["/targets/api/uptime", "/v1/targets/api", "/v1/targets/api/uptime", "/targets"] {
                try await client.execute(uri: path, method: .get) { response in
                    XCTAssertNotEqual(response.status, .ok, "\(path) is not open")
                }
            }
        }
        StatusPageTests.assertSelfContained(html: TargetPage.html(nonce: "n"), script: TargetPage.script)
    }

    /// Where target names are no secret (no token, or public mode), an unknown name gets a 404 HTML page that
    /// says so and links back to the overview, not the page with a raw API error; a configured name gets the page.
    func testUnknownTargetGetsA404PageWithAWayBack() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let states = TargetStates()
        states.configure(try AgentConfiguration(yaml: "targets:\n  - { name: api, url: \"https://api.test/\" }\n",
                                                file: "t.yml").targets.targets)
        for (token, publicStatus) in [(nil, false), ("page-token", true)] as [(String?, Bool)] {
            let app = buildApplication(
                configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0),
                                                 token: token.map(Secret.init), publicStatus: publicStatus),
                state: FeedState(store: store, targets: states), logger: Logger(label: "test"))
            try await app.test(.router) { client in
                try await client.execute(uri: "/targets/api", method: .get) { response in
                    XCTAssertEqual(response.status, .ok)
                    XCTAssertTrue(String(buffer: response.body).contains("id=\"phase-chart\""))
                }
                try await client.execute(uri: "/targets/no-such%3Cb%3E", method: .get) { response in
                    XCTAssertEqual(response.status, .notFound)
                    XCTAssertEqual(response.headers[.contentType], "text/html; charset=utf-8")
                    let policy = try XCTUnwrap(response.headers[.contentSecurityPolicy])
                    XCTAssertFalse(policy.contains("unsafe-inline"), policy)
                    let html = String(buffer: response.body)
                    XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"), html)
                    XCTAssertTrue(html.contains("No target named “no-such&lt;b&gt;”"), html)
                    XCTAssertFalse(html.contains("<b>"), "the name is escaped")
                    XCTAssertTrue(html.contains("<a id=\"overview-link\" href=\"../\">"), html)
                    XCTAssertFalse(html.contains("{{"), "a placeholder was left in the page")
                    XCTAssertFalse(html.contains("answered HTTP") || html.contains("{\"error\""), "no raw API message")
                }
            }
        }
        // Self-contained but for its two links back (it has no script to set them).
        StatusPageTests.assertSelfContained(
            html: TargetNotFoundPage.html(name: "x", nonce: "n").replacingOccurrences(of: #" href="../""#, with: ""), script: "")
    }
}
