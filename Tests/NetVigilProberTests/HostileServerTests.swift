import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilProber

/// Malformed and hostile responses each give a typed error, no crash, no hang beyond the timeout.
final class HostileServerTests: ProbeTestCase {
    private var server: HostileServer?

    override func tearDown() {
        server?.stop()
        server = nil
    }

    private func probeHostile(timeout: TimeInterval = 3, maxBodyBytes: Int = 10 * 1024 * 1024, readRequest: Bool = true,
                              https: Bool = false, _ behaviour: @escaping @Sendable (Int32) -> Void) async throws -> ProbeResult {
        let server = try HostileServer(readRequest: readRequest, behaviour: behaviour)
        self.server = server
        let start = Date()
        let result = try await probe("\(https ? "https" : "http")://127.0.0.1:\(server.port)/",
                                     configuration: configuration(timeout: timeout, maxBodyBytes: maxBodyBytes))
        XCTAssertLessThan(Date().timeIntervalSince(start), timeout + 1, "the probe must end by its timeout")
        return result
    }

    func testGarbageStatusLine() async throws {
        let result = try await probeHostile { HostileServer.send($0, "SMTP READY\r\nfoo\r\n\r\n") }
        XCTAssertEqual(result.error?.kind, .httpProtocol, "\(String(describing: result.error))")
    }

    func testHTTP09Reply() async throws {
        let result = try await probeHostile { HostileServer.send($0, "<html>hello</html>\n") }
        XCTAssertEqual(result.error?.kind, .httpProtocol, "\(String(describing: result.error))")
    }

