import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilProbeModel
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `feed.public_status`: off by default; on, the page, badges and the redacted `/v1/public/status` need no token
/// (URLs with credentials are refused at load already), and that document holds no queries, messages, addresses or certificates.
final class PublicStatusTests: XCTestCase {
    private static let url = "https://api.example.com/health?api_key=s3cr3t-key#frag"

    func testConfigKeyDefaultsToOffAndMustBeABoolean() throws {
        XCTAssertFalse(try AgentConfiguration(yaml: "", file: "n.yml").feed.publicStatus)
        XCTAssertTrue(try AgentConfiguration(yaml: "feed: { public_status: true }", file: "n.yml").feed.publicStatus)
        XCTAssertTrue(FeedConfiguration(try AgentConfiguration(yaml: "feed: { public_status: true }", file: "n.yml").feed).publicStatus)
        XCTAssertThrowsError(try AgentConfiguration(yaml: "feed: { public_status: maybe }", file: "n.yml")) { error in
            XCTAssertTrue("\(error)".contains("feed.public_status"), "\(error)")
        }
    }

    private func app(publicStatus: Bool, token: String? = "t0ken") throws -> (some ApplicationProtocol, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let states = TargetStates()
        states.configure(try AgentConfiguration(yaml: """
            targets:
              - { name: api, url: "\(Self.url)", labels: { team: secret-team } }
            """, file: "t.yml").targets.targets)
        let chain = [CertificateRecord(sha256: "00", pem: "-----BEGIN CERTIFICATE-----\nMIIB\n", subject: "CN=api", issuer: "CN=ca",
                                       serial: "01", notBefore: .now().adding(.seconds(-86_400)),
                                       notAfter: .now().adding(.seconds(20 * 86_400 + 3_600)), spkiPin: "sha256/AAAA")]
        states.record(ProbeRecord(time: .now(), target: "api", url: Self.url, outcome: .failed, errorKind: .trust,
                                  errorMessage: "server said: Set-Cookie: session=s3cr3t-cookie",
                                  trustVerdict: .untrusted(reason: "s3cr3t-subject not trusted"), pinVerdict: .mismatch,
                                  resolvedAddress: "10.1.2.3", servedChain: chain,
                                  findings: [TrustFinding(code: "w_sub_cert_cn_not_in_san", certificate: 0,
                                                          message: "the CN s3cr3t-host.internal is not one of the SANs")]))
        let app = buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: token.map(Secret.init),
                                             publicStatus: publicStatus),
            state: FeedState(store: store, targets: states), logger: Logger(label: "test"))
        return (app, directory)
    }

    func testOffByDefaultEverythingButThePagesNeedsTheToken() async throws {
        let (app, directory) = try app(publicStatus: false)
        try await app.test(.router) { client in
            for path in ["/v1/public/status", "/badge/api/status.svg", "/v1/status"] {
                try await client.execute(uri: path, method: .get) { response in
                    XCTAssertEqual(response.status, .unauthorized, path)
                }
            }
            try await client.execute(uri: "/", method: .get) { response in
                XCTAssertTrue(String(buffer: response.body).contains("data-public=\"false\""))
            }
        }
        let (open, other) = try self.app(publicStatus: false, token: nil)
        try await open.test(.router) { client in
            try await client.execute(uri: "/v1/public/status", method: .get) { response in
                XCTAssertEqual(response.status, .notFound, "no public document unless public mode is on")
            }
        }
        withExtendedLifetime((directory, other)) {}
    }

    func testPublicModeOpensPageBadgesAndARedactedDocumentOnly() async throws {
        let (app, directory) = try app(publicStatus: true)
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertTrue(String(buffer: response.body).contains("data-public=\"true\""))
            }
            try await client.execute(uri: "/badge/api/status.svg", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
            }
            for path in ["/v1/status", "/v1/targets/api", "/v1/overview", "/v1/events", "/v1/history", "/metrics",
                         "/v1/public/status/x", "/badge/api/status.svg/x"] {
                try await client.execute(uri: path, method: .get) { response in
                    XCTAssertTrue([.unauthorized, .notFound].contains(response.status), "\(path): \(response.status)")
                    XCTAssertNotEqual(response.status, .ok, path)
                }
            }
            try await client.execute(uri: "/v1/public/status", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let text = String(buffer: response.body)
                for secret in ["s3cr3t", "api_key", "#frag", "10.1.2.3", "Set-Cookie", "secret-team", "BEGIN CERTIFICATE",
                               "sha256/", "t0ken", "n.sqlite"] {
                    XCTAssertFalse(text.contains(secret), "the public document leaks \(secret): \(text)")
                }
                let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                XCTAssertEqual(body["redacted"] as? Bool, true)
                let target = try XCTUnwrap((body["targets"] as? [[String: Any]])?.first)
                XCTAssertEqual(target["url"] as? String, "https://api.example.com/health")
                XCTAssertEqual(target["status"] as? String, "down")
                let last = try XCTUnwrap(target["last_result"] as? [String: Any])
                XCTAssertEqual(last["pin_verdict"] as? String, "mismatch")
                XCTAssertEqual(last["trust_verdict"] as? String, "untrusted")
                XCTAssertEqual(last["certificate_days_left"] as? Int, 20)
                let findings = try XCTUnwrap(last["findings"] as? [[String: Any]])
                XCTAssertEqual(findings.first?["code"] as? String, "w_sub_cert_cn_not_in_san", "codes are public")
                XCTAssertEqual(findings.first?["certificate"] as? Int, 0)
                XCTAssertEqual(findings.first?["message"] as? String, "", "messages quote the certificate: not public")
                XCTAssertEqual(((body["overview"] as? [String: Any])?["targets"] as? [[String: Any]])?.count, 1)
            }
        }
        withExtendedLifetime(directory) {}
    }
}
