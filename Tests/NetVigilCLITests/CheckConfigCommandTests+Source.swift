import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil check-config` with `source:`: the summary lists the paths, too many probes per tick is one located line
/// and exit 78.
extension CheckConfigCommandTests {
    func testSourcePathsAreSummarizedAndTheLimitIsALocatedError() throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write("good.yml", """
            targets:
              - { name: uplinks, url: "https://api.example.com/", source: { interfaces: [eth0, wwan0] } }
            """)
        let result = try ProcessRunner.run(["check-config", good])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("      source: interface eth0, interface wwan0"), result.stdout)

        let bad = try directory.write("bad.yml", """
            targets:
              - name: uplinks
                url: https://api.example.com/
                addresses: all
                source: { interfaces: [eth0, wwan0, wlan0] }
            """)
        let refused = try ProcessRunner.run(["check-config", bad])
        XCTAssertEqual(refused.status, 78)
        XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("bad.yml:5:"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("3 paths × up to 32 addresses (addresses: all) = 96 probes per tick, more than 64"), refused.stderr)
    }
}
