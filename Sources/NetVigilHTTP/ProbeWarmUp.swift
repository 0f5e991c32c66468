import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTP2

/// The one-time work of a process's first probe that does not need the probe's arguments, done ahead of it.
///
/// `netvigil probe` runs this on a thread of its own while the main thread parses the arguments, so that the probe,
/// which starts on the event loop once they are parsed, finds it done (docs/performance.md, start-up).
public enum ProbeWarmUp {
    /// OpenSSL's set-up and default client context, a pipeline's first set-up with the HTTP/1 handlers, then the
    /// conformance look-ups of the probe's other handlers.
    public static func run() {
        OpenSSLPreparation.warmUp()
        makePipeline()
        for handler in handlerTypes { lookUpConformances(of: handler) }
    }

    /// Builds a pipeline with the HTTP/1 client handlers on an in-memory channel and closes it: the first pipeline of
    /// a process checks its head and tail handlers' conformances (four scans of the records), the handlers' types are
    /// made, and the response decoder's check for a write-observing decoder is cached, so that the probe's connection
    /// and its handlers added after the handshake find them done (docs/performance.md, start-up).
    static func makePipeline() {
        let channel = EmbeddedChannel()
        try? channel.pipeline.syncOperations.addHTTPClientHandlers()
        _ = try? channel.finish()
    }

    /// The handlers a probe's pipeline holds besides the HTTP/1 ones `makePipeline` has added: TLS, HTTP/2, the
    /// collector.
    static var handlerTypes: [any ChannelHandler.Type] {
        [OpenSSLTLSHandler.self, ResponseCollector.self, NIOHTTP2Handler.self, HTTP2ProbeStreamCodec.self]
    }

    /// Makes the Swift runtime find and cache whether `handler` is an inbound and an outbound handler: the two casts
    /// `ChannelHandlerContext.init` makes for every handler added to a pipeline. A first look-up of a type scans all
    /// ~10,300 conformance records of the binary; for the handlers above that was 7 M instructions of a fresh probe.
    /// Not optimised, so that the compiler, which can tell the answers from the types, keeps the casts.
    @_optimize(none)
    static func lookUpConformances(of handler: any ChannelHandler.Type) {
        _ = handler as? any _ChannelInboundHandler.Type
        _ = handler as? any _ChannelOutboundHandler.Type
    }
}
