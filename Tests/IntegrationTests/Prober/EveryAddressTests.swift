import Foundation
import Logging
import NetVigilAgent
import NetVigilStore
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// `addresses: all` and `connect_to` against two real nginx sites on 127.0.0.1 and 127.0.0.2, same port: one serves
/// the pinned key, the other another key (an edge serving a wrong chain).
final class EveryAddressTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var pki: LoopbackPKI!
    private var nginx: NginxProcess!
    private var port = 0

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        pki = try LoopbackPKI(in: directory, caName: "Edge Test CA", leaves: [("good", "/CN=edge.test"), ("rogue", "/CN=edge.test")],
                              subjectAltName: "DNS:edge.test")
        port = freePort()
        let prefix = directory.path("nginx")
        func site(_ address: String, _ leaf: String) -> String {
            """
            server {
                listen \(address):\(port) ssl;
                ssl_certificate \(directory.path("\(leaf).pem"));
                ssl_certificate_key \(directory.path("\(leaf).key"));
                access_log \(prefix)/logs/\(leaf).log seen;
                location / { default_type text/plain; return 200 '\(leaf)'; }
            }
            """
        }
        nginx = try NginxProcess(prefix: prefix, servers: """
            log_format seen 'sni=$ssl_server_name host=$host';
            \(site("127.0.0.1", "good"))
            \(site("127.0.0.2", "rogue"))
            """, ports: [port])
    }

    override func tearDown() {
        nginx?.stop()
    }

    private func configuration(connectTo: [String]) throws -> ProbeConfiguration {
        let goodPin = try Certificate.load(contentsOf: directory.path("good.pem"))[0].spkiPin
        let policy = try SecurityPolicy(pinning: .publicKey, pins: [goodPin])
        var configuration = ProbeConfiguration(trustStore: try TrustStore(systemRoots: false, caPaths: [directory.path("ca.pem")]),
                                               policies: try PolicySet(default: policy, entries: []), timeout: 5)
        configuration.connectTo = try ConnectOverride(host: "edge.test", addresses: connectTo)
        return configuration
    }

    private var request: ProbeRequest {
        get throws { try RequestSerializer(version: "test").request(method: .GET, url: "https://edge.test:\(port)/") }
    }

    private func log(_ leaf: String) -> String {
        (try? String(contentsOfFile: directory.path("nginx/logs/\(leaf).log"), encoding: .utf8)) ?? ""
    }

    /// The access log of `leaf` once it has a line: nginx writes it when it finalizes the request, which can be
    /// after the client has read the response (up to 3 s).
    private func loggedRequest(_ leaf: String) -> String {
        Poll.until(timeout: 3) { !log(leaf).isEmpty }
        return log(leaf)
    }

    func testEveryAddressIsProbedAndOnlyTheRogueOneMismatches() async throws {
        let results = await Prober().probeEachAddress(try request, configuration: try configuration(connectTo: ["127.0.0.1", "127.0.0.2"]))
        XCTAssertEqual(results.map(\.resolvedAddress), ["127.0.0.1", "127.0.0.2"])
        XCTAssertEqual(results[0].outcome, .ok, "\(String(describing: results[0].error))")
        XCTAssertEqual(results[0].pinVerdict, .matched)
        XCTAssertEqual(results[1].outcome, .failed)
        XCTAssertEqual(results[1].pinVerdict, .mismatch)
        let roguePin = try Certificate.load(contentsOf: directory.path("rogue.pem"))[0].spkiPin.description
        XCTAssertEqual(results[1].servedChain.first?.spkiPin, roguePin)
        // The pin each address matched (what the target page marks): the good edge's, none for the rogue one.
        let goodPin = try Certificate.load(contentsOf: directory.path("good.pem"))[0].spkiPin.description
        XCTAssertEqual(results[0].matchedPins, [goodPin])
        XCTAssertEqual(results[1].matchedPins, [])
        XCTAssertEqual(results[0].details.matchedPins, [goodPin])
        XCTAssertNil(results[1].details.matchedPins)
        // SNI and Host stay the URL's; the rogue edge never got a request (trust failed before it).
        XCTAssertEqual(loggedRequest("good").trimmingCharacters(in: .newlines), "sni=edge.test host=edge.test")
        XCTAssertEqual(log("rogue"), "")

        // The whole target: down, naming the rogue address, with its chain in the alert report.
        let rows = AddressResults(results.map { $0.record(target: "edge") })
        XCTAssertEqual(rows.combined.outcome, .failed)
        XCTAssertEqual(rows.combined.resolvedAddress, "127.0.0.2")
        let context = AlertContext(target: "edge", url: "https://edge.test:\(port)/", host: "edge.test", port: port, sinks: ["log"],
                                   knownPins: [try Certificate.load(contentsOf: directory.path("good.pem"))[0].spkiPin.description],
                                   addresses: rows.findings)
        let engine = AlertEngine(rules: AlertRules(), logger: .init(label: "test"))
        let decision = engine.evaluate(rows.combined, context: context, now: .now())
        let event = try XCTUnwrap(decision.events.first { $0.kind == "pin_mismatch" }, "\(decision.events)")
        XCTAssertTrue(event.message.contains("at 127.0.0.2"), event.message)
        XCTAssertFalse(event.message.contains("127.0.0.1"), event.message)
        let payload = try XCTUnwrap(decision.rows.first { $0.kind == "pin_mismatch" }?.payloadJSON)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
        let addresses = try XCTUnwrap((object["report"] as? [String: Any])?["addresses"] as? [[String: Any]], payload)
        XCTAssertEqual(addresses.map { $0["address"] as? String }, ["127.0.0.2"])
        let servedPEM = try String(contentsOfFile: directory.path("rogue.pem"), encoding: .utf8)
        XCTAssertEqual((addresses[0]["served-certificate-chain"] as? [String])?.first?.trimmingCharacters(in: .whitespacesAndNewlines),
                       servedPEM.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testFirstProbesOnlyTheFirstAddressAsToday() async throws {
        let result = await Prober().probe(try request, configuration: try configuration(connectTo: ["127.0.0.1", "127.0.0.2"]))
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.resolvedAddress, "127.0.0.1")
        XCTAssertEqual(log("rogue"), "")
    }

    func testADownAddressMakesTheTargetDownNamingIt() async throws {
        let results = await Prober().probeEachAddress(try request, configuration: try configuration(connectTo: ["127.0.0.1", "127.0.0.3"]))
        XCTAssertEqual(results.map(\.outcome), [.ok, .failed])
        XCTAssertEqual(results[1].error?.kind, .connectRefused)
        let combined = AddressResults(results.map { $0.record(target: "edge") }).combined
        XCTAssertEqual(combined.outcome, .failed)
        XCTAssertEqual(combined.resolvedAddress, "127.0.0.3")
        XCTAssertTrue(combined.errorMessage?.hasPrefix("127.0.0.3: connection to 127.0.0.3") ?? false, "\(String(describing: combined.errorMessage))")
    }

    func testCLIConnectToAndAllAddressesPrintOneResultPerAddress() throws {
        let goodPin = try Certificate.load(contentsOf: directory.path("good.pem"))[0].spkiPin.description
        let common = ["probe", "https://edge.test:\(port)/", "--ca", directory.path("ca.pem"), "--no-system-roots",
                      "--pinning", "publicKey", "--pin", goodPin, "--connect-to", "127.0.0.1", "--connect-to", "127.0.0.2"]
        let all = try ProcessRunner.run(common + ["--all-addresses", "--json"])
        XCTAssertEqual(all.status, 1, all.stderr)
        let rows = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]], all.stdout)
        XCTAssertEqual(rows.map { $0["resolved_address"] as? String }, ["127.0.0.1", "127.0.0.2"])
        XCTAssertEqual(rows.map { $0["pin_verdict"] as? String }, ["matched", "mismatch"])
        let text = try ProcessRunner.run(common + ["--all-addresses"])
        XCTAssertTrue(text.stdout.contains("== address 127.0.0.2\nFAILED trust"), text.stdout)
        let first = try ProcessRunner.run(common)
        XCTAssertEqual(first.status, 0, first.stdout + first.stderr)
        XCTAssertTrue(first.stdout.contains("address: 127.0.0.1"), first.stdout)

        let bad = try ProcessRunner.run(["probe", "https://edge.test/", "--connect-to", "edge.internal"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("\"edge.internal\" is not an IP address"), bad.stderr)
        let proxied = try ProcessRunner.run(["probe", "https://edge.test/", "--all-addresses", "--proxy", "http://127.0.0.1:9"])
        XCTAssertEqual(proxied.status, 64)
        XCTAssertTrue(proxied.stderr.contains("cannot be combined with --proxy"), proxied.stderr)
    }

    func testConnectToRespectsTheAddressFamily() async throws {
        var configuration = try configuration(connectTo: ["::1"])
        configuration.addressFamily = .ipv4
        let result = await Prober().probe(try request, configuration: configuration)
        XCTAssertEqual(result.error?.kind, .dns)
        XCTAssertThrowsError(try ConnectOverride(host: "edge.test", addresses: ["edge.example"]))
    }
}
