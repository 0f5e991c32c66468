import NIOCore
import NIOEmbedded
import XCTest
@testable import NetVigilProber

/// `ProxyConnectHandler` in an `EmbeddedChannel`: what goes to the proxy, what the handlers after it see, and when.
final class ProxyConnectHandlerTests: XCTestCase {
    /// Records what reaches the handlers after the proxy handler; writes `greeting` when the channel becomes active.
    private final class Downstream: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        var activated = false
        var received = ""
        var errors: [any Error] = []

        func channelActive(context: ChannelHandlerContext) {
            activated = true
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: "ClientHello")), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            received += String(buffer: unwrapInboundIn(data))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) { errors.append(error) }
    }

    private func makeChannel(credentials: ProxyCredentials? = nil) throws -> (EmbeddedChannel, Downstream) {
        let proxy = try ProxyConfiguration(url: "http://proxy.test:3128", credentials: credentials)
        let downstream = Downstream()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            ProxyConnectHandler(host: "origin.test", port: 8443, proxy: proxy, answerTimeout: .seconds(5)))
        try channel.pipeline.syncOperations.addHandler(downstream)
        try channel.connect(to: SocketAddress(ipAddress: "192.0.2.1", port: 3128)).wait()
        return (channel, downstream)
    }

    private func outbound(_ channel: EmbeddedChannel) throws -> [String] {
        var written: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { written.append(String(buffer: buffer)) }
        return written
    }

    func testConnectIsSentAndEverythingElseWaitsForTheTwoHundred() throws {
        let (channel, downstream) = try makeChannel(credentials: try ProxyCredentials(user: "probe", password: "s3cret"))
        XCTAssertEqual(try outbound(channel), ["CONNECT origin.test:8443 HTTP/1.1\r\nHost: origin.test:8443\r\n"
                                              + "Proxy-Authorization: Basic cHJvYmU6czNjcmV0\r\n\r\n"])
        XCTAssertFalse(downstream.activated, "the handlers after the tunnel must not start before it is open")
        let early = channel.writeAndFlush(ByteBuffer(string: "early"))
        XCTAssertEqual(try outbound(channel), [], "nothing but CONNECT goes to the proxy before its answer")

        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\nServerHello"))
        XCTAssertTrue(downstream.activated)
        XCTAssertEqual(downstream.received, "ServerHello", "bytes after the head belong to the origin")
        XCTAssertEqual(try outbound(channel), ["early", "ClientHello"])
        XCTAssertNoThrow(try early.wait())
        XCTAssertThrowsError(try channel.pipeline.syncOperations.handler(type: ProxyConnectHandler.self), "removed after 2xx")
        try channel.writeInbound(ByteBuffer(string: " more"))
        XCTAssertEqual(downstream.received, "ServerHello more")
        _ = try channel.finish()
    }

    func testRefusalFailsWithKindProxyNamingTheStatusAndSendsNothingHeld() throws {
        let (channel, downstream) = try makeChannel()
        XCTAssertFalse(try outbound(channel).first?.contains("Proxy-Authorization") ?? true, "no credentials configured")
        let early = channel.writeAndFlush(ByteBuffer(string: "request bytes"))
        try channel.writeInbound(ByteBuffer(string: "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n"))
        let error = try XCTUnwrap(downstream.errors.first as? ProbeError)
        XCTAssertEqual(error.kind, .proxy)
        XCTAssertTrue(error.message.contains("407"), error.message)
        XCTAssertFalse(downstream.activated)
        XCTAssertThrowsError(try early.wait())
        XCTAssertEqual(try outbound(channel), [])
        XCTAssertFalse(channel.isActive)
    }

    func testCloseBeforeTheAnswerAndSilenceAreFailures() throws {
        let (closing, closed) = try makeChannel()
        try closing.writeInbound(ByteBuffer(string: "HTTP/1.1 200 Conn"))
        try closing.close().wait()
        XCTAssertEqual((closed.errors.first as? ProbeError)?.kind, .proxy)
        XCTAssertFalse(closed.activated)

        let (silent, waiting) = try makeChannel()
        silent.embeddedEventLoop.advanceTime(by: .seconds(4))
        XCTAssertTrue(waiting.errors.isEmpty)
        silent.embeddedEventLoop.advanceTime(by: .seconds(2))
        let timeout = try XCTUnwrap(waiting.errors.first as? ProbeError)
        XCTAssertEqual(timeout.kind, .timeout)
        XCTAssertEqual(timeout.phase, "proxy")
        XCTAssertFalse(silent.isActive)
    }

    func testIPv6OriginIsBracketed() {
        let request = String(decoding: ProxyConnectHandler.connectRequest(host: "2001:db8::1", port: 443, authorization: nil), as: UTF8.self)
        XCTAssertEqual(request, "CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n\r\n")
    }
}
