import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil check-config` with `addresses:` and `connect_to:`: the summary shows them, a bad combination is one
/// located line and exit 78.
extension CheckConfigCommandTests {
    func testAddressesAreSummarizedAndABadCombinationIsALocatedError() throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write("good.yml", """
            targets:
              - { name: edges, url: "https://api.example.com/", addresses: all, connect_to: [192.0.2.1, "2001:db8::1"] }
            """)
        let result = try ProcessRunner.run(["check-config", good])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("      addresses: all (every address probed, one result each)"), result.stdout)
        XCTAssertTrue(result.stdout.contains("      connect_to: 192.0.2.1, 2001:db8::1"), result.stdout)

        let bad = try directory.write("bad.yml", """
            proxy: http://proxy.example.com:3128
            targets:
              - name: edges
                url: https://api.example.com/
                connect_to: [192.0.2.1]
            """)
        let refused = try ProcessRunner.run(["check-config", bad])
        XCTAssertEqual(refused.status, 78)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("bad.yml:5:"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("connect_to cannot be used with a proxy"), refused.stderr)
    }
}
