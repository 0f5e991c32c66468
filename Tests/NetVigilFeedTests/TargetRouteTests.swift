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

/// What the target page reads for an `addresses: all` / `connect_to` target: `/v1/targets/NAME` with each address's
/// row (status, verdicts, latency, time) and the results' matched pins; the public document numbers the addresses
/// instead of naming them.
final class TargetRouteTests: XCTestCase {
    private static let auth: HTTPFields = [.authorization: "Bearer t0ken"]
    private static let goodPin = "sha256/" + Data(repeating: 1, count: 32).base64EncodedString()
    private static let roguePin = "sha256/" + Data(repeating: 2, count: 32).base64EncodedString()

    private static func chain(pin: String, now: Timestamp) -> [CertificateRecord] {
        [CertificateRecord(sha256: pin == goodPin ? "01" : "02", pem: "-----BEGIN CERTIFICATE-----\nMIIB\n", subject: "CN=edge.test",
                           issuer: "CN=ca", serial: "01", notBefore: now.adding(.seconds(-86_400)),
                           notAfter: now.adding(.seconds(30 * 86_400 + 3_600)), spkiPin: pin)]
    }

    /// Two addresses: 10.9.0.1 serves the pinned key in 12 ms, 10.9.0.2 another key (pin mismatch).
    private func app(publicStatus: Bool = false) async throws -> (some ApplicationProtocol, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        let states = TargetStates()
        states.configure(try AgentConfiguration(yaml: """
            targets:
              - { name: edge, url: "https://edge.test/", addresses: all }
            """, file: "t.yml").targets.targets)
        let now = Timestamp.now()
        let good = ProbeRecord(time: now, target: "edge", url: "https://edge.test/", outcome: .ok, httpStatus: 200,
                               timings: PhaseTimings(total: 12), trustVerdict: .trusted, pinVerdict: .matched,
                               resolvedAddress: "10.9.0.1", servedChain: Self.chain(pin: Self.goodPin, now: now),
                               detailsJSON: "{\"matched_pins\":[\"\(Self.goodPin)\"]}")
        let rogue = ProbeRecord(time: now, target: "edge", url: "https://edge.test/", outcome: .failed, errorKind: .trust,
                                errorMessage: "public key pin mismatch", timings: PhaseTimings(total: 30),
                                trustVerdict: .untrusted(reason: "publicKeyPinMismatch"), pinVerdict: .mismatch,
                                resolvedAddress: "10.9.0.2", servedChain: Self.chain(pin: Self.roguePin, now: now))
        let rows = AddressResults([good, rogue])
        try await store.write(WriteBatch(probes: rows.records))
        states.record(rows.combined, addresses: rows.records)
        let app = buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: Secret("t0ken"),
                                             publicStatus: publicStatus),
            state: FeedState(store: store, targets: states), logger: Logger(label: "test"))
        return (app, directory)
    }

    private static func json(_ response: TestResponse) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    func testTargetRouteListsEachAddressAndTheMatchedPins() async throws {
        let (app, directory) = try await app()
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/targets/edge", method: .get, headers: Self.auth) { response in
                XCTAssertEqual(response.status, .ok)
                let body = try Self.json(response)
                let target = try XCTUnwrap(body["target"] as? [String: Any])
                XCTAssertEqual(target["status"] as? String, "down")
                let addresses = try XCTUnwrap(target["addresses"] as? [[String: Any]], "\(target)")
                XCTAssertEqual(addresses.map { $0["address"] as? String }, ["10.9.0.1", "10.9.0.2"])
                XCTAssertEqual(addresses.map { $0["status"] as? String }, ["up", "down"])
                XCTAssertEqual(addresses.map { $0["pin_verdict"] as? String }, ["matched", "mismatch"])
                XCTAssertEqual(addresses.map { $0["total_ms"] as? Double }, [12, 30])
                XCTAssertEqual(addresses.map { $0["http_status"] as? Int }, [200, nil])
                XCTAssertEqual(addresses.map { $0["certificate_days_left"] as? Int }, [30, 30])
                XCTAssertEqual(addresses[1]["error_kind"] as? String, "trust")
                XCTAssertNotNil(addresses[0]["time"] as? String)
                XCTAssertNil(addresses[0]["interface"], "no per-path rows here")

                // The results: each address's row, the matching one with the pin it matched.
                let results = try XCTUnwrap(body["results"] as? [[String: Any]])
                XCTAssertEqual(Set(results.compactMap { $0["resolved_address"] as? String }), ["10.9.0.1", "10.9.0.2"])
                let matching = try XCTUnwrap(results.first { $0["resolved_address"] as? String == "10.9.0.1" })
                XCTAssertEqual((matching["details"] as? [String: Any])?["matched_pins"] as? [String], [Self.goodPin])
                XCTAssertEqual(((matching["served_chain"] as? [[String: Any]])?.first)?["spki_pin"] as? String, Self.goodPin)
                let mismatching = try XCTUnwrap(results.first { $0["resolved_address"] as? String == "10.9.0.2" })
                XCTAssertNil((mismatching["details"] as? [String: Any])?["matched_pins"])
            }
            try await client.execute(uri: "/v1/status", method: .get, headers: Self.auth) { response in
                let target = try XCTUnwrap((try Self.json(response)["targets"] as? [[String: Any]])?.first)
                XCTAssertEqual((target["addresses"] as? [[String: Any]])?.count, 2, "the overview's cards read the same rows")
            }
        }
        withExtendedLifetime(directory) {}
    }

    func testPublicDocumentNumbersAddressesWithoutNamingThem() async throws {
        let (app, directory) = try await app(publicStatus: true)
        try await app.test(.router) { client in
            try await client.execute(uri: "/v1/targets/edge", method: .get) { response in
                XCTAssertEqual(response.status, .unauthorized, "the target's data (chains, pins) needs the token")
            }
            try await client.execute(uri: "/v1/public/status", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                let text = String(buffer: response.body)
                for secret in ["10.9.0.", "sha256/", "pin mismatch", "publicKeyPinMismatch"] {
                    XCTAssertFalse(text.contains(secret), "the public document leaks \(secret): \(text)")
                }
                let target = try XCTUnwrap((try Self.json(response)["targets"] as? [[String: Any]])?.first)
                let addresses = try XCTUnwrap(target["addresses"] as? [[String: Any]], "\(target)")
                XCTAssertEqual(addresses.map { $0["address"] as? String }, ["address 1", "address 2"])
                XCTAssertEqual(addresses.map { $0["status"] as? String }, ["up", "down"])
                XCTAssertEqual(addresses.map { $0["pin_verdict"] as? String }, ["matched", "mismatch"])
                XCTAssertEqual(addresses.map { $0["trust_verdict"] as? String }, ["trusted", "untrusted"])
                XCTAssertEqual(addresses.map { $0["total_ms"] as? Double }, [12, 30])
            }
        }
        withExtendedLifetime(directory) {}
    }
}
