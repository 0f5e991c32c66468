import NetVigilStore
import XCTest
@testable import NetVigilAgent

/// `AddressResults` over the rows of a `source: { interfaces: }` tick: a path is named like an address with its
/// interface, the target is up only when every path that ran is, and a skipped path does not fail it.
final class PathResultsTests: XCTestCase {
    private func row(_ interface: String, _ outcome: ProbeOutcome, address: String? = "198.51.100.10") -> ProbeRecord {
        var record = ProbeRecord(time: .now(), target: "edge", outcome: outcome, errorMessage: outcome == .ok ? nil : "\(interface) problem",
                                 resolvedAddress: outcome == .skipped ? nil : address)
        record.interface = interface
        return record
    }

    func testPathNames() {
        XCTAssertEqual(row("wwan0", .ok).pathName, "198.51.100.10 via wwan0")
        XCTAssertEqual(row("wwan0", .skipped).pathName, "via wwan0")
        XCTAssertEqual(ProbeRecord(time: .now(), target: "edge", outcome: .ok, resolvedAddress: "192.0.2.1").pathName, "192.0.2.1")
        XCTAssertEqual(AddressFinding(row("wwan0", .failed)).path, "198.51.100.10 via wwan0")
    }

    func testOneFailingPathFailsTheTargetAndIsNamed() {
        let combined = AddressResults([row("eth0", .ok), row("wwan0", .failed)]).combined
        XCTAssertEqual(combined.outcome, .failed)
        XCTAssertEqual(combined.resolvedAddress, "198.51.100.10 via wwan0")
        XCTAssertEqual(combined.interface, "wwan0")
        XCTAssertEqual(combined.errorMessage, "198.51.100.10 via wwan0: wwan0 problem")
    }

    func testASkippedPathNeitherFailsNorIsNamedUp() {
        let combined = AddressResults([row("eth0", .ok), row("wwan0", .skipped)]).combined
        XCTAssertEqual(combined.outcome, .ok)
        XCTAssertEqual(combined.resolvedAddress, "198.51.100.10 via eth0", "the paths probed")
        XCTAssertEqual(AddressResults([row("eth0", .skipped), row("wwan0", .skipped)]).combined.outcome, .skipped)
    }
}
