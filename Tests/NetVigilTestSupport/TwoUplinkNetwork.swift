import Foundation
import XCTest

/// A client namespace with two uplinks, each a veth pair to its own "ISP" namespace that holds the same server
/// address (`serverAddress` on its loopback): `up1` (10.1.0.2 → 10.1.0.1, the default route, metric 100) and `up2`
/// (10.2.0.2 → 10.2.0.1, metric 200). A socket bound to `up2` reaches ISP 2's server although the routing table
/// prefers `up1`. All three namespaces are removed in teardown, even when the test fails.
public final class TwoUplinkNetwork {
    /// The server address both ISPs answer on.
    public static let serverAddress = "198.51.100.10"
    public let client: NetworkNamespace
    /// ISP 1 (behind `up1`) and ISP 2 (behind `up2`).
    public let isps: [NetworkNamespace]

    public init(for testCase: XCTestCase) throws {
        client = try NetworkNamespace(for: testCase)
        isps = [try NetworkNamespace(for: testCase), try NetworkNamespace(for: testCase)]
        for (offset, isp) in isps.enumerated() {
            let number = offset + 1
            let (inside, outside) = ("up\(number)", "isp\(number)")
            try client.ip("link", "add", inside, "type", "veth", "peer", "name", outside, "netns", isp.name)
            try client.ip("addr", "add", "10.\(number).0.2/24", "dev", inside)
            try client.ip("link", "set", inside, "up")
            try isp.ip("addr", "add", "10.\(number).0.1/24", "dev", outside)
            try isp.ip("link", "set", outside, "up")
            try isp.ip("addr", "add", "\(Self.serverAddress)/32", "dev", "lo")
            try client.ip("route", "add", "default", "via", "10.\(number).0.1", "dev", inside, "metric", "\(number * 100)")
        }
    }

    /// A CA with two `edge.test` leaves, `good` and `rogue` (different keys), for `serveEdge`.
    public static func edgePKI(in directory: TemporaryDirectory) throws -> LoopbackPKI {
        try LoopbackPKI(in: directory, caName: "netvigil paths CA", leaves: [("good", "/CN=edge.test"), ("rogue", "/CN=edge.test")],
                        subjectAltName: "DNS:edge.test")
    }

    /// One nginx per ISP, listening on `serverAddress`:`port` with TLS leaf `leaves[i]` (`NAME.pem`/`NAME.key` in
    /// `directory`) behind uplink i + 1, answering 200 with the leaf's name. The caller stops them in teardown.
    public func serveEdge(leaves: [String], port: Int, directory: TemporaryDirectory) throws -> [NginxProcess] {
        try leaves.enumerated().map { offset, leaf in
            try NginxProcess(prefix: directory.path("nginx\(offset + 1)"), servers: """
                server {
                    listen \(Self.serverAddress):\(port) ssl;
                    ssl_certificate \(directory.path("\(leaf).pem"));
                    ssl_certificate_key \(directory.path("\(leaf).key"));
                    location / { default_type text/plain; return 200 '\(leaf)'; }
                }
                """, ports: [port], namespace: isps[offset].name)
        }
    }

    /// One plain-HTTP nginx per ISP on `serverAddress`:`port`, answering every request with `statuses[i]` behind
    /// uplink i + 1 (a connectivity check: 204 is a free network, a 302 to a login page a captive portal). The caller
    /// stops them in teardown.
    public func serveConnectivityCheck(statuses: [Int], port: Int, directory: TemporaryDirectory) throws -> [NginxProcess] {
        try statuses.enumerated().map { offset, status in
            try NginxProcess(prefix: directory.path("check\(offset + 1)"), servers: """
                server {
                    listen \(Self.serverAddress):\(port);
                    location / { return \(status == 302 ? "302 http://portal.test/login" : "\(status)"); }
                }
                """, ports: [port], namespace: isps[offset].name)
        }
    }

    /// Takes uplink `number` (1 or 2) down in the client namespace.
    public func setUplink(_ number: Int, up: Bool) throws {
        try client.ip("link", "set", "up\(number)", up ? "up" : "down")
    }

    /// Removes the namespaces (also done in teardown).
    public func remove() {
        client.remove()
        for isp in isps { isp.remove() }
    }
}
