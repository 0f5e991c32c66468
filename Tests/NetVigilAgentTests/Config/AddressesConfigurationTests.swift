import Foundation
import XCTest
@testable import NetVigilAgent

/// `addresses: first | all` and `connect_to:` on targets: values, defaults and line-precise errors.
final class AddressesConfigurationTests: XCTestCase {
    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: "n.yml")
    }

    private func message(_ yaml: String) -> String {
        do { _ = try load(yaml); return "(loaded)" } catch { return "\(error)" }
    }

    func testDefaultsAllAndConnectTo() throws {
        let configuration = try load("""
            targets:
              - { name: plain, url: "https://api.example.com/" }
              - { name: every, url: "https://api.example.com/", addresses: all }
              - { name: pinned, url: "https://api.example.com/", addresses: first, connect_to: [192.0.2.10, "[2001:db8::10]"] }
              - { name: both, url: "https://api.example.com/", addresses: all, connect_to: 192.0.2.11 }
            """)
        let targets = configuration.targets.targets
        XCTAssertFalse(targets[0].probesEachAddress)
        XCTAssertNil(targets[0].configuration.connectTo)
        XCTAssertTrue(targets[1].probesEachAddress)
        XCTAssertFalse(targets[2].probesEachAddress)
        XCTAssertEqual(targets[2].configuration.connectTo?.host, "api.example.com")
        XCTAssertEqual(targets[2].configuration.connectTo?.addresses, ["192.0.2.10", "2001:db8::10"])
        XCTAssertTrue(targets[3].probesEachAddress)
        XCTAssertEqual(targets[3].configuration.connectTo?.addresses, ["192.0.2.11"])
        XCTAssertFalse(targets[0].isEquivalent(to: targets[1]), "a changed addresses: restarts the target")
    }

    /// The reachability target is parsed once per set of fields: a copy that changes its host or `connect_to` watches
    /// its own, and the original keeps what it had.
    func testTheReachabilityTargetFollowsHostAndConnectTo() throws {
        let targets = try load("""
            targets:
              - { name: plain, url: "https://API.example.com/" }
              - { name: pinned, url: "https://api.example.com/", connect_to: ["[2001:DB8::10]", 192.0.2.10] }
              - { name: local, url: "http://127.0.0.1:8080/" }
            """).targets.targets
        XCTAssertEqual(targets[0].reachabilityTarget, .host("api.example.com"))
        XCTAssertEqual(targets[1].reachabilityTarget, .address("2001:db8::10"))
        XCTAssertEqual(targets[2].reachabilityTarget, .address("127.0.0.1"))
        XCTAssertEqual(targets[2].reachabilityTarget, .address("127.0.0.1"), "asked again")
        var moved = targets[0]
        moved.host = "192.0.2.99"
        XCTAssertEqual(moved.reachabilityTarget, .address("192.0.2.99"))
        var unpinned = targets[1]
        unpinned.configuration.connectTo = nil
        XCTAssertEqual(unpinned.reachabilityTarget, .host("api.example.com"))
        XCTAssertEqual(targets[0].reachabilityTarget, .host("api.example.com"))
        XCTAssertEqual(targets[1].reachabilityTarget, .address("2001:db8::10"))
        var unparsable = targets[0]
        unparsable.host = "bad host name"
        XCTAssertNil(unparsable.reachabilityTarget)
    }

    func testLinePreciseErrors() {
        let url = "  - name: a\n    url: https://api.example.com/\n"
        let cases: [(String, [String])] = [
            ("targets:\n" + url + "    addresses: every\n", ["n.yml:4", "first", "all"]),
            ("targets:\n" + url + "    connect_to:\n      - 192.0.2.1\n      - api.internal\n",
             ["n.yml:6", "\"api.internal\" is not an IP address"]),
            ("targets:\n" + url + "    ip: 4\n    connect_to: [192.0.2.1, \"::1\"]\n",
             ["n.yml:5", "::1 is an IPv6 address but the target has ip: 4"]),
            ("targets:\n" + url + "    connect_to: [192.0.2.1, 192.0.2.1]\n", ["n.yml:4", "listed twice"]),
            ("targets:\n" + url + "    connect_to: []\n", ["n.yml:4", "at least one address"]),
            ("proxy: http://proxy.example.com:3128\ntargets:\n" + url + "    addresses: all\n",
             ["n.yml:5", "addresses: all cannot be used with a proxy"]),
            ("targets:\n" + url + "    proxy: http://proxy.example.com:3128\n    connect_to: [192.0.2.1]\n",
             ["n.yml:5", "connect_to cannot be used with a proxy"]),
        ]
        for (yaml, fragments) in cases {
            let text = message(yaml)
            for fragment in fragments { XCTAssertTrue(text.contains(fragment), "\(text) lacks \(fragment)") }
        }
    }

    func testAProxyThatDoesNotApplyAllowsBoth() throws {
        let configuration = try load("""
            proxy: { url: "http://proxy.example.com:3128", no_proxy: [api.example.com] }
            targets:
              - { name: a, url: "https://api.example.com/", addresses: all, connect_to: [192.0.2.1] }
            """)
        XCTAssertTrue(configuration.targets.targets[0].probesEachAddress)
    }
}
