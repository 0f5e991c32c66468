import Foundation
import NetVigilTestSupport
import Synchronization
import XCTest
@testable import NetVigilProber

/// Redirects never hand credentials to another origin and never downgrade https:// to http:// unless allowed
/// (real HTTPS servers on loopback; the plain-HTTP listener counts every connection it accepts).
final class RedirectCredentialTests: ProbeTestCase {
    private static let credentials: [(name: String, value: String)] = [
        ("Authorization", "Basic SECRET-basic"), ("Cookie", "session=SECRET-cookie"), ("X-Api-Key", "SECRET-api-key"),
        ("Proxy-Authorization", "Basic SECRET-proxy"),
    ]

    private var tls: RedirectingTLSServer!

    override func setUpWithError() throws {
        tls = try RedirectingTLSServer(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
    }

    override func tearDown() {
        tls?.stop()
        tls = nil
    }

    private func probeRedirect(to location: String, host: String = "127.0.0.1", allowDowngrade: Bool = false,
                               keepCredentials: Bool = false) async throws -> ProbeResult {
        var configuration = try configuration(timeout: 5)
        configuration.allowsDowngradeRedirects = allowDowngrade
        configuration.sendsCredentialsOnRedirect = keepCredentials
        let encoded = location.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? location
        let request = try RequestSerializer(version: "test").request(
            method: .GET, url: "https://\(host):\(tls.port)/go?to=\(encoded)", headers: Self.credentials)
        return await Prober().probe(request, configuration: configuration)
    }

    private func assertNoCredentials(_ head: String?, file: StaticString = #filePath, line: UInt = #line) {
        guard let head else { return XCTFail("the next hop got no request", file: file, line: line) }
        XCTAssertFalse(head.contains("SECRET"), head, file: file, line: line)
        for header in Self.credentials {
            XCTAssertFalse(head.lowercased().contains(header.name.lowercased() + ":"), head, file: file, line: line)
        }
        XCTAssertTrue(head.contains("User-Agent: netvigil/test"), head, file: file, line: line)
    }

    private func assertAllCredentials(_ head: String?, file: StaticString = #filePath, line: UInt = #line) {
        guard let head else { return XCTFail("the next hop got no request", file: file, line: line) }
        for header in Self.credentials {
            XCTAssertTrue(head.contains("\(header.name): \(header.value)"), head, file: file, line: line)
        }
    }

    func testDowngradeIsNotFollowedAndTheHTTPListenerGetsNoConnection() async throws {
        let accepted = Atomic<Int>(0)
        let plain = try HostileServer(readRequest: false) { fd in
            accepted.add(1, ordering: .relaxed)
            HostileServer.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        }
        defer { plain.stop() }
        let result = try await probeRedirect(to: "http://127.0.0.1:\(plain.port)/final")
        XCTAssertEqual(result.error?.kind, .insecureRedirect, "\(String(describing: result.error))")
        XCTAssertEqual(result.outcome, .failed)
        let message = result.error?.message ?? ""
        XCTAssertTrue(message.contains("from https://127.0.0.1:\(tls.port)/go") && message.contains("to http://127.0.0.1:\(plain.port)/final"), message)
        XCTAssertTrue(result.redirects.isEmpty)
        try await Task.sleep(for: .milliseconds(200))
        XCTAssertEqual(accepted.load(ordering: .relaxed), 0, "the http:// listener must not even be connected to")
        assertAllCredentials(tls.requests(to: "/go").first)  // the configured origin got them (over TLS)
    }

    func testAllowedDowngradeIsFollowedWithoutCredentials() async throws {
        let received = Mutex<[String]>([])
        let plain = try HostileServer(readRequest: false) { fd in
            var buffer = [UInt8](repeating: 0, count: 8192)
            var head: [UInt8] = []
            while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { break }
                head += buffer[0..<count]
            }
            received.withLock { $0.append(String(decoding: head, as: UTF8.self)) }
            HostileServer.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
        defer { plain.stop() }
        // Even send_credentials_on_redirect never sends them in clear text.
        let result = try await probeRedirect(to: "http://127.0.0.1:\(plain.port)/final", allowDowngrade: true, keepCredentials: true)
        XCTAssertNil(result.error, "\(String(describing: result.error))")
        XCTAssertEqual(result.finalURL, "http://127.0.0.1:\(plain.port)/final")
        assertNoCredentials(received.withLock { $0.first })
    }

    func testAnotherPortGetsNoCredentials() async throws {
        let other = try RedirectingTLSServer(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
        defer { other.stop() }
        let result = try await probeRedirect(to: "https://127.0.0.1:\(other.port)/final")
        XCTAssertNil(result.error, "\(String(describing: result.error))")
        XCTAssertEqual(result.redirects.count, 1)
        assertNoCredentials(other.requests(to: "/final").first)
    }

    func testAnotherHostOnTheSamePortGetsNoCredentials() async throws {
        let result = try await probeRedirect(to: "https://localhost:\(tls.port)/final")
        XCTAssertNil(result.error, "\(String(describing: result.error))")
        assertNoCredentials(tls.requests(to: "/final").first)
    }

    func testSameOriginKeepsCredentialsAndSendCredentialsOnRedirectKeepsThemAcrossOrigins() async throws {
        let same = try await probeRedirect(to: "/final")
        XCTAssertNil(same.error, "\(String(describing: same.error))")
        assertAllCredentials(tls.requests(to: "/final").first)

        let other = try RedirectingTLSServer(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
        defer { other.stop() }
        let trusted = try await probeRedirect(to: "https://localhost:\(other.port)/final", keepCredentials: true)
        XCTAssertNil(trusted.error, "\(String(describing: trusted.error))")
        assertAllCredentials(other.requests(to: "/final").first)
    }

    func testUserInfoInLocationIsRemovedBeforeTheResultKeepsTheURL() async throws {
        let result = try await probeRedirect(to: "https://probe:SECRET-location@127.0.0.1:\(tls.port)/final?x=1")
        XCTAssertNil(result.error, "\(String(describing: result.error))")
        XCTAssertEqual(result.finalURL, "https://127.0.0.1:\(tls.port)/final?x=1")
        XCTAssertEqual(result.redirects.first?.location, "https://127.0.0.1:\(tls.port)/final?x=1")
        let json = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        XCTAssertFalse(json.contains("SECRET-location") || json.contains("probe:"), json)
        XCTAssertFalse((result.detailsJSON ?? "").contains("SECRET-location"))
        // The same origin (user info aside): credentials stay, the user info itself is never sent.
        let head = tls.requests(to: "/final").first ?? ""
        XCTAssertFalse(head.contains("SECRET-location"), head)
    }

    func testDowngradeMessageCarriesNoUserInfo() async throws {
        let result = try await probeRedirect(to: "http://probe:SECRET-location@127.0.0.1:1/")
        XCTAssertEqual(result.error?.kind, .insecureRedirect)
        XCTAssertFalse(result.error?.message.contains("SECRET-location") ?? true, result.error?.message ?? "")
    }
}
