import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilProber

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
        let result = await Prober().probe(ProbeRequest(url: URL(string: "\(scheme)://127.0.0.1:\(server.port)")!),
                                              configuration: try configuration(timeout: timeout))
        XCTAssertLessThan(Date().timeIntervalSince(start), timeout + 1, "the probe must end by its timeout")
        XCTAssertEqual(result.outcome, .failed)
        XCTAssertNil(result.status)
        return result
    }

    /// One move of a scripted peer.
    private enum Step: Sendable {
        /// Sends the text's UTF-8 bytes.
        case send(String)
        /// Reads one line (up to LF).
        case readLine
        /// Reads up to `count` bytes.
        case read(Int)
        /// Waits.
        case pause(TimeInterval)
    }

    /// `probeFails` against a peer that plays `script`, one step after another.
    @discardableResult
    private func probeFails(_ kind: ProbeError.Kind, _ scheme: String, timeout: TimeInterval = 3, _ script: [Step],
                            file: StaticString = #filePath, line: UInt = #line) async throws -> ProbeResult {
        try await probeFails(kind, scheme, timeout: timeout, file: file, line: line) { fd in
            for step in script {
                switch step {
                case .send(let text): HostileServer.send(fd, text)
                case .readLine: Self.readLine(fd)
                case .read(let count):
                    var bytes = [UInt8](repeating: 0, count: count)
                    _ = read(fd, &bytes, count)
                case .pause(let seconds): Thread.sleep(forTimeInterval: seconds)
                }
            }
        }
    }

    /// Probes `scheme://` a peer that runs `behaviour` and checks the probe failed with `kind`, no status, within its
    /// timeout.
    @discardableResult
    private func probeFails(_ kind: ProbeError.Kind, _ scheme: String, timeout: TimeInterval = 3,
                            file: StaticString = #filePath, line: UInt = #line,
                            _ behaviour: @escaping @Sendable (Int32) -> Void) async throws -> ProbeResult {
        let result = try await probePeer(scheme, timeout: timeout, behaviour)
        XCTAssertEqual(result.error?.kind, kind, "\(String(describing: result.error))", file: file, line: line)
        return result
    }

    func testGreetingNeverComesTimesOutInTheStarttlsPhase() async throws {
        let result = try await probeFails(.timeout, "smtp", timeout: 1, [.pause(2)])
        XCTAssertEqual(result.error?.phase, "starttls")
    }

    func testGarbageGreeting() async throws {
        try await probeFails(.protocolGreeting, "smtp", [.send("HTTP/1.1 400 Bad Request\r\n\r\n")])
    }

    func testEndlessGreetingLine() async throws {
        let result = try await probeFails(.protocolGreeting, "imap") { fd in
            HostileServer.send(fd, "* OK ")
            let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 4096)
            for _ in 0..<4096 {  // 16 MiB offered, 8 KiB read; MSG_NOSIGNAL: the probe hangs up early
                guard chunk.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0 else { return }
            }
        }
        XCTAssertTrue(result.error?.message.contains("8192") ?? false, "\(String(describing: result.error))")
    }

    func testTenThousandLineEHLOReply() async throws {
        try await probeFails(.protocolGreeting, "submission", [
            .send("220 hostile ESMTP\r\n"), .readLine,
            .send(String(repeating: "250-PIPELINING\r\n", count: 10_000) + "250 STARTTLS\r\n"),
        ])
    }

    func testNoSTARTTLSOffered() async throws {
        let result = try await probeFails(.starttlsUnavailable, "smtp", [
            .send("220 stripped ESMTP\r\n"), .readLine, .send("250-stripped\r\n250 AUTH PLAIN LOGIN\r\n"), .readLine,
        ])
        XCTAssertNil(result.trustVerdict, "no TLS, so no trust verdict and no pin verdict")
        XCTAssertNil(result.pinVerdict)
    }

    func testSTARTTLSAnswered454() async throws {
        try await probeFails(.starttlsUnavailable, "smtp", [
            .send("220 busy ESMTP\r\n"), .readLine, .send("250-busy\r\n250 STARTTLS\r\n"), .readLine,
            .send("454 4.7.0 TLS not available due to local problem\r\n"),
        ])
    }

    func testAcceptsSTARTTLSThenSendsPlaintext() async throws {
        let result = try await probeFails(.tlsHandshake, "smtp", [
            .send("220 liar ESMTP\r\n"), .readLine, .send("250 STARTTLS\r\n"), .readLine, .send("220 go ahead\r\n"),
            .pause(0.2), .send("250 plaintext pretending to be TLS\r\n"), .pause(0.5),
        ])
        XCTAssertNotNil(result.timings.starttls)
    }

    func testResponseInjectedAfterGoAhead() async throws {
        try await probeFails(.protocolGreeting, "pop3", [
            .send("+OK ready\r\n"), .readLine, .send("+OK\r\nSTLS\r\n.\r\n"), .readLine,
            .send("+OK begin\r\n+OK injected\r\n"), .pause(0.5),
        ])
    }

    func testPostgresPeerAnsweringError() async throws {
        let result = try await probeFails(.protocolGreeting, "postgres", [
            .read(8), .send("E\0\0\0\u{2A}SFATAL\0C08P01\0Munsupported frontend protocol\0\0"),
        ])
        XCTAssertTrue(result.error?.message.contains("unsupported frontend protocol") ?? false, "\(String(describing: result.error))")
    }

    func testPostgresPeerAnsweringN() async throws {
        try await probeFails(.starttlsUnavailable, "postgres", [.read(8), .send("N"), .pause(0.3)])
    }

    func testTLSTargetNeedsAPort() async throws {
        let result = await Prober().probe(ProbeRequest(url: URL(string: "tls://127.0.0.1")!), configuration: try configuration())
        XCTAssertEqual(result.error?.kind, .invalidRequest)
    }
}
