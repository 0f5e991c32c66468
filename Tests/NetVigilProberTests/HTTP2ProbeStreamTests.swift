import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import XCTest
@testable import NetVigilProber

/// The probe's HTTP/2 stream without sockets: `HTTP2ProbeStream`'s decisions (response parts, GOAWAY, RST_STREAM,
/// closure, windows, the request's header block) and `HTTP2ProbeStreamCodec` on an `EmbeddedChannel` (frames out,
/// response parts in, window updates).
final class HTTP2ProbeStreamTests: XCTestCase {
    private func headers(_ status: String, _ fields: [(String, String)] = [], endStream: Bool = false) -> HTTP2Frame {
        HTTP2Frame(streamID: 1, payload: .headers(.init(headers: HPACKHeaders([(":status", status)] + fields), endStream: endStream)))
    }

    private func data(_ text: String, stream: HTTP2StreamID = 1, endStream: Bool = false) -> HTTP2Frame {
        HTTP2Frame(streamID: stream, payload: .data(.init(data: .byteBuffer(ByteBuffer(string: text)), endStream: endStream)))
    }

    private func message(_ action: HTTP2ProbeStream.Action) -> String? {
        guard case .fail(let error) = action else { return nil }
        return ResponseCollector.probeError(for: error).message
    }

    func testResponseHeadBodyAndEnd() {
        var stream = HTTP2ProbeStream()
        guard case .head(let head, endsStream: false) = stream.receive(headers("200", [("content-type", "text/plain")])) else {
            return XCTFail("no head")
        }
        XCTAssertEqual(head.version, .http2)
        XCTAssertEqual(head.status.code, 200)
        XCTAssertEqual(head.headers.first(name: "Content-Type"), "text/plain")
        XCTAssertEqual(stream.state, .receivingBody)
        guard case .body(.byteBuffer(let body), endsStream: true) = stream.receive(data("ok", endStream: true)) else {
            return XCTFail("no body")
        }
        XCTAssertEqual(String(buffer: body), "ok")
        XCTAssertEqual(stream.state, .closed)
        guard case .none = stream.receive(data("late")) else { return XCTFail("a closed stream passes nothing on") }
    }

    func testInformationalHeadThenFinalHeadWithoutBodyAndTrailers() {
        var stream = HTTP2ProbeStream()
        guard case .head(let early, endsStream: false) = stream.receive(headers("103")) else { return XCTFail("no 103") }
        XCTAssertEqual(early.status.code, 103)
        XCTAssertEqual(stream.state, .awaitingHead)
        guard case .head(_, endsStream: true) = stream.receive(headers("204", endStream: true)) else { return XCTFail("no 204") }
        XCTAssertEqual(stream.state, .closed)

        var trailed = HTTP2ProbeStream()
        _ = trailed.receive(headers("200"))
        let trailers = HTTP2Frame(streamID: 1, payload: .headers(.init(headers: ["grpc-status": "0"], endStream: true)))
        guard case .end(let fields) = trailed.receive(trailers) else { return XCTFail("no trailers") }
        XCTAssertEqual(fields.first(name: "grpc-status"), "0")
    }

