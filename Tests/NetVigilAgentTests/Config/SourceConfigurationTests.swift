import Foundation
import NetVigilProber
import XCTest
@testable import NetVigilAgent

/// `source: { interface | interfaces | address }` on targets: values, the family a source address imposes, the
/// paths × addresses limit and line-precise errors.
final class SourceConfigurationTests: XCTestCase {
    private func load(_ yaml: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: "n.yml")
    }

    private func message(_ yaml: String) -> String {
        do { _ = try load(yaml); return "(loaded)" } catch { return "\(error)" }
    }

    func testInterfaceInterfacesAndAddress() throws {
        let configuration = try load("""
            targets:
              - { name: plain, url: "https://api.example.com/" }
              - { name: wwan, url: "https://api.example.com/", source: { interface: wwan0 } }
              - { name: both, url: "https://api.example.com/", source: { interfaces: [eth0, wwan0] } }
              - { name: from, url: "https://api.example.com/", source: { address: "[2001:db8::7]" } }
              - { name: every, url: "https://api.example.com/", addresses: all, source: { interfaces: [eth0, wwan0] } }
            """)
        let targets = configuration.targets.targets
        XCTAssertEqual(targets[0].sources, [])
        XCTAssertNil(targets[0].configuration.source)
        XCTAssertEqual(targets[1].sources, [.interface("wwan0")])
        XCTAssertEqual(targets[1].configuration.source, .interface("wwan0"), "one path: the configuration carries it")
        XCTAssertEqual(targets[2].sources, [.interface("eth0"), .interface("wwan0")])
        XCTAssertNil(targets[2].configuration.source, "several paths: the pipeline sets each")
        XCTAssertEqual(targets[3].sources, [.address("2001:db8::7")])
        XCTAssertEqual(targets[3].configuration.addressFamily, .ipv6, "a source address reaches only its family")
        XCTAssertEqual(targets[4].sources.count, 2, "2 paths × up to 32 addresses = 64, the limit")
        XCTAssertFalse(targets[1].isEquivalent(to: targets[2]), "a changed source: restarts the target")
    }

    func testLinePreciseErrors() {
        let url = "  - name: a\n    url: https://api.example.com/\n"
        let cases: [(String, [String])] = [
            ("targets:\n" + url + "    source: { interface: eth0, address: 192.0.2.7 }\n",
             ["n.yml:4", "source takes one of interface, interfaces or address, not both interface and address"]),
            ("targets:\n" + url + "    source: {}\n", ["n.yml:4", "source needs one of interface, interfaces or address"]),
            ("targets:\n" + url + "    source: { iface: eth0 }\n", ["n.yml:4", "iface"]),
            ("targets:\n" + url + "    source: { address: api.internal }\n",
             ["n.yml:4", "\"api.internal\" is not an IP address"]),
            ("targets:\n" + url + "    source:\n      interface: a-very-long-interface-name\n",
             ["n.yml:5", "is not an interface name"]),
            ("targets:\n" + url + "    source:\n      interfaces:\n        - eth0\n        - eth0\n",
             ["n.yml:7", "eth0 is listed twice in interfaces"]),
            ("targets:\n" + url + "    source: { interfaces: [] }\n", ["n.yml:4", "at least one interface"]),
            ("targets:\n" + url + "    ip: 4\n    source: { address: \"2001:db8::7\" }\n",
             ["n.yml:5", "source address 2001:db8::7 is IPv6 but the target has ip: 4"]),
            ("targets:\n" + url + "    connect_to: [\"2001:db8::10\"]\n    source: { address: 192.0.2.7 }\n",
             ["n.yml:5", "is IPv4 but no connect_to address is"]),
            ("proxy: http://proxy.example.com:3128\ntargets:\n" + url + "    source: { interface: eth0 }\n",
             ["n.yml:5", "source cannot be used with a proxy"]),
            ("targets:\n" + url + "    addresses: all\n    source: { interfaces: [a, b, c] }\n",
             ["n.yml:5", "3 paths × up to 32 addresses (addresses: all) = 96 probes per tick, more than 64 (the limit)"]),
        ]
        for (yaml, fragments) in cases {
            let text = message(yaml)
            for fragment in fragments { XCTAssertTrue(text.contains(fragment), "\(text) lacks \(fragment)") }
        }
    }

    func testSixtyFourPathsFitAndSixtyFiveDoNot() throws {
        func yaml(_ count: Int) -> String {
            "targets:\n  - name: a\n    url: https://api.example.com/\n    source: { interfaces: ["
                + (1...count).map { "if\($0)" }.joined(separator: ", ") + "] }\n"
        }
        XCTAssertEqual(try load(yaml(64)).targets.targets.first?.sources.count, 64)
        XCTAssertTrue(message(yaml(65)).contains("65 paths × 1 address = 65 probes per tick, more than 64"), message(yaml(65)))
    }
}
