import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

final class AlertPayloadTests: XCTestCase {
    typealias F = AlertFixtures

    func testFiringPayloadCarriesTheRFC7469Report() throws {
        let engine = AlertEngine(rules: AlertRules(), logger: LogRecorder().logger())
        let record = F.record(at: F.at(0), outcome: .ok, chain: [F.certificates.other, F.certificates.pinned],
                              trust: .trusted, pin: .mismatchReported)
        var validated = record
        validated.validatedChain = [F.certificates.other, F.certificates.pinned]
        let decision = engine.evaluate(validated, context: F.context(sinks: ["pager"]), now: F.at(2))
        let row = try XCTUnwrap(decision.rows.first)
        let body = try F.payload(row)
        XCTAssertEqual(Set(body.keys), ["kind", "state", "target", "url", "time", "idempotency_key", "message", "reminder", "since", "report",
                                         "labels", "endpoint"])
        XCTAssertEqual(body["kind"] as? String, "pin_mismatch")
        XCTAssertEqual(body["state"] as? String, "firing")
        XCTAssertEqual(body["target"] as? String, "api")
        XCTAssertEqual(body["url"] as? String, "https://api.example.com:8443/health")
        XCTAssertEqual(body["time"] as? String, F.at(2).rfc3339)
        XCTAssertEqual(body["since"] as? String, F.at(2).rfc3339)
        XCTAssertEqual(body["idempotency_key"] as? String, row.idempotencyKey)
        XCTAssertEqual(body["message"] as? String, decision.events[0].message)
        XCTAssertEqual(body["reminder"] as? Bool, false)

        let report = try XCTUnwrap(body["report"] as? [String: Any])
        XCTAssertEqual(Set(report.keys), ["date-time", "hostname", "port", "effective-expiration-date", "include-subdomains",
                                          "noted-hostname", "served-certificate-chain", "validated-certificate-chain", "known-pins"])
        XCTAssertEqual(report["date-time"] as? String, F.at(0).rfc3339)
        XCTAssertEqual(report["hostname"] as? String, "api.example.com")
        XCTAssertEqual(report["port"] as? Int, 8443)
        XCTAssertEqual(report["effective-expiration-date"] as? String, "2027-01-15T08:00:00.000Z")
        XCTAssertEqual(report["include-subdomains"] as? Bool, true)
        XCTAssertEqual(report["noted-hostname"] as? String, "*.example.com")
        let served = try XCTUnwrap(report["served-certificate-chain"] as? [String])
        XCTAssertEqual(served, [F.certificates.other.pem, F.certificates.pinned.pem])
        for pem in served {
            XCTAssertTrue(pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"), pem)
            XCTAssertTrue(pem.trimmingCharacters(in: .newlines).hasSuffix("-----END CERTIFICATE-----"), pem)
        }
        XCTAssertEqual(report["validated-certificate-chain"] as? [String], served)
        let base64 = String(F.certificates.pinned.spkiPin.dropFirst("sha256/".count))
        XCTAssertEqual(report["known-pins"] as? [String], ["pin-sha256=\"\(base64)\""])
        // The payload round-trips through the public type.
        let decoded = try AlertPayload.decode(row.payloadJSON)
        XCTAssertEqual(decoded.report.knownPins, ["pin-sha256=\"\(base64)\""])
        XCTAssertEqual(decoded.idempotencyKey, row.idempotencyKey)
    }

    func testTargetDownPayloadHasAnEmptyReportAndNullExpiry() throws {
        var rules = AlertRules()
        rules[.targetDown].threshold = 1
        let engine = AlertEngine(rules: rules, logger: LogRecorder().logger())
        let context = AlertContext(target: "plain", url: "http://plain.example/", host: "plain.example", port: 80, sinks: ["pager"])
        var record = F.down(at: F.at(0))
        record.target = "plain"
        let row = try XCTUnwrap(engine.evaluate(record, context: context, now: F.at(0)).rows.first)
        let report = try XCTUnwrap(try F.payload(row)["report"] as? [String: Any])
        XCTAssertTrue(report["effective-expiration-date"] is NSNull)
        XCTAssertEqual(report["served-certificate-chain"] as? [String], [])
        XCTAssertEqual(report["known-pins"] as? [String], [])
        XCTAssertEqual(report["noted-hostname"] as? String, "plain.example")
        XCTAssertEqual(report["include-subdomains"] as? Bool, false)
    }

    func testPinFormats() {
        XCTAssertEqual(PinValidationReport.rfc7469Pin("sha256/AbC+/="), "pin-sha256=\"AbC+/=\"")
        XCTAssertEqual(PinValidationReport.rfc7469Pin("AbC="), "pin-sha256=\"AbC=\"")
    }
}

extension AlertPayloadTests {
    /// The target's labels and endpoint travel in every payload (webhook body, exec stdin); payloads stored before
    /// labels existed still decode.
    func testPayloadCarriesTheTargetsLabelsAndEndpoint() throws {
        let engine = AlertEngine(rules: AlertRules(), logger: LogRecorder().logger())
        var context = F.context(sinks: ["pager"])
        context.labels = TargetLabels(["site": "fra1", "team": "payments"])
        let record = F.record(at: F.at(0), outcome: .ok, chain: [F.certificates.other], trust: .trusted, pin: .mismatch)
        let row = try XCTUnwrap(engine.evaluate(record, context: context, now: F.at(1)).rows.first)
        let body = try F.payload(row)
        XCTAssertEqual(body["labels"] as? [String: String], ["site": "fra1", "team": "payments"])
        XCTAssertEqual(body["endpoint"] as? String, "https://api.example.com:8443/health")
        XCTAssertEqual(try AlertPayload.decode(row.payloadJSON).labels, context.labels)

        var old = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(row.payloadJSON.utf8)) as? [String: Any])
        old["labels"] = nil
        old["endpoint"] = nil
        let decoded = try AlertPayload.decode(String(decoding: try JSONSerialization.data(withJSONObject: old), as: UTF8.self))
        XCTAssertTrue(decoded.labels.isEmpty)
        XCTAssertEqual(decoded.endpoint, "https://api.example.com:8443/health")
    }
}
