import Foundation
import NetVigilTestSupport
import NetVigilTrust
import XCTest
@testable import NetVigilProber

/// Probes of real servers with the test PKI: trusted with the leaf's pin, a pin mismatch with a wrong one.
class ServiceProbeTestCase: ProbeTestCase {
    /// Probes `url` with `policy` and the test CA.
    func probeService(_ url: String, policy: SecurityPolicy = .default, timeout: TimeInterval = 10) async throws -> ProbeResult {
        await Prober().probe(ProbeRequest(url: URL(string: url)!), configuration: try configuration(timeout: timeout, policy: policy))
    }

    /// `url` succeeds, trusted, with the leaf's SPKI pin matched; with a wrong pin the same server fails as
    /// `trust` with a pin mismatch.
    func assertPinnedAndMismatched(_ url: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let leaf = try XCTUnwrap(Certificate.load(contentsOf: pki.path("ca-leaf.crt")).first)
        let pinned = try await probeService(url, policy: SecurityPolicy(pinning: .publicKey, pins: [leaf.spkiPin]))
        XCTAssertNil(pinned.error, "\(url): \(String(describing: pinned.error))", file: file, line: line)
        XCTAssertEqual(pinned.outcome, .ok, url, file: file, line: line)
        XCTAssertEqual(pinned.trustVerdict, .trusted, url, file: file, line: line)
        XCTAssertEqual(pinned.pinVerdict, .matched, url, file: file, line: line)
        XCTAssertEqual(pinned.servedChain.first?.spkiPin, leaf.spkiPin.description, url, file: file, line: line)
        XCTAssertNotNil(pinned.timings.tls, url, file: file, line: line)
        XCTAssertNil(pinned.status, "no HTTP on \(url)", file: file, line: line)

        let wrong = SPKIPin(digest: Data(repeating: 7, count: 32))
        let mismatched = try await probeService(url, policy: SecurityPolicy(pinning: .publicKey, pins: [wrong]))
        XCTAssertEqual(mismatched.error?.kind, .trust, "\(url): \(String(describing: mismatched.error))", file: file, line: line)
        XCTAssertEqual(mismatched.pinVerdict, .mismatch, url, file: file, line: line)
        XCTAssertEqual(mismatched.outcome, .failed, url, file: file, line: line)
    }
}
