import Foundation
import NetVigilTestSupport
import XCTest

/// A site whose network path to the origin goes through a TLS-intercepting box, for an agent that knows nothing of
/// it (no proxy configured). Two network namespaces joined by one veth link:
///
/// ```
///  site (the agent)                        edge
///  uplink 192.0.2.2/24  ───── veth ─────   downlink 192.0.2.1/24
///  127.0.0.1:PG ─ socat ─┐                 192.0.2.1:PORT  mitmdump --mode reverse:https://localhost:PORT/
///                        │                 127.0.0.1:PORT ─ socat ─┐
///  host: PostgreSQL's unix socket ◄────────┘   host: nginx's `listen unix:` socket ◄──┘
/// ```
///
/// The agent connects to `edgeAddress` (a target's `connect_to`) with the origin's URL, so mitmproxy is on its path
/// and forges the chain; mitmproxy reaches the real origin at the same URL on the edge's loopback. The agent's
/// PostgreSQL is on its own loopback (no TLS: a unix socket cannot carry it), so taking `uplink` down cuts its path
/// to the origin and nothing else. The host's interfaces, routes and addresses are never touched: the host's
/// servers are reached through their unix sockets. Processes and namespaces go in teardown, even when the test fails.
final class InterceptedSite {
    static let edgeAddress = "192.0.2.1"
    static let siteAddress = "192.0.2.2"
    /// The site's end of the veth link, and the edge's.
    static let uplink = "uplink", downlink = "downlink"

    /// The agent's namespace.
    let site: NetworkNamespace
    /// The interceptor's namespace.
    let edge: NetworkNamespace
    let mitmproxy: MitmproxyProcess
    private var bridges: [UnixSocketBridge] = []

    /// Builds both namespaces and the link; starts the edge's bridge to `originSocket` on 127.0.0.1:`originPort`,
    /// mitmproxy on `edgeAddress`:`originPort` in front of it (trusting `originCA` upstream), and the site's bridge to
    /// `postgresSocket` on 127.0.0.1:`postgresPort`. Fails (never skips as root) when any of them cannot start.
    init(for testCase: XCTestCase, originPort: Int, originSocket: String, originCA: String, postgresPort: Int,
         postgresSocket: String) throws {
        site = try NetworkNamespace(for: testCase)
        edge = try NetworkNamespace(for: testCase)
        try site.ip("link", "add", Self.uplink, "type", "veth", "peer", "name", Self.downlink, "netns", edge.name)
        try site.ip("addr", "add", "\(Self.siteAddress)/24", "dev", Self.uplink)
        try site.ip("link", "set", Self.uplink, "up")
        try edge.ip("addr", "add", "\(Self.edgeAddress)/24", "dev", Self.downlink)
        try edge.ip("link", "set", Self.downlink, "up")
        // mitmproxy resolves the origin's name in the edge: IPv4 loopback only, where the bridge listens.
        try edge.writeEtcFile("hosts", "127.0.0.1 localhost\n")
        // Each started process stops in its deinit should a later step throw.
        let originBridge = try UnixSocketBridge(namespace: edge.name, port: originPort, socketPath: originSocket)
        mitmproxy = try MitmproxyProcess(reverseTo: "https://localhost:\(originPort)/", upstreamCA: originCA,
                                         host: Self.edgeAddress, port: originPort, namespace: edge.name)
        bridges = [originBridge, try UnixSocketBridge(namespace: site.name, port: postgresPort, socketPath: postgresSocket)]
        // Added after the namespaces' own blocks, so it runs before them (the last added runs first).
        testCase.addTeardownBlock { [self] in stop() }
    }

    /// Stops mitmproxy and the bridges (also done in teardown).
    func stop() {
        mitmproxy.stop()
        for bridge in bridges { bridge.stop() }
    }

    /// Takes the site's end of the link down (an outage only this site's agent sees) or up again.
    func setUplink(up: Bool) throws {
        try site.ip("link", "set", Self.uplink, up ? "up" : "down")
    }

    /// What mitmproxy and the bridges logged, for a failure message.
    var logs: String {
        "mitmdump:\n\(mitmproxy.log().suffix(1_500))\n" + bridges.map { "socat:\n\($0.log().suffix(500))" }.joined(separator: "\n")
    }
}
