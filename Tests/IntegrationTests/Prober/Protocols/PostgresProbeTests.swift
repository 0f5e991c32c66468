import Foundation
import NetVigilAgent
import NetVigilTestSupport
import XCTest
@testable import NetVigilProber

/// postgres:// against a real PostgreSQL 15 with the test PKI.
final class PostgresProbeTests: ServiceProbeTestCase {
    func testSSLRequestIsTrustedAndPinned() async throws {
        let postgres = try ServiceProcess.postgres(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"))
        defer { postgres.stop() }
        try await assertPinnedAndMismatched("postgres://127.0.0.1:\(postgres.port("postgres"))")
        let result = try await probeService("postgresql://127.0.0.1:\(postgres.port("postgres"))")
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertNotNil(result.timings.starttls)
        XCTAssertFalse(postgres.log.contains("FATAL"), "a probe ends without a startup message and without a server error: \(postgres.log)")

        // The store's row keeps the scheme and the starttls phase in its details, the trust facts in its columns.
        let record = result.record(target: "db")
        XCTAssertEqual(record.outcome, .ok)
        XCTAssertEqual(record.pinVerdict, .notPinned)
        XCTAssertNil(record.httpStatus)
        let details = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(record.detailsJSON).utf8)) as? [String: Any])
        XCTAssertEqual(details["scheme"] as? String, "postgres")
        XCTAssertNotNil(details["starttls_ms"] as? Double)
    }

    func testSSLOffIsStarttlsUnavailable() async throws {
        let postgres = try ServiceProcess.postgres(certificate: pki.path("ca-leaf.crt"), key: pki.path("ca-leaf.key"), ssl: false)
        defer { postgres.stop() }
        let result = try await probeService("postgres://127.0.0.1:\(postgres.port("postgres"))")
        XCTAssertEqual(result.error?.kind, .starttlsUnavailable, "\(String(describing: result.error))")
        XCTAssertNil(result.pinVerdict)
    }
}
