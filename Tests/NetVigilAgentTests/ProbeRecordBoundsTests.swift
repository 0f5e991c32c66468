import NetVigilProber
import NetVigilStore
import XCTest
@testable import NetVigilAgent

/// A probe result becomes a bounded record before the pipeline hands it anywhere: the event ring keeps 1,024 of
/// them, and ten redirect hops with a 60 KB `Location` each once cost 1.2 MB per event (the daemon reached 600 MB
/// in three minutes with five such targets).
final class ProbeRecordBoundsTests: XCTestCase {
    func testTenHopsOfHugeLocationsMakeASmallRecord() {
        let huge = "https://h.test/" + String(repeating: "x", count: 60_000)
        var result = ProbeResult(url: huge)
        result.redirects = (0..<10).map { _ in ProbeResult.Redirect(url: huge, status: 302, location: huge) }
        result.error = ProbeError(.httpProtocol, "more than 10 redirects at " + huge)
        let record = result.record(target: "big")
        XCTAssertLessThanOrEqual(record.url?.utf8.count ?? 0, ProbeRecord.Bounds.urlBytes)
        XCTAssertLessThanOrEqual(record.errorMessage?.utf8.count ?? 0, ProbeRecord.Bounds.messageBytes)
        XCTAssertLessThanOrEqual(record.detailsJSON?.utf8.count ?? 0, ProbeRecord.Bounds.detailsBytes)
        XCTAssertFalse(record.exceedsBounds)
        XCTAssertEqual(record.redirectCount, 10, "the count survives the cut")
    }
}