    func testHugeHeaderBlock() async throws {
        let result = try await probeHostile { fd in
            HostileServer.send(fd, "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 100 * 1024) + "\r\nContent-Length: 0\r\n\r\n")
        }
        XCTAssertEqual(result.error?.kind, .httpProtocol, "\(String(describing: result.error))")
    }

    func testBadChunkSize() async throws {
        let result = try await probeHostile { HostileServer.send($0, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n") }
        XCTAssertEqual(result.error?.kind, .httpProtocol, "\(String(describing: result.error))")
    }

    func testContentLengthLongerThanBody() async throws {
        let result = try await probeHostile { HostileServer.send($0, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort") }
        XCTAssertEqual(result.error?.kind, .httpProtocol, "\(String(describing: result.error))")
    }

    func testBodyOverTheLimitWhileStreaming() async throws {
        let result = try await probeHostile(maxBodyBytes: 64 * 1024) { fd in
            HostileServer.send(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = "4000\r\n" + String(repeating: "x", count: 0x4000) + "\r\n"
            for _ in 0..<64 { HostileServer.send(fd, chunk) }
        }
        XCTAssertEqual(result.error?.kind, .bodyTooLarge, "\(String(describing: result.error))")
        let declared = try await probeHostile(maxBodyBytes: 1024) { HostileServer.send($0, "HTTP/1.1 200 OK\r\nContent-Length: 5000000\r\n\r\n") }
        XCTAssertEqual(declared.error?.kind, .bodyTooLarge)
    }

    func testEndlessEarlyHintsFailFastWithTheLimit() async throws {
        let start = Date()
        let result = try await probeHostile(timeout: 10) { fd in
            let hint = Array("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n".utf8)
            while hint.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) > 0 {}
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "the limit, not the probe timeout, ends it")
        XCTAssertEqual(result.error?.kind, .httpProtocol, "\(String(describing: result.error))")
        XCTAssertEqual(result.error?.message, "the server sent more than 5 informational responses (1xx, the last 103) and "
                       + "no final response; a probe reads at most 5 (the limit)")
        // Up to the limit, informational responses precede the final one as before.
        let within = try await probeHostile { fd in
            HostileServer.send(fd, String(repeating: "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n", count: 5)
                               + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        XCTAssertNil(within.error, "\(String(describing: within.error))")
        XCTAssertEqual(within.status, 200)
    }

    func testNeverAnswersTimesOutInProcessing() async throws {
        let result = try await probeHostile(timeout: 1) { _ in sleep(3) }
        XCTAssertEqual(result.error?.kind, .timeout)
        XCTAssertEqual(result.error?.phase, "processing")
    }

    func testSlowlorisTimesOutInTransfer() async throws {
        let result = try await probeHostile(timeout: 1.5) { fd in
            HostileServer.send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")
            for _ in 0..<4 { HostileServer.send(fd, "x"); sleep(1) }
        }
        XCTAssertEqual(result.error?.kind, .timeout)
        XCTAssertEqual(result.error?.phase, "transfer")
    }

    func testPlainHTTPOnTheTLSPort() async throws {
        let result = try await probeHostile(readRequest: false, https: true) { fd in
            var buffer = [UInt8](repeating: 0, count: 1024)
            _ = read(fd, &buffer, buffer.count)  // the ClientHello, answered like a plain HTTP server would
            HostileServer.send(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
        XCTAssertEqual(result.error?.kind, .tlsHandshake, "\(String(describing: result.error))")
    }

    func testCloseDuringHandshake() async throws {
        let result = try await probeHostile(readRequest: false, https: true) { fd in
            var buffer = [UInt8](repeating: 0, count: 1024)
            _ = read(fd, &buffer, buffer.count)  // the ClientHello, then hang up
        }
        XCTAssertEqual(result.error?.kind, .tlsHandshake, "\(String(describing: result.error))")
    }

    func testTLSAlertMidHandshake() async throws {
        let result = try await probeHostile(readRequest: false, https: true) { fd in
            var buffer = [UInt8](repeating: 0, count: 1024)
            _ = read(fd, &buffer, buffer.count)
            HostileServer.send(fd, [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28])  // fatal handshake_failure
        }
        XCTAssertEqual(result.error?.kind, .tlsHandshake)
        XCTAssertEqual(result.error?.alert, "handshake failure", "\(String(describing: result.error))")
    }
}

/// The connect phase: a listener whose accept queue is full drops SYNs, so a connect to it never completes.
final class ConnectTimeoutTests: ProbeTestCase {
    /// A listening socket with backlog 0 and one connection nobody accepts: its accept queue is full.
    private final class FullBacklogListener {
        let port: Int
        private var descriptors: [Int32] = []

        init() throws {
            let listener = try LoopbackListener(backlog: 0, reuseAddress: false)
            port = listener.port
            descriptors.append(listener.descriptor)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(port).bigEndian
            let length = socklen_t(MemoryLayout<sockaddr_in>.size)
            for _ in 0..<2 {  // the first fills the queue; the second stays in SYN-SENT
                let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                _ = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
                }
                descriptors.append(filler)
            }
            usleep(100_000)
        }

        deinit { descriptors.forEach { close($0) } }
    }

    func testConnectTimeoutIsTyped() async throws {
        let listener = try FullBacklogListener()
        var settings = try configuration(timeout: 5)
        settings.connectTimeout = 0.5
        let start = Date()
        let result = try await probe("http://127.0.0.1:\(listener.port)/", configuration: settings)
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(result.error?.kind, .connectTimeout, "\(String(describing: result.error))")
        XCTAssertGreaterThanOrEqual(elapsed, 0.45)
        XCTAssertLessThan(elapsed, 2, "the connect timeout must end the probe")
        XCTAssertNil(result.timings.connect, "no connection was made")
    }

    func testProbeTimeoutCapsTheConnect() async throws {
        let listener = try FullBacklogListener()
        let start = Date()
        let result = try await probe("http://127.0.0.1:\(listener.port)/", configuration: configuration(timeout: 0.5))
        XCTAssertLessThan(Date().timeIntervalSince(start), 1.5)
        XCTAssertEqual(result.error?.kind, .timeout, "\(String(describing: result.error))")
        XCTAssertEqual(result.error?.phase, "connect")
    }
}
