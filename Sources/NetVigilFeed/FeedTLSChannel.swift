import HummingbirdCore
import Logging
import NIOCore
import NetVigilProber
import Synchronization

/// The feed's current TLS server context; a reload swaps it and new connections use the new one.
public final class FeedTLSContext: Sendable {
    private let current: Mutex<OpenSSLServerContext>

    public init(_ context: OpenSSLServerContext) {
        current = Mutex(context)
    }

    /// The context new connections use.
    public var context: OpenSSLServerContext { current.withLock { $0 } }

    /// Serves `context` to connections accepted from now on.
    public func replace(with context: OpenSSLServerContext) {
        current.withLock { $0 = context }
    }
}

/// An HTTP/1.1 child channel behind netvigil's OpenSSL TLS server handler (Hummingbird's `TLSChannel` shape, with
/// OpenSSL 3 instead of swift-nio-ssl).
struct FeedTLSChannel<Base: ServerChildChannel & HTTPChannelHandler>: ServerChildChannel, HTTPChannelHandler {
    typealias Value = Base.Value

    let base: Base
    let tls: FeedTLSContext

    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(tls.context.makeChannelHandler())
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
