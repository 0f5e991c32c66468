import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil check-config` with `source:`: the summary lists each path; a bad combination is one located line and
/// exit 78 (the messages docs/configuration.md lists under Every path).
extension CheckConfigCommandTests {
    func testSourcesAreSummarizedAndBadCombinationsAreLocatedErrors() throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write("good.yml", """
            targets:
              - { name: uplinks, url: "https://api.example.com/", source: { interfaces: [eth0, wwan0] } }
            """)
        let result = try ProcessRunner.run(["check-config", good])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("      source: interface eth0, interface wwan0"), result.stdout)

        let cases: [(lines: String, location: String, message: String)] = [
            ("    source: { interface: eth0, address: 192.0.2.7 }\n",
             "bad.yml:4:", "source takes one of interface, interfaces or address, not both interface and address"),
            ("    connect_to: [\"2001:db8::10\"]\n    source: { address: 192.0.2.7 }\n",
             "bad.yml:5:", "source address 192.0.2.7 is IPv4 but no connect_to address is"),
            ("    addresses: all\n    source: { interfaces: [a, b, c] }\n",
             "bad.yml:5:", "3 paths × up to 32 addresses (addresses: all) = 96 probes per tick, more than 64 (the limit)"),
        ]
        for (lines, location, message) in cases {
            let bad = try directory.write("bad.yml", "targets:\n  - name: a\n    url: https://api.example.com/\n" + lines)
            let refused = try ProcessRunner.run(["check-config", bad])
            XCTAssertEqual(refused.status, 78, refused.stdout + refused.stderr)
            XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
            XCTAssertTrue(refused.stderr.contains(location) && refused.stderr.contains(message), "\(refused.stderr) lacks \(location) \(message)")
        }
    }
}