    func testMalformedResponsesFail() {
        var noStatus = HTTP2ProbeStream()
        XCTAssertEqual(message(noStatus.receive(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: ["a": "b"]))))),
                       "HTTP/2 protocol error: a response HEADERS without a valid :status")
        var early = HTTP2ProbeStream()
        XCTAssertNotNil(message(early.receive(data("x"))), "DATA before HEADERS")
        XCTAssertEqual(early.state, .closed)
    }

    func testGoAwayRefusesOnlyBelowStreamOne() {
        var stream = HTTP2ProbeStream()
        let kept = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 1, errorCode: .noError, opaqueData: nil))
        guard case .none = stream.receive(kept) else { return XCTFail("GOAWAY with last stream 1 keeps the stream") }
        let refused = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: 0, errorCode: .noError, opaqueData: nil))
        XCTAssertEqual(message(stream.receive(refused)),
                       "the server sent GOAWAY (NO_ERROR, last stream 0) before answering: the request was refused")
        XCTAssertEqual(stream.state, .closed)
        guard case .none = stream.streamClosed(reason: .refusedStream) else { return XCTFail("one failure only") }
    }

    func testResetAndAbnormalClosureAreNamed() {
        var reset = HTTP2ProbeStream()
        _ = reset.receive(headers("200"))
        XCTAssertEqual(message(reset.receive(HTTP2Frame(streamID: 1, payload: .rstStream(.internalError)))),
                       "the server reset the HTTP/2 stream before the response was complete (RST_STREAM INTERNAL_ERROR)")
        var refused = HTTP2ProbeStream()
        XCTAssertTrue(message(refused.streamClosed(reason: .refusedStream))?.contains("REFUSED_STREAM") ?? false)
        var other = HTTP2ProbeStream()
        guard case .none = other.receive(data("x", stream: 3)) else { return XCTFail("other streams are not the probe's") }
        XCTAssertEqual(other.state, .awaitingHead)
    }

    func testWindowsAreToppedUpOnlyWhileTheBodyComes() {
        var stream = HTTP2ProbeStream()
        XCTAssertNil(stream.windowIncrement(streamID: 1, inboundWindowSize: 10), "no body yet")
        _ = stream.receive(headers("200"))
        XCTAssertNil(stream.windowIncrement(streamID: 1, inboundWindowSize: 40_000))
        XCTAssertEqual(stream.windowIncrement(streamID: 1, inboundWindowSize: 30_000), 35_535)
        XCTAssertEqual(stream.windowIncrement(streamID: .rootStream, inboundWindowSize: 0), 65_535)
        XCTAssertNil(stream.windowIncrement(streamID: 3, inboundWindowSize: 0))
        XCTAssertNil(stream.windowIncrement(streamID: 1, inboundWindowSize: nil))
        _ = stream.receive(data("", endStream: true))
        XCTAssertNil(stream.windowIncrement(streamID: 1, inboundWindowSize: 0), "the stream ended")
    }

    func testRequestHeaderBlock() {
        let head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/x?y=1",
                                   headers: ["Host": "example.com:8443", "Connection": "close", "User-Agent": "netvigil",
                                             "Content-Length": "2", "TE": "gzip", "Keep-Alive": "5", "X-Probe": "A"])
        let block = HTTP2ProbeStream.requestHeaders(head)
        XCTAssertEqual(block.map { "\($0.name)=\($0.value)" },
                       [":method=POST", ":scheme=https", ":authority=example.com:8443", ":path=/v1/x?y=1",
                        "user-agent=netvigil", "content-length=2", "x-probe=A"])
    }

    // MARK: The codec on an EmbeddedChannel

    private func codecChannel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: HTTP2ProbeStreamCodec())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 443)).wait()
        return channel
    }

    func testCodecWritesHeadersWithEndStreamOrDataLast() throws {
        let channel = try codecChannel()
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": "h"])
        // Not `writeOutbound`, which waits for the write's promise: the head's completes with the end's frame.
        channel.writeAndFlush(HTTPClientRequestPart.head(head), promise: nil)
        XCTAssertNil(try channel.readOutbound(as: HTTP2Frame.self), "HEADERS wait for the end")
        try channel.writeOutbound(HTTPClientRequestPart.end(nil))
        let only = try XCTUnwrap(channel.readOutbound(as: HTTP2Frame.self))
        guard case .headers(let headers) = only.payload else { return XCTFail("\(only)") }
        XCTAssertEqual(only.streamID, 1)
        XCTAssertTrue(headers.endStream)
        XCTAssertNil(try channel.readOutbound(as: HTTP2Frame.self))

        let post = try codecChannel()
        post.writeAndFlush(HTTPClientRequestPart.head(head), promise: nil)
        post.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: "{}"))), promise: nil)
        try post.writeOutbound(HTTPClientRequestPart.end(nil))
        let frames = [try post.readOutbound(as: HTTP2Frame.self), try post.readOutbound(as: HTTP2Frame.self)].compactMap { $0 }
        guard frames.count == 2, case .headers(let first) = frames[0].payload, case .data(let second) = frames[1].payload else {
            return XCTFail("\(frames)")
        }
        XCTAssertFalse(first.endStream)
        XCTAssertTrue(second.endStream)
        _ = try? channel.finish(acceptAlreadyClosed: true)
        _ = try? post.finish(acceptAlreadyClosed: true)
    }

    func testCodecPassesResponsePartsAndOpensWindows() throws {
        let channel = try codecChannel()
        try channel.writeInbound(headers("200", [("content-length", "2")]))
        guard case .head(let head) = try channel.readInbound(as: HTTPClientResponsePart.self) else { return XCTFail("no head") }
        XCTAssertEqual(head.status, .ok)
        channel.pipeline.fireUserInboundEventTriggered(NIOHTTP2WindowUpdatedEvent(streamID: 1, inboundWindowSize: 20_000, outboundWindowSize: nil))
        let update = try XCTUnwrap(channel.readOutbound(as: HTTP2Frame.self))
        guard case .windowUpdate(let increment) = update.payload else { return XCTFail("\(update)") }
        XCTAssertEqual(update.streamID, 1)
        XCTAssertEqual(increment, 45_535)
        try channel.writeInbound(data("ok", endStream: true))
        guard case .body(let body) = try channel.readInbound(as: HTTPClientResponsePart.self) else { return XCTFail("no body") }
        XCTAssertEqual(String(buffer: body), "ok")
        guard case .end = try channel.readInbound(as: HTTPClientResponsePart.self) else { return XCTFail("no end") }
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }

    func testCodecReportsAResetAsAnError() throws {
        let channel = try codecChannel()
        XCTAssertThrowsError(try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .rstStream(.refusedStream)))) { error in
            XCTAssertEqual((error as? NIOHTTP2Errors.StreamClosed)?.errorCode, .refusedStream, "\(error)")
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
    }
}
