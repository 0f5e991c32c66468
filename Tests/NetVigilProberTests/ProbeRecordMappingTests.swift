import Foundation
import NetVigilAgent
import NetVigilProber
import NetVigilStore
import NetVigilTestSupport
import NetVigilTrust
import XCTest

/// `ProbeResult.record(target:)`: the store row carries the same facts as the result.
final class ProbeRecordMappingTests: XCTestCase {
    func testFailedResultMapsEveryField() throws {
        let leaf = try Certificate.load(paths: [TestPKI.shared.path("ca-leaf.crt")])[0]
        var result = ProbeResult(url: "https://a.test/start", startedAt: Date(timeIntervalSince1970: 1_800_000_000))
        result.outcome = .failed
        result.error = NetVigilProber.ProbeError(.timeout, "no complete response", phase: "processing")
        result.finalURL = "https://b.test/end"
        result.redirects = [.init(url: "https://a.test/start", status: 302, location: "https://b.test/end")]
        result.timings.resolve = 0.25
        result.timings.total = 12.5
        result.status = 200
        result.httpVersion = "HTTP/1.1"
        result.contentLength = 42
        result.tls = .init(version: "TLSv1.3", cipher: "TLS_AES_128_GCM_SHA256", alpn: "http/1.1")
        result.servedChain = [.init(leaf)]
        result.trustVerdict = .trusted
        result.pinVerdict = .notPinned
        result.resolvedAddress = "127.0.0.1"

        let record = result.record(target: "api", reachabilityStatus: "reachableViaWiFi")
        XCTAssertEqual(record.target, "api")
        XCTAssertEqual(record.time.milliseconds, 1_800_000_000_000)
        XCTAssertEqual(record.outcome, .failed)
        XCTAssertEqual(record.errorKind, .timeout)
        XCTAssertEqual(record.timings.resolve, 0.25)
        XCTAssertEqual(record.timings.total, 12.5)
        XCTAssertNil(record.timings.tls)
        XCTAssertEqual(record.contentLength, 42)
        XCTAssertEqual(record.tlsVersion, "TLSv1.3")
        XCTAssertEqual(record.alpn, "http/1.1")
        XCTAssertEqual(record.trustVerdict, .trusted)
        XCTAssertEqual(record.pinVerdict, .notPinned)
        XCTAssertEqual(record.redirectCount, 1)
        XCTAssertEqual(record.reachabilityStatus, "reachableViaWiFi")
        XCTAssertEqual(record.servedChain.first?.sha256, leaf.sha256Fingerprint)
        XCTAssertEqual(record.servedChain.first?.spkiPin, leaf.spkiPin.description)
        XCTAssertEqual(record.servedChain.first?.notAfter, Timestamp(leaf.notAfter))
        let details = try JSONSerialization.jsonObject(with: Data((record.detailsJSON ?? "").utf8)) as? [String: Any]
        XCTAssertEqual(details?["phase"] as? String, "processing")
        XCTAssertEqual(details?["final_url"] as? String, "https://b.test/end")
        XCTAssertEqual((details?["redirects"] as? [Any])?.count, 1)
    }

    func testMatchedPinsGoToTheDetails() throws {
        var result = ProbeResult(url: "https://a.test/")
        result.pinVerdict = .matched
        result.matchedPins = ["sha256/AAAA", "sha256/BBBB"]
        let details = try JSONSerialization.jsonObject(with: Data((result.record(target: "a").detailsJSON ?? "").utf8)) as? [String: Any]
        XCTAssertEqual(details?["matched_pins"] as? [String], ["sha256/AAAA", "sha256/BBBB"])
    }

    func testOKResultHasNoErrorAndNoDetails() {
        let record = ProbeResult(url: "http://a.test/").record(target: "a")
        XCTAssertEqual(record.outcome, .ok)
        XCTAssertNil(record.errorKind)
        XCTAssertNil(record.detailsJSON)
    }
}
