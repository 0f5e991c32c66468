import NetVigilTestSupport
import XCTest
@testable import NetVigilProber

/// HTTP/2 servers that refuse, reset, stall or send malformed frames: each probe ends with a clear error within
/// its timeout, never a crash or a hang.
final class HostileHTTP2ServerTests: ProbeTestCase {
    private func probe(_ mode: HostileHTTP2Server.Mode, timeout: TimeInterval = 3,
                       maxBodyBytes: Int = 10 * 1024 * 1024) async throws -> (ProbeResult, TimeInterval) {
        let server = try HostileHTTP2Server(mode: mode)
        defer { server.stop() }
        let start = Date()
        let result = try await probe("https://localhost:\(server.port)/", configuration: configuration(timeout: timeout, maxBodyBytes: maxBodyBytes))
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertLessThan(elapsed, timeout + 1.5, "\(mode)")
        XCTAssertEqual(result.tls?.alpn, "h2", "\(mode)")
        return (result, elapsed)
    }

    func testWellFormedRawServerWorks() async throws {
        let (result, _) = try await probe(.ok)
        XCTAssertEqual(result.outcome, .ok, "\(String(describing: result.error))")
        XCTAssertEqual(result.httpVersion, "HTTP/2")
        XCTAssertEqual(result.contentLength, 5)
    }

    func testGoAwayRefusesTheStream() async throws {
        let (result, elapsed) = try await probe(.goAway)
        XCTAssertEqual(result.error?.kind, .httpProtocol, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("GOAWAY (NO_ERROR, last stream 0)") ?? false, "\(String(describing: result.error))")
        XCTAssertLessThan(elapsed, 2)
    }

    func testResetStreamIsNamed() async throws {
        let (result, elapsed) = try await probe(.resetStream)
        XCTAssertEqual(result.error?.kind, .httpProtocol, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("RST_STREAM INTERNAL_ERROR") ?? false, "\(String(describing: result.error))")
        XCTAssertLessThan(elapsed, 2)
    }

    func testServersThatNeverAnswerTimeOut() async throws {
        for mode in [HostileHTTP2Server.Mode.silent, .mute] {
            let (result, _) = try await probe(mode, timeout: 1.5)
            XCTAssertEqual(result.error?.kind, .timeout, "\(mode): \(String(describing: result.error))")
            XCTAssertEqual(result.error?.phase, "processing", "\(mode)")
        }
    }

    func testMalformedFramesAreProtocolErrors() async throws {
        for mode in [HostileHTTP2Server.Mode.hugeFrame, .badHeaders, .dataOnStreamZero, .garbage] {
            let (result, elapsed) = try await probe(mode)
            XCTAssertEqual(result.error?.kind, .httpProtocol, "\(mode): \(String(describing: result.error))")
            XCTAssertLessThan(elapsed, 2, "\(mode)")
            // Plain words for people: no Swift file or line of the library that threw.
            let message = result.error?.message ?? ""
            XCTAssertFalse(message.contains(".swift") || message.contains("line:") || message.contains("location:"), "\(mode): \(message)")
        }
    }

    func testEndlessEarlyHintsFailFastWithTheLimit() async throws {
        let (result, elapsed) = try await probe(.endlessEarlyHints, timeout: 10)
        XCTAssertEqual(result.error?.kind, .httpProtocol, "\(String(describing: result.error))")
        XCTAssertEqual(result.error?.message, "the server sent more than 5 informational responses (1xx, the last 103) and "
                       + "no final response; a probe reads at most 5 (the limit)")
        XCTAssertLessThan(elapsed, 2, "the limit, not the probe timeout, ends it")
    }

    func testEndlessBodyHitsTheLimit() async throws {
        let (result, _) = try await probe(.endlessBody, maxBodyBytes: 2_000)
        XCTAssertEqual(result.error?.kind, .bodyTooLarge, "\(String(describing: result.error))")
    }
}
