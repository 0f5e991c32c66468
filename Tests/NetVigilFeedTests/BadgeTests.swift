import Foundation
import FoundationXML
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilProbeModel
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `/badge/NAME/status.svg`, `uptime-24h.svg` and `cert-days.svg`: well-formed SVG with the right words and colours.
final class BadgeTests: XCTestCase {
    private static let now = Timestamp.now()

    private static func record(_ outcome: ProbeOutcome, minutesAgo: Int64, certificateDays: Int64? = 40) -> ProbeRecord {
        let time = now.adding(.seconds(-60 * minutesAgo))
        let chain = certificateDays.map { days in
            [CertificateRecord(sha256: "00", pem: "", subject: "CN=api", issuer: "CN=ca", serial: "01",
                               notBefore: time.adding(.seconds(-86_400)), notAfter: time.adding(.seconds(days * 86_400 + 3_600)),
                               spkiPin: "sha256/AAAA")]
        } ?? []
        return ProbeRecord(time: time, target: "api", url: "https://api.example.com/health", outcome: outcome,
                           errorKind: outcome == .failed ? .connectRefused : nil, httpStatus: outcome == .ok ? 200 : nil,
                           trustVerdict: chain.isEmpty ? nil : .trusted, servedChain: chain)
    }

    /// Whether `svg` is well-formed XML, and its texts.
    private static func texts(_ svg: String) throws -> [String] {
        final class Collector: NSObject, XMLParserDelegate {
            var inText = false
            var texts: [String] = []
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) {
                inText = name == "text"
                if inText { texts.append("") }
            }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                inText = false
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) {
                if inText { texts[texts.count - 1] += string }
            }
        }
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "not well-formed: \(parser.parserError.map { "\($0)" } ?? "") \(svg)")
        return collector.texts
    }

    func testBadgesAreWellFormedEscapedAndSizedToTheirText() throws {
        let hostile = Badge(label: "a<b>&\"c'", message: "up", color: .brightGreen)
        XCTAssertEqual(try Self.texts(hostile.svg), ["a<b>&\"c'", "up"])
        XCTAssertFalse(hostile.svg.contains("<b>"))
        XCTAssertLessThan(Badge.textWidth("up"), Badge.textWidth("pending"))
        XCTAssertLessThan(Badge.textWidth("iiii"), Badge.textWidth("mmmm"))
    }

    func testWordsAndColoursFollowTheSnapshot() throws {
        let states = TargetStates()
        states.configure(try AgentConfiguration(yaml: "targets:\n  - { name: api, url: https://api.example.com/health }\n",
                                                file: "t.yml").targets.targets)
        let pending = try XCTUnwrap(states.snapshot("api", now: Self.now))
        XCTAssertEqual(Badge.status(pending), Badge(label: "api", message: "pending", color: .grey))
        XCTAssertEqual(Badge.uptime24h(pending), Badge(label: "uptime 24h", message: "no data", color: .grey))
        XCTAssertEqual(Badge.certificateDays(pending), Badge(label: "certificate", message: "no TLS result", color: .grey))

        for minute in (2...100).reversed() { states.record(Self.record(.ok, minutesAgo: Int64(minute), certificateDays: 10)) }
        states.record(Self.record(.failed, minutesAgo: 1, certificateDays: nil))
        let down = try XCTUnwrap(states.snapshot("api", now: Self.now))
        XCTAssertEqual(Badge.status(down), Badge(label: "api", message: "down", color: .red))
        XCTAssertEqual(Badge.uptime24h(down), Badge(label: "uptime 24h", message: "99.00%", color: .green))
        XCTAssertEqual(Badge.certificateDays(down), Badge(label: "certificate", message: "no TLS result", color: .grey))

        states.record(Self.record(.ok, minutesAgo: 0, certificateDays: 10))
        let up = try XCTUnwrap(states.snapshot("api", now: Self.now))
        XCTAssertEqual(Badge.status(up), Badge(label: "api", message: "up", color: .brightGreen))
        XCTAssertEqual(Badge.certificateDays(up), Badge(label: "certificate", message: "10 days", color: .orange))
    }

    func testRoutesServeSVGBehindTheTokenAnd404ForUnknownNames() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let states = TargetStates()
        states.configure(try AgentConfiguration(yaml: "targets:\n  - { name: api, url: https://api.example.com/health }\n",
                                                file: "t.yml").targets.targets)
        states.record(Self.record(.ok, minutesAgo: 0, certificateDays: 45))
        let app = buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: Secret("t0ken")),
            state: FeedState(store: store, targets: states), logger: Logger(label: "test"))
        let auth: HTTPFields = [.authorization: "Bearer t0ken"]
        try await app.test(.router) { client in
            try await client.execute(uri: "/badge/api/status.svg", method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized)
            }
            for (path, words) in [("status.svg", ["api", "up"]), ("uptime-24h.svg", ["uptime 24h", "100%"]),
                                  ("cert-days.svg", ["certificate", "45 days"])] {
                try await client.execute(uri: "/badge/api/\(path)", method: .get, headers: auth) { response in
                    XCTAssertEqual(response.status, .ok, path)
                    XCTAssertEqual(response.headers[.contentType], "image/svg+xml; charset=utf-8")
                    XCTAssertEqual(try Self.texts(String(buffer: response.body)), words)
                }
            }
            try await client.execute(uri: "/badge/nope/status.svg", method: .get, headers: auth) { response in
                XCTAssertEqual(response.status, .notFound)
            }
            try await client.execute(uri: "/badge/api/latency.svg", method: .get, headers: auth) { response in
                XCTAssertEqual(response.status, .notFound)
            }
        }
        withExtendedLifetime(directory) {}
    }
}
