import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTP2
import NIOTLS
import XCTest
@testable import NetVigilProber

/// The ALPN switch on an EmbeddedChannel: nothing is written before the TLS handler reports a trusted handshake;
/// `h2` builds the HTTP/2 pipeline (preface, one stream), anything else HTTP/1.1; `http_version: "2"` refuses
/// HTTP/1.1 without writing a byte.
final class HTTPVersionNegotiationTests: XCTestCase {
    private func makeChannel(requiresHTTP2: Bool = false) throws -> (EmbeddedChannel, EventLoopFuture<HTTPResponse>) {
        let channel = EmbeddedChannel()
        let promise = channel.eventLoop.makePromise(of: HTTPResponse.self)
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/health",
                                   headers: ["Host": "example.com", "Connection": "close"])
        let recorder = HopRecorder()
        let collector = ResponseCollector(head: head, body: [], maxBodyBytes: 1_000, deadline: .now() + .seconds(60), usesTLS: true,
                                          promise: promise, recorder: recorder, start: .afterNegotiation)
        try Prober.addNegotiatedHTTP(to: channel, collector: collector, requiresHTTP2: requiresHTTP2)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return (channel, promise.futureResult)
    }

    private func outbound(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
        return bytes
    }

    private func frame(_ type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8] = []) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(payload.count) << 8 | UInt32(type))  // 24-bit length, type
        buffer.writeInteger(flags)
        buffer.writeInteger(stream)
        buffer.writeBytes(payload)
        return buffer
    }

    /// The types of the frames in `bytes`, in order.
    private func frameTypes(_ bytes: [UInt8]) -> [UInt8] {
        var types: [UInt8] = []
        var index = 0
        while index + 9 <= bytes.count {
            types.append(bytes[index + 3])
            index += 9 + (Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]))
        }
        return types
    }

    func testH2BuildsTheHTTP2PipelineAndCollectsTheStream() throws {
        let (channel, response) = try makeChannel()
        XCTAssertEqual(try outbound(channel), [], "nothing before the handshake is trusted")
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: "h2"))
        let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
        var sent = try outbound(channel)
        XCTAssertTrue(sent.starts(with: preface), "\(sent.prefix(24))")
        try channel.writeInbound(frame(0x4, flags: 0, stream: 0))               // server SETTINGS
        channel.embeddedEventLoop.run()  // the stream's activation is a task on the loop
        sent += try outbound(channel)
        let types = frameTypes(Array(sent.dropFirst(preface.count)))
        XCTAssertEqual(types.first, 0x4, "the client's SETTINGS first: \(types)")
        XCTAssertEqual(types.filter { $0 == 0x1 }.count, 1, "one stream, one HEADERS: \(types)")
        try channel.writeInbound(frame(0x1, flags: 0x4, stream: 1, [0x88]))     // HEADERS :status 200
        try channel.writeInbound(frame(0x0, flags: 0x1, stream: 1, Array("ok".utf8)))  // DATA, END_STREAM
        let received = try response.wait()
        XCTAssertEqual(received.version, "HTTP/2")
        XCTAssertEqual(received.status, 200)
        XCTAssertEqual(received.body, Array("ok".utf8))
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }

    func testHTTP11OrNoALPNSpeaksHTTP11() throws {
        for negotiated in ["http/1.1", nil] as [String?] {
            let (channel, response) = try makeChannel()
            channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: negotiated))
            let sent = String(decoding: try outbound(channel), as: UTF8.self)
            XCTAssertTrue(sent.hasPrefix("GET /health HTTP/1.1\r\n"), sent)
            var answer = ByteBuffer()
            answer.writeString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            try channel.writeInbound(answer)
            let received = try response.wait()
            XCTAssertEqual(received.version, "HTTP/1.1")
            XCTAssertEqual(received.body, Array("ok".utf8))
            _ = try? channel.finish(acceptAlreadyClosed: true)
        }
    }

    func testRequiredHTTP2RefusesHTTP11WithoutWriting() throws {
        let (channel, response) = try makeChannel(requiresHTTP2: true)
        channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: "http/1.1"))
        XCTAssertEqual(try outbound(channel), [])
        XCTAssertThrowsError(try response.wait()) { error in
            XCTAssertEqual((error as? ProbeError)?.kind, .http2Unavailable, "\(error)")
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }

    /// The real TLS handler against `MemoryTLSServer` (TLS 1.2: the server's Finished ends the handshake): the
    /// server's answer arrives in the same read as its Finished, yet the handlers the negotiation adds see all of it
    /// (the collector adds them while the TLS handler reports the handshake, before it reads any plaintext).
    func testServerBytesInTheReadThatEndsTheHandshakeReachTheNegotiatedProtocol() throws {
        for alpn in ["h2", "http/1.1"] {
            let server = try MemoryTLSServer(tls12Only: true, alpn: alpn)
            let channel = EmbeddedChannel()
            let promise = channel.eventLoop.makePromise(of: HTTPResponse.self)
            let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/health",
                                       headers: ["Host": "localhost", "Connection": "close"])
            let collector = ResponseCollector(head: head, body: [], maxBodyBytes: 1_000, deadline: .now() + .seconds(60),
                                              usesTLS: true, promise: promise, recorder: HopRecorder(), start: .afterNegotiation)
            let tls = try OpenSSLTLSHandler(configuration: TLSConfiguration(alpnProtocols: ["h2", "http/1.1"]),
                                            serverName: "localhost", trustDecision: { _ in nil }, onHandshake: { _ in })
            try channel.pipeline.syncOperations.addHandler(tls)
            try Prober.addNegotiatedHTTP(to: channel, collector: collector, requiresHTTP2: false)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
            // Run the handshake until the server has finished it; its last flight stays with the server for now.
            for _ in 0..<10 where !server.isHandshakeComplete {
                while let bytes = try channel.readOutbound(as: ByteBuffer.self) { server.receive(bytes) }
                server.step()
                if !server.isHandshakeComplete, let reply = server.takeCiphertext() { try channel.writeInbound(reply) }
            }
            XCTAssertTrue(server.isHandshakeComplete, alpn)
            XCTAssertNil(try channel.readOutbound(as: ByteBuffer.self), "nothing sent before the client's handshake ends")
            if alpn == "h2" {
                var answer = frame(0x4, flags: 0, stream: 0)                                  // SETTINGS
                answer.writeImmutableBuffer(frame(0x1, flags: 0x4, stream: 1, [0x88]))       // HEADERS :status 200
                answer.writeImmutableBuffer(frame(0x0, flags: 0x1, stream: 1, Array("ok".utf8)))  // DATA, END_STREAM
                server.send(Array(answer.readableBytesView))
            } else {
                server.send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
            // The server's Finished and its answer: one read.
            try channel.writeInbound(XCTUnwrap(server.takeCiphertext()))
            channel.embeddedEventLoop.run()
            let received = try response(promise.futureResult, alpn)
            XCTAssertEqual(received.version, alpn == "h2" ? "HTTP/2" : "HTTP/1.1")
            XCTAssertEqual(received.status, 200)
            XCTAssertEqual(received.body, Array("ok".utf8))
            while let bytes = try channel.readOutbound(as: ByteBuffer.self) { server.receive(bytes) }
            server.step()
            let request = alpn == "h2" ? Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) : Array("GET /health HTTP/1.1\r\n".utf8)
            XCTAssertTrue(server.received.starts(with: request), "\(alpn): \(server.received.prefix(24))")
            _ = try? channel.finish(acceptAlreadyClosed: true)
        }
    }

    /// A future's result once complete; the embedded event loop completes it on the test thread.
    private final class Outcome: @unchecked Sendable {
        var result: Result<HTTPResponse, any Error>?
    }

    private func response(_ future: EventLoopFuture<HTTPResponse>, _ alpn: String) throws -> HTTPResponse {
        let outcome = Outcome()
        future.whenComplete { outcome.result = $0 }
        return try XCTUnwrap(outcome.result, "\(alpn): no response from the bytes of the handshake's last read").get()
    }

    func testHTTP2ErrorsAreNamed() {
        let refused = ResponseCollector.probeError(for: NIOHTTP2Errors.streamClosed(streamID: 1, errorCode: .refusedStream))
        XCTAssertEqual(refused.kind, .httpProtocol)
        XCTAssertTrue(refused.message.contains("REFUSED_STREAM"), refused.message)
        let reset = ResponseCollector.probeError(for: NIOHTTP2Errors.streamClosed(streamID: 1, errorCode: .init(networkCode: 0x42)))
        XCTAssertTrue(reset.message.contains("error code 0x42"), reset.message)
    }
}
