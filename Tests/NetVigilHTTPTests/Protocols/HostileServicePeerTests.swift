import Foundation
import XCTest
@testable import NetVigilHTTP

/// Hostile STARTTLS peers: each gives a typed error kind within the timeout, bounded memory, no crash or hang.
final class HostileServicePeerTests: ProbeTestCase {
    private var server: HostileServer?

    override func tearDown() {
        server?.stop()
        server = nil
    }

    /// Reads one line (up to LF) from `fd`.
    private static func readLine(_ fd: Int32) {
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") {}
    }

    private func probePeer(_ scheme: String, timeout: TimeInterval = 3, _ behaviour: @escaping @Sendable (Int32) -> Void) async throws -> ProbeResult {
        let server = try HostileServer(readRequest: false, behaviour: behaviour)
        self.server = server
        let start = Date()
        let result = await HTTPProber().probe(ProbeRequest(url: URL(string: "\(scheme)://127.0.0.1:\(server.port)")!),
                                              configuration: try configuration(timeout: timeout))
        XCTAssertLessThan(Date().timeIntervalSince(start), timeout + 1, "the probe must end by its timeout")
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertNil(result.status)
        return result
    }

    func testGreetingNeverComesTimesOutInTheStarttlsPhase() async throws {
        let result = try await probePeer("smtp", timeout: 1) { _ in Thread.sleep(forTimeInterval: 2) }
        XCTAssertEqual(result.error?.kind, .timeout, "\(String(describing: result.error))")
        XCTAssertEqual(result.error?.phase, "starttls")
    }

    func testGarbageGreeting() async throws {
        let result = try await probePeer("smtp") { HostileServer.send($0, "HTTP/1.1 400 Bad Request\r\n\r\n") }
        XCTAssertEqual(result.error?.kind, .protocolGreeting, "\(String(describing: result.error))")
    }

    func testEndlessGreetingLine() async throws {
        let result = try await probePeer("imap") { fd in
            HostileServer.send(fd, "* OK ")
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 4096)
            for _ in 0..<4096 {  // 16 MiB offered, 8 KiB read; MSG_NOSIGNAL: the probe hangs up early
                guard chunk.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0 else { return }
            }
        }
        XCTAssertEqual(result.error?.kind, .protocolGreeting, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("8192") ?? false, "\(String(describing: result.error))")
    }

    func testTenThousandLineEHLOReply() async throws {
        let result = try await probePeer("submission") { fd in
            HostileServer.send(fd, "220 hostile ESMTP\r\n")
            Self.readLine(fd)
            HostileServer.send(fd, String(repeating: "250-PIPELINING\r\n", count: 10_000) + "250 STARTTLS\r\n")
        }
        XCTAssertEqual(result.error?.kind, .protocolGreeting, "\(String(describing: result.error))")
    }

    func testNoSTARTTLSOffered() async throws {
        let result = try await probePeer("smtp") { fd in
            HostileServer.send(fd, "220 stripped ESMTP\r\n")
            Self.readLine(fd)
            HostileServer.send(fd, "250-stripped\r\n250 AUTH PLAIN LOGIN\r\n")
            Self.readLine(fd)
        }
        XCTAssertEqual(result.error?.kind, .starttlsUnavailable, "\(String(describing: result.error))")
        XCTAssertNil(result.trustVerdict, "no TLS, so no trust verdict and no pin verdict")
        XCTAssertNil(result.pinVerdict)
    }

    func testSTARTTLSAnswered454() async throws {
        let result = try await probePeer("smtp") { fd in
            HostileServer.send(fd, "220 busy ESMTP\r\n")
            Self.readLine(fd)
            HostileServer.send(fd, "250-busy\r\n250 STARTTLS\r\n")
            Self.readLine(fd)
            HostileServer.send(fd, "454 4.7.0 TLS not available due to local problem\r\n")
        }
        XCTAssertEqual(result.error?.kind, .starttlsUnavailable, "\(String(describing: result.error))")
    }

    func testAcceptsSTARTTLSThenSendsPlaintext() async throws {
        let result = try await probePeer("smtp") { fd in
            HostileServer.send(fd, "220 liar ESMTP\r\n")
            Self.readLine(fd)
            HostileServer.send(fd, "250 STARTTLS\r\n")
            Self.readLine(fd)
            HostileServer.send(fd, "220 go ahead\r\n")
            Thread.sleep(forTimeInterval: 0.2)
            HostileServer.send(fd, "250 plaintext pretending to be TLS\r\n")
            Thread.sleep(forTimeInterval: 0.5)
        }
        XCTAssertEqual(result.error?.kind, .tlsHandshake, "\(String(describing: result.error))")
        XCTAssertNotNil(result.timings.starttls)
    }

    func testResponseInjectedAfterGoAhead() async throws {
        let result = try await probePeer("pop3") { fd in
            HostileServer.send(fd, "+OK ready\r\n")
            Self.readLine(fd)
            HostileServer.send(fd, "+OK\r\nSTLS\r\n.\r\n")
            Self.readLine(fd)
            HostileServer.send(fd, "+OK begin\r\n+OK injected\r\n")
            Thread.sleep(forTimeInterval: 0.5)
        }
        XCTAssertEqual(result.error?.kind, .protocolGreeting, "\(String(describing: result.error))")
    }

    func testPostgresPeerAnsweringError() async throws {
        let result = try await probePeer("postgres") { fd in
            var request = [UInt8](repeating: 0, count: 8)
            _ = read(fd, &request, 8)
            HostileServer.send(fd, Array("E\0\0\0\u{2A}SFATAL\0C08P01\0Munsupported frontend protocol\0\0".utf8))
        }
        XCTAssertEqual(result.error?.kind, .protocolGreeting, "\(String(describing: result.error))")
        XCTAssertTrue(result.error?.message.contains("unsupported frontend protocol") ?? false, "\(String(describing: result.error))")
    }

    func testPostgresPeerAnsweringN() async throws {
        let result = try await probePeer("postgres") { fd in
            var request = [UInt8](repeating: 0, count: 8)
            _ = read(fd, &request, 8)
            HostileServer.send(fd, "N")
            Thread.sleep(forTimeInterval: 0.3)
        }
        XCTAssertEqual(result.error?.kind, .starttlsUnavailable, "\(String(describing: result.error))")
    }

    func testTLSTargetNeedsAPort() async throws {
        let result = await HTTPProber().probe(ProbeRequest(url: URL(string: "tls://127.0.0.1")!), configuration: try configuration())
        XCTAssertEqual(result.error?.kind, .invalidRequest)
    }
}
