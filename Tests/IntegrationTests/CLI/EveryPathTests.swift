import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil probe --interface` / `--source` in a client namespace with two uplinks whose ISPs serve the same
/// address with different keys: the path decides which server answers, the binding needs no capability, and a bad
/// path is one clear error line.
final class EveryPathTests: XCTestCase {
    private var network: TwoUplinkNetwork!
    private var directory: TemporaryDirectory!
    private var pki: LoopbackPKI!
    private var servers: [NginxProcess] = []
    private var port = 0

    override func setUpWithError() throws {
        network = try TwoUplinkNetwork(for: self)
        directory = try TemporaryDirectory()
        pki = try TwoUplinkNetwork.edgePKI(in: directory)
        port = ProcessRunner.freePort()
        servers = try network.serveEdge(leaves: ["good", "rogue"], port: port, directory: directory)
    }

    override func tearDown() {
        for server in servers { server.stop() }
        network?.remove()
    }

    /// `netvigil probe` of the edge in the client namespace, pinned to the good key; `prefix` runs before it.
    private func probe(_ extra: [String], prefix: [String] = [], json: Bool = true) throws -> ProcessRunner.Result {
        try network.client.exec(prefix + [ProcessRunner.binary.path, "probe", "https://edge.test:\(port)/",
                                          "--connect-to", TwoUplinkNetwork.serverAddress, "--ca", directory.path("ca.pem"),
                                          "--pinning", "publicKey", "--pin", try pki.pin(of: "good")] + (json ? ["--json"] : []) + extra,
                                check: false)
    }

    private func object(_ result: ProcessRunner.Result) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout + result.stderr)
    }

    func testTheInterfaceDecidesWhichServerAnswers() throws {
        let viaDefault = try probe([])
        XCTAssertEqual(viaDefault.status, 0, "the default route (up1) reaches the good server: \(viaDefault.stdout + viaDefault.stderr)")

        let viaUp1 = try probe(["--interface", "up1"])
        XCTAssertEqual(viaUp1.status, 0, viaUp1.stdout + viaUp1.stderr)
        XCTAssertEqual(try object(viaUp1)["interface"] as? String, "up1")

        let viaUp2 = try probe(["--interface", "up2"])
        XCTAssertEqual(viaUp2.status, 1, viaUp2.stdout + viaUp2.stderr)
        let failed = try object(viaUp2)
        XCTAssertEqual(failed["interface"] as? String, "up2")
        XCTAssertEqual(failed["pin_verdict"] as? String, "mismatch", "ISP 2's server serves the other key")

        // A source address: bound to up1's own address, the probe connects from it.
        let fromUp1Address = try probe(["--source", "10.1.0.2"])
        XCTAssertEqual(fromUp1Address.status, 0, fromUp1Address.stdout + fromUp1Address.stderr)
        XCTAssertEqual(try object(fromUp1Address)["resolved_address"] as? String, TwoUplinkNetwork.serverAddress)
    }

    /// The CLI records the path's interface and kind as the daemon does (from the netlink watcher's mirror), and
    /// its text names the kind and the path's AFNetworking status, with the reason of a NotReachable path.
    func testTheResultRecordsThePathsKindAndStatus() throws {
        let viaUp1 = try object(try probe(["--interface", "up1"]))
        XCTAssertEqual(viaUp1["interface"] as? String, "up1")
        XCTAssertEqual(viaUp1["interface_kind"] as? String, "virtual", "veth is a virtual interface")
        // A source address names the interface holding it.
        let fromUp2Address = try object(try probe(["--source", "10.2.0.2", "--timeout", "2s"]))
        XCTAssertEqual(fromUp2Address["interface"] as? String, "up2")
        XCTAssertEqual(fromUp2Address["interface_kind"] as? String, "virtual")

        let text = try probe(["--interface", "up1"], json: false)
        XCTAssertEqual(text.status, 0, text.stdout + text.stderr)
        XCTAssertTrue(text.stdout.contains("path: up1 (virtual)  reachability: ReachableViaWiFi"), text.stdout)
        let unbound = try probe([], json: false)
        XCTAssertFalse(unbound.stdout.contains("path:"), "no path line without --interface/--source: \(unbound.stdout)")

        try network.setUplink(2, up: false)
        let down = try probe(["--interface", "up2", "--timeout", "2s"], json: false)
        XCTAssertEqual(down.status, 1, down.stdout + down.stderr)
        XCTAssertTrue(down.stdout.contains("path: up2 (virtual)  reachability: NotReachable (interface up2 is down)"), down.stdout)
        let missing = try probe(["--interface", "nosuch0"], json: false)
        XCTAssertTrue(missing.stdout.contains("path: nosuch0 (kind unknown)  reachability: NotReachable (interface nosuch0 does not exist)"),
                      missing.stdout)
    }

    func testABadPathIsOneClearLine() throws {
        let missing = try probe(["--interface", "nosuch0"])
        XCTAssertEqual(missing.status, 1, missing.stdout + missing.stderr)
        let error = try XCTUnwrap(try object(missing)["error"] as? [String: Any])
        XCTAssertEqual(error["kind"] as? String, "connect")
        XCTAssertEqual(error["message"] as? String, "no interface named nosuch0 (SO_BINDTODEVICE: no such device)")

        let foreign = try probe(["--source", "192.0.2.99"])
        XCTAssertEqual(((try object(foreign)["error"]) as? [String: Any])?["message"] as? String,
                       "source address 192.0.2.99 is not an address of this host")

        let both = try probe(["--interface", "up1", "--source", "10.1.0.2"])
        XCTAssertEqual(both.status, 64)
        XCTAssertTrue(both.stderr.contains("--interface and --source exclude each other"), both.stderr)
        let badName = try probe(["--interface", "a/b"])
        XCTAssertEqual(badName.status, 64)
        XCTAssertTrue(badName.stderr.contains("--interface: \"a/b\" is not an interface name"), badName.stderr)
        let badAddress = try probe(["--source", "edge.test"])
        XCTAssertEqual(badAddress.status, 64)
        XCTAssertTrue(badAddress.stderr.contains("--source: \"edge.test\" is not an IP address"), badAddress.stderr)
        let family = try probe(["--source", "10.1.0.2", "--ip6"])
        XCTAssertEqual(family.status, 64)
        XCTAssertTrue(family.stderr.contains("--source 10.1.0.2 is IPv4 but --ip6 was given"), family.stderr)
    }

    /// What the systemd unit's empty capability sets rely on: binding a fresh socket to an interface needs no
    /// capability since Linux 5.7 (only re-binding a bound socket needs CAP_NET_RAW). Run as nobody with every
    /// capability set empty and no_new_privs, as the unit runs the daemon.
    func testBindingToAnInterfaceNeedsNoCapability() throws {
        let drop = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--ambient-caps=-all",
                    "--bounding-set=-all", "--no-new-privs"]
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
        let unprivileged = try probe(["--interface", "up2"], prefix: drop)
        let result = try object(unprivileged)
        XCTAssertEqual(result["pin_verdict"] as? String, "mismatch", "bound to up2 as nobody: \(unprivileged.stdout + unprivileged.stderr)")
        XCTAssertFalse(unprivileged.stdout.contains("CAP_NET_RAW"), unprivileged.stdout)
        XCTAssertEqual(try object(try probe(["--interface", "up1"], prefix: drop))["outcome"] as? String, "ok")
    }
}
