import COpenSSL
import NIOCore
import NIOEmbedded
import XCTest
@testable import NetVigilProber

/// `OpenSSLTLSHandler` in an `EmbeddedChannel` against `MemoryTLSServer`: the whole TLS exchange runs in memory,
/// no sockets. The nginx and python tests cover the handler inside `Prober`.
final class OpenSSLTLSHandlerTests: XCTestCase {
    /// What the handler reported through its callbacks.
    private final class Log {
        var sessions: [TLSSessionInfo] = []
    }

    /// The outcome of a write's future; the embedded event loop completes it on the test thread.
    private final class Outcome: @unchecked Sendable {
        var result: Result<Void, any Error>?

        init(_ future: EventLoopFuture<Void>) {
            future.whenComplete { self.result = $0 }
        }

        var error: (any Error)? {
            if case .failure(let error) = result { return error }
            return nil
        }
    }

    private func makeChannel(log: Log = Log(), refusal: ProbeError? = nil) throws -> EmbeddedChannel {
        let handler = try OpenSSLTLSHandler(configuration: TLSConfiguration(), serverName: "localhost",
                                            trustDecision: { _ in refusal }, onHandshake: { log.sessions.append($0) })
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return channel
    }

    /// Moves ciphertext both ways until neither side has anything to say.
    private func pump(_ channel: EmbeddedChannel, _ server: MemoryTLSServer) throws {
        for _ in 0..<20 {
            var moved = false
            while let bytes = try channel.readOutbound(as: ByteBuffer.self) {
                server.receive(bytes)
                moved = true
            }
            server.step()
            if let reply = server.takeCiphertext() {
                moved = true
                try channel.writeInbound(reply)
            }
            if !moved { return }
        }
        XCTFail("the exchange did not settle")
    }

    private func readPlaintext(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    // MARK: Success

    func testHandshakeThenApplicationDataBothWays() throws {
        let server = try MemoryTLSServer()
        let log = Log()
        let channel = try makeChannel(log: log)
        try pump(channel, server)
        XCTAssertTrue(server.isHandshakeComplete)
        XCTAssertEqual(log.sessions.count, 1)
        XCTAssertEqual(log.sessions.first?.version, "TLSv1.3")
        XCTAssertEqual(log.sessions.first?.servedChain.count, 1, "the server sends its leaf only")
        XCTAssertNil(log.sessions.first?.alpn, "the server selects no ALPN protocol")

        let write = Outcome(channel.writeAndFlush(ByteBuffer(string: "ping")))
        server.send("pong")
        try pump(channel, server)
        XCTAssertEqual(String(decoding: server.received, as: UTF8.self), "ping")
        XCTAssertNotNil(write.result)
        XCTAssertNil(write.error)
        XCTAssertEqual(try readPlaintext(channel), "pong")

        // Closing from this side sends close_notify.
        XCTAssertFalse(server.sawCloseNotify)
        channel.close(promise: nil)
        try pump(channel, server)
        XCTAssertTrue(server.sawCloseNotify)
        XCTAssertFalse(channel.isActive)
    }

    func testWritesBeforeTheHandshakeAreBufferedThenSentInOrder() throws {
        let server = try MemoryTLSServer()
        let channel = try makeChannel()
        let first = Outcome(channel.write(ByteBuffer(string: "GET / HTTP/1.1\r\n")))
        let second = Outcome(channel.writeAndFlush(ByteBuffer(string: "Host: localhost\r\n\r\n")))
        // Only the ClientHello left: one handshake record, the promises wait.
        let hello = try XCTUnwrap(channel.readOutbound(as: ByteBuffer.self))
        XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self))
        XCTAssertEqual(hello.getInteger(at: hello.readerIndex, as: UInt8.self), 22, "a handshake record")
        XCTAssertNil(first.result)
        XCTAssertNil(second.result)

        server.receive(hello)
        try pump(channel, server)
        XCTAssertEqual(String(decoding: server.received, as: UTF8.self), "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        XCTAssertNotNil(first.result)
        XCTAssertNil(first.error)
        XCTAssertNotNil(second.result)
        XCTAssertNil(second.error)
    }

