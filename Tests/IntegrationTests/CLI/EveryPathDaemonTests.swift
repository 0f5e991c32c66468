import Foundation
import NetVigilTestSupport
import XCTest

/// The daemon in a client namespace with two uplinks (`source: { interfaces: [up1, up2] }`), each ISP serving the
/// edge's address itself: a rogue key behind up2 fires a pin_mismatch naming only that path; taking up2 down makes
/// only up2's results `skipped`, naming the interface.
final class EveryPathDaemonTests: XCTestCase {
    private var network: TwoUplinkNetwork!
    private var directory: TemporaryDirectory!
    private var pki: LoopbackPKI!
    private var servers: [NginxProcess] = []
    private var daemon: Process?
    private var port = 0, feedPort = 0

    override func setUpWithError() throws {
        network = try TwoUplinkNetwork(for: self)
        directory = try TemporaryDirectory()
        pki = try TwoUplinkNetwork.edgePKI(in: directory)
        port = ProcessRunner.freePort()
        feedPort = ProcessRunner.freePort()
    }

    override func tearDown() {
        if let daemon, daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
        for server in servers { server.stop() }
        network?.remove()
    }

    /// nginx in each ISP namespace, serving leaf `leaves[i]` behind uplink i + 1.
    private func serve(_ leaves: [String]) throws {
        servers = try network.serveEdge(leaves: leaves, port: port, directory: directory)
    }

    /// `netvigil run` inside the client namespace (`ip netns exec` execs it: the process is the daemon).
    private func startDaemon(captivePortal: String? = nil) throws -> String {
        let pins = [try pki.pin(of: "good"), "sha256/" + Data(repeating: 9, count: 32).base64EncodedString()]
        let config = try directory.write("netvigil.yml", """
            storage: { path: state/netvigil.sqlite }
            feed: { listen: 127.0.0.1:\(feedPort) }
            \(captivePortal.map { "reachability: { captive_portal: { url: \"\($0)\", interval: 1s, timeout: 2s } }" } ?? "")
            targets:
              - { name: edge, url: "https://edge.test:\(port)/", interval: 1s, timeout: 3s, source: { interfaces: [up1, up2] },
                  connect_to: [\(TwoUplinkNetwork.serverAddress)],
                  tls: { pinning: publicKey, pins: ["\(pins[0])", "\(pins[1])"], ca: [\(directory.path("ca.pem"))] } }
            alerts:
              sinks: [{ name: file, exec: { command: [/bin/sh, -c, "cat >> \(directory.path("alerts.ndjson"))"] } }]
              rules:
                pin_mismatch: { threshold: 1 }
            """)
        let log = directory.path("daemon.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", network.client.name, ProcessRunner.binary.path, "run", "--config", config]
        process.currentDirectoryURL = directory.url
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        daemon = process
        return log
    }

