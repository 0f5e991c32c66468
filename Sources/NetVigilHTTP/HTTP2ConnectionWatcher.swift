import NIOCore
import NIOHTTP2

/// The last handler of an HTTP/2 connection's pipeline: takes the connection-level frames the multiplexer passes on
/// (SETTINGS, PING, GOAWAY: NIOHTTP2 has already acted on them) and hands connection errors to the probe's stream,
/// whose `ResponseCollector` turns them into the probe's error. Before the stream exists it fails the probe itself.
final class HTTP2ConnectionWatcher: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    /// The probe's stream, once created.
    var stream: (any Channel)?
    private let promise: EventLoopPromise<HTTPResponse>

    init(promise: EventLoopPromise<HTTPResponse>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Connection-level frames end here; a GOAWAY below the probe's stream (the first, 1) refuses it.
        guard case .goAway(let lastStreamID, let code, _) = unwrapInboundIn(data).payload, lastStreamID < 1 else { return }
        let error = ProbeError(.httpProtocol, "the server sent GOAWAY (\(ResponseCollector.errorCodeName(code)), last stream "
                               + "\(Int(lastStreamID))) before answering: the request was refused")
        if let stream {
            stream.pipeline.fireErrorCaught(error)
        } else {
            promise.fail(error)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let stream {
            stream.pipeline.fireErrorCaught(error)
        } else {
            promise.fail(ResponseCollector.probeError(for: error))
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if stream == nil {
            promise.fail(ProbeError(.httpProtocol, "the server closed the HTTP/2 connection before the request was sent"))
        }
        context.fireChannelInactive()
    }
}