    func testSmallWritesOfOneFlushLeaveAsOneRecord() throws {
        let server = try MemoryTLSServer()
        let channel = try makeChannel()
        try pump(channel, server)
        let writes = ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "SETTINGS", "HEADERS"].map { Outcome(channel.write(ByteBuffer(string: $0))) }
        XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self), "nothing before the flush")
        channel.flush()
        let ciphertext = try XCTUnwrap(channel.readOutbound(as: ByteBuffer.self))
        XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self))
        let recordLength = try XCTUnwrap(ciphertext.getInteger(at: ciphertext.readerIndex + 3, as: UInt16.self))
        XCTAssertEqual(Int(recordLength) + 5, ciphertext.readableBytes, "one record")
        server.receive(ciphertext)
        server.step()
        XCTAssertEqual(String(decoding: server.received, as: UTF8.self), "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nSETTINGSHEADERS")
        for write in writes {
            XCTAssertNotNil(write.result)
            XCTAssertNil(write.error)
        }
    }

    // MARK: Ends

    func testCloseNotifyFromThePeerEndsTheChannelCleanly() throws {
        let server = try MemoryTLSServer()
        let channel = try makeChannel()
        try pump(channel, server)
        server.send("last words")
        server.shutdown()
        XCTAssertNoThrow(try pump(channel, server))
        XCTAssertEqual(try readPlaintext(channel), "last words")
        XCTAssertFalse(channel.isActive)
        XCTAssertNoThrow(try channel.throwIfErrorCaught())
    }

    func testClosingDuringTheHandshakeIsATypedError() throws {
        let channel = try makeChannel()
        let pending = Outcome(channel.writeAndFlush(ByteBuffer(string: "GET /")))
        channel.close(promise: nil)
        XCTAssertThrowsError(try channel.throwIfErrorCaught()) { error in
            guard case .closedDuringHandshake? = error as? TLSHandlerError else { return XCTFail("\(error)") }
        }
        XCTAssertNotNil(pending.error)
    }

    // MARK: Failures

    func testFatalAlertFromThePeerIsAHandshakeError() throws {
        // TLS 1.3 with a suite the client does not offer: the server answers handshake_failure.
        let server = try MemoryTLSServer(tls13Only: true, cipherSuites: "TLS_AES_128_CCM_SHA256")
        let log = Log()
        let channel = try makeChannel(log: log)
        let pending = Outcome(channel.writeAndFlush(ByteBuffer(string: "GET /")))
        XCTAssertThrowsError(try pump(channel, server)) { error in
            guard case .handshakeFailed(let failure)? = error as? TLSHandlerError else { return XCTFail("\(error)") }
            XCTAssertEqual(failure.code, SSL_ERROR_SSL)
            XCTAssertEqual(failure.alert, "handshake failure")
            let probeError = ResponseCollector.probeError(for: error)
            XCTAssertEqual(probeError.kind, .tlsHandshake)
            XCTAssertEqual(probeError.alert, "handshake failure")
        }
        XCTAssertNotEqual(server.failureCode, 0)
        XCTAssertTrue(log.sessions.isEmpty)
        XCTAssertFalse(channel.isActive)
        guard case .handshakeFailed? = pending.error as? TLSHandlerError else {
            return XCTFail("the buffered write must fail with the handshake error: \(String(describing: pending.result))")
        }
    }

    func testGarbageInsteadOfAServerHelloIsAHandshakeError() throws {
        for garbage in ["HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", String(repeating: "\0", count: 64)] {
            let channel = try makeChannel()
            _ = try channel.readOutbound(as: ByteBuffer.self)  // the ClientHello
            let pending = Outcome(channel.writeAndFlush(ByteBuffer(string: "GET /")))
            XCTAssertThrowsError(try channel.writeInbound(ByteBuffer(string: garbage))) { error in
                guard case .handshakeFailed(let failure)? = error as? TLSHandlerError else { return XCTFail("\(error)") }
                XCTAssertEqual(failure.code, SSL_ERROR_SSL)
                XCTAssertNotNil(failure.reason)
                XCTAssertEqual(ResponseCollector.probeError(for: error).kind, .tlsHandshake)
            }
            XCTAssertFalse(channel.isActive)
            XCTAssertNotNil(pending.error)
            XCTAssertNil(try channel.readInbound(as: ByteBuffer.self))
        }
    }

    func testAFailureAfterTheHandshakeIsAPostHandshakeError() throws {
        let server = try MemoryTLSServer()
        let channel = try makeChannel()
        try pump(channel, server)
        server.send("hello")
        var record = try XCTUnwrap(server.takeCiphertext())
        let last = record.writerIndex - 1
        record.setInteger(record.getInteger(at: last, as: UInt8.self)! ^ 0xFF, at: last)  // breaks the record's tag
        XCTAssertThrowsError(try channel.writeInbound(record)) { error in
            guard case .postHandshakeFailed(let failure)? = error as? TLSHandlerError else { return XCTFail("\(error)") }
            XCTAssertEqual(failure.code, SSL_ERROR_SSL)
            XCTAssertNotNil(failure.reason)
            let probeError = ResponseCollector.probeError(for: error)
            XCTAssertEqual(probeError.kind, .httpProtocol)
            XCTAssertTrue(probeError.message.hasPrefix("TLS error after the handshake: "), probeError.message)
        }
        XCTAssertNil(try channel.readInbound(as: ByteBuffer.self))
        XCTAssertFalse(channel.isActive)
    }

    func testAnUntrustedChainReceivesNoApplicationByte() throws {
        let server = try MemoryTLSServer()
        let refusal = ProbeError(.trust, "not the pinned key", verdict: .untrusted(reason: "test"))
        let channel = try makeChannel(refusal: refusal)
        let pending = Outcome(channel.writeAndFlush(ByteBuffer(string: "GET /secret")))
        XCTAssertThrowsError(try pump(channel, server)) { error in
            guard case .untrusted(let probeError)? = error as? TLSHandlerError else { return XCTFail("\(error)") }
            XCTAssertEqual(probeError.verdict, .untrusted(reason: "test"))
        }
        while let bytes = try channel.readOutbound(as: ByteBuffer.self) { server.receive(bytes) }
        server.step()
        XCTAssertTrue(server.isHandshakeComplete)
        XCTAssertTrue(server.sawCloseNotify)
        XCTAssertTrue(server.received.isEmpty)
        XCTAssertNotNil(pending.error)
        XCTAssertFalse(channel.isActive)
    }
}