    /// The edge's per-path entries of `/v1/status` once `done` holds for them (or the last ones seen after 20 s).
    private func pathEntries(until done: ([[String: Any]]) -> Bool) throws -> [[String: Any]] {
        var entries: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(20)
        repeat {
            let json = try network.client.exec([ProcessRunner.binary.path, "status", "--feed", "http://127.0.0.1:\(feedPort)", "--json"],
                                               check: false)
            let document = try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let target = (document?["targets"] as? [[String: Any]])?.first
            entries = target?["addresses"] as? [[String: Any]] ?? []
            if done(entries) { break }
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < deadline
        return entries
    }

    func testPinMismatchAlertNamesOnlyTheRoguePath() throws {
        try serve(["good", "rogue"])
        let log = try startDaemon()
        let alert = try DaemonProcess.firingAlert(kind: "pin_mismatch", in: directory.path("alerts.ndjson"), daemon: try XCTUnwrap(daemon), log: log)
        let paths = try DaemonProcess.pinMismatchEntries(alert, naming: "at \(TwoUplinkNetwork.serverAddress) via up2", notNaming: "via up1",
                                                         leafPEM: directory.path("rogue.pem"))
        XCTAssertEqual(paths.map { $0["interface"] as? String }, ["up2"])

        let entries = try pathEntries { $0.count == 2 }
        XCTAssertEqual(entries.map { $0["interface"] as? String }, ["up1", "up2"])
        XCTAssertEqual(entries.map { $0["status"] as? String }, ["up", "down"])
        XCTAssertEqual(entries.map { $0["interface_kind"] as? String }, ["virtual", "virtual"], "veth is a virtual interface")
        let status = try network.client.exec([ProcessRunner.binary.path, "status", "--feed", "http://127.0.0.1:\(feedPort)"], check: false)
        XCTAssertTrue(status.stdout.contains("edge addresses: \(TwoUplinkNetwork.serverAddress) via up1 up, "
                                             + "\(TwoUplinkNetwork.serverAddress) via up2 down (trust, pin mismatch)"), status.stdout + status.stderr)
    }

    func testADownUplinkSkipsOnlyItsPath() throws {
        try serve(["good", "good"])
        _ = try startDaemon()
        let bothUp = try pathEntries { $0.count == 2 && $0.allSatisfy { $0["status"] as? String == "up" } }
        XCTAssertEqual(bothUp.map { $0["status"] as? String }, ["up", "up"], "\(bothUp)")

        try network.setUplink(2, up: false)
        let oneDown = try pathEntries { $0.last?["status"] as? String == "skipped" }
        XCTAssertEqual(oneDown.map { $0["status"] as? String }, ["up", "skipped"], "\(oneDown)")
        XCTAssertEqual(oneDown.last?["interface"] as? String, "up2")
        XCTAssertEqual(oneDown.last?["address"] as? String, TwoUplinkNetwork.serverAddress, "the address the path was judged towards")
        let reason = oneDown.last?["error_message"] as? String ?? ""
        XCTAssertTrue(reason.contains("path via up2 is NotReachable (interface up2 is down)"), reason)

        // The store keeps each row's path: the export's rows carry the interface and its kind.
        let export = try network.client.exec([ProcessRunner.binary.path, "export", "--db", directory.path("state/netvigil.sqlite"),
                                              "--kind", "probes"], check: false)
        XCTAssertTrue(export.stdout.contains("\"interface\":\"up2\""), export.stdout.suffix(2_000) + export.stderr)
        XCTAssertTrue(export.stdout.contains("\"interface_kind\":\"virtual\""), String(export.stdout.suffix(2_000)))
        // A skipped row keeps the path's evaluation (its `error` is null: skipping is no failure).
        XCTAssertTrue(export.stdout.contains(#""interface":"up2","interface_kind":"virtual","source":"10.2.0.2","status":"NotReachable""#),
                      String(export.stdout.suffix(2_000)))
    }

    /// The captive-portal check runs over each path: ISP 2 answers it with a portal's redirect, so only up2's
    /// results are skipped (NotReachable with interventionRequired, naming the check's answer) while up1 is probed
    /// and the default route (up1) is free.
    func testACaptivePortalBehindOneUplinkSkipsOnlyItsPath() throws {
        try serve(["good", "good"])
        let checkPort = ProcessRunner.freePort()
        servers += try network.serveConnectivityCheck(statuses: [204, 302], port: checkPort, directory: directory)
        _ = try startDaemon(captivePortal: "http://\(TwoUplinkNetwork.serverAddress):\(checkPort)/generate_204")
        let entries = try pathEntries { $0.map { $0["status"] as? String } == ["up", "skipped"] }
        XCTAssertEqual(entries.map { $0["status"] as? String }, ["up", "skipped"], "\(entries)")
        XCTAssertEqual(entries.map { $0["interface"] as? String }, ["up1", "up2"])
        XCTAssertEqual(entries.map { $0["address"] as? String }, [TwoUplinkNetwork.serverAddress, TwoUplinkNetwork.serverAddress])
        let reason = entries.last?["error_message"] as? String ?? ""
        XCTAssertTrue(reason.contains("path via up2 is NotReachable (a captive portal intercepts traffic through up2: expected HTTP 204, got 302)"),
                      reason)

        let json = try network.client.exec([ProcessRunner.binary.path, "status", "--feed", "http://127.0.0.1:\(feedPort)", "--json"], check: false)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual((document["captive_portal"] as? [String: Any])?["state"] as? String, "free", "the default route leaves through up1")
        // The skipped row keeps the path's own evaluation: the portal's interventionRequired, AFNetworking's NotReachable.
        let export = try network.client.exec([ProcessRunner.binary.path, "export", "--db", directory.path("state/netvigil.sqlite"),
                                              "--kind", "probes"], check: false)
        XCTAssertTrue(export.stdout.contains("interventionRequired"), String(export.stdout.suffix(2_000)))
    }
}
