import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// The probe's HTTP/2 stream without a multiplexer: sits between `NIOHTTP2Handler` and the `ResponseCollector`,
/// writes the collector's request as stream 1's HEADERS (and DATA) frames and turns stream 1's frames back into
/// response parts, as `HTTP2ProbeStream` decides. A GOAWAY refusing stream 1, its RST_STREAM or abnormal closure
/// reach the collector as errors; connection errors of NIOHTTP2 pass through unchanged. It keeps the connection's
/// and the stream's receive windows open while the body comes (without a multiplexer nobody else does).
final class HTTP2ProbeStreamCodec: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTPClientResponsePart
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = HTTP2Frame

    private var stream = HTTP2ProbeStream()
    /// The request's last frame so far, held until the next part says whether it ends the stream.
    private var pending: (payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>?)?

    // MARK: Inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        apply(stream.receive(unwrapInboundIn(data)), context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let update as NIOHTTP2WindowUpdatedEvent:
            if let increment = stream.windowIncrement(streamID: update.streamID, inboundWindowSize: update.inboundWindowSize) {
                let frame = HTTP2Frame(streamID: update.streamID, payload: .windowUpdate(windowSizeIncrement: increment))
                context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
            }
        case let closed as StreamClosedEvent where closed.streamID == HTTP2ProbeStream.id:
            apply(stream.streamClosed(reason: closed.reason), context: context)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func apply(_ action: HTTP2ProbeStream.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            return
        case .head(let head, let endsStream):
            context.fireChannelRead(wrapInboundOut(.head(head)))
            if endsStream { context.fireChannelRead(wrapInboundOut(.end(nil))) }
        case .body(let data, let endsStream):
            if case .byteBuffer(let buffer) = data, buffer.readableBytes > 0 {
                context.fireChannelRead(wrapInboundOut(.body(buffer)))
            }
            if endsStream { context.fireChannelRead(wrapInboundOut(.end(nil))) }
        case .end(let trailers):
            context.fireChannelRead(wrapInboundOut(.end(trailers)))
        case .fail(let error):
            context.fireErrorCaught(error)
        }
    }

    // MARK: Outbound

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            writePending(context: context)
            pending = (.headers(.init(headers: HTTP2ProbeStream.requestHeaders(head))), promise)
        case .body(let body):
            writePending(context: context)
            pending = (.data(.init(data: body)), promise)
        case .end(let trailers):
            // END_STREAM on the last frame: the HEADERS of a request without body, else its last DATA.
            var last = pending ?? (.data(.init(data: .byteBuffer(ByteBuffer()))), nil)
            pending = nil
            if let trailers {
                write(last.payload, promise: last.promise, context: context)
                last = (.headers(.init(headers: HPACKHeaders(httpHeaders: trailers))), nil)
            }
            switch last.payload {
            case .headers(var headers):
                headers.endStream = true
                last.payload = .headers(headers)
            case .data(var body):
                body.endStream = true
                last.payload = .data(body)
            default:
                break
            }
            last.promise.setOrCascade(to: promise)
            write(last.payload, promise: last.promise, context: context)
        }
    }

    private func writePending(context: ChannelHandlerContext) {
        guard let (payload, promise) = pending else { return }
        pending = nil
        write(payload, promise: promise, context: context)
    }

    private func write(_ payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: HTTP2ProbeStream.id, payload: payload)), promise: promise)
    }
}
