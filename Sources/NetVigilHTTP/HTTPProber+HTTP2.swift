import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOTLS

extension HTTPProber {
    /// Adds the handlers of a TLS connection that offers `h2`: once the chain is trusted, the ALPN result picks
    /// HTTP/2 (one stream, see `startHTTP2`) or HTTP/1.1 (the HTTP/1 codec before `collector`, which then sends the
    /// request). The HTTP/2 pipeline is built only when the server selected `h2`.
    static func addNegotiatedHTTP(to channel: any Channel, collector: ResponseCollector, requiresHTTP2: Bool,
                                  promise: EventLoopPromise<HTTPResponse>,
                                  makeStreamCollector: @escaping () -> ResponseCollector) throws {
        let negotiation = ApplicationProtocolNegotiationHandler { result, channel in
            do {
                let sync = channel.pipeline.syncOperations
                if result == .negotiated(HTTPVersionPreference.http2ALPN) {
                    sync.removeHandler(collector, promise: nil)
                    do {
                        try startHTTP2(on: channel, collector: makeStreamCollector(), promise: promise)
                    } catch {
                        // The collector that would report it is gone: fail the probe here.
                        promise.fail(ProbeError(.httpProtocol, "cannot set up HTTP/2: \(error)"))
                        throw error
                    }
                } else if requiresHTTP2 {
                    throw http2Unavailable(result)
                } else {
                    try sync.addHTTPClientHandlers(position: .before(collector), leftOverBytesStrategy: .dropBytes)
                    collector.sendRequest(context: try sync.context(handler: collector))
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
        }
        try channel.pipeline.syncOperations.addHandlers(negotiation, collector)
    }

    /// Configures HTTP/2 on the connection (SETTINGS with server push off; NIOHTTP2 answers SETTINGS and PING and
    /// acts on GOAWAY) and opens the probe's one stream: the HTTP/1 codec of HTTP/2 frames, then `collector`.
    static func startHTTP2(on channel: any Channel, collector: ResponseCollector, promise: EventLoopPromise<HTTPResponse>) throws {
        let sync = channel.pipeline.syncOperations
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = nioDefaultSettings + [HTTP2Setting(parameter: .enablePush, value: 0)]
        let multiplexer = try sync.configureHTTP2Pipeline(
            mode: .client, connectionConfiguration: connection, streamConfiguration: .init(),
            inboundStreamInitializer: { stream in stream.close() })  // a server-opened stream has nothing to say
        let watcher = HTTP2ConnectionWatcher(promise: promise)
        try sync.addHandler(watcher)
        let handlers = NIOLoopBound((collector, watcher), eventLoop: channel.eventLoop)
        let created = channel.eventLoop.makePromise(of: (any Channel).self)
        created.futureResult.whenFailure { error in
            promise.fail(ProbeError(.httpProtocol, "cannot open an HTTP/2 stream: \(error)"))
        }
        multiplexer.createStreamChannel(promise: created) { stream in
            let (collector, watcher) = handlers.value
            do {
                try stream.pipeline.syncOperations.addHandlers(HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https), collector)
                watcher.stream = stream
                return stream.eventLoop.makeSucceededVoidFuture()
            } catch {
                return stream.eventLoop.makeFailedFuture(error)
            }
        }
    }

    /// The failure of a `http_version: "2"` probe whose server did not select `h2`.
    static func http2Unavailable(_ result: ALPNResult) -> ProbeError {
        let chosen = if case .negotiated(let name) = result { "it selected \(name)" } else { "it selected no protocol" }
        return ProbeError(.http2Unavailable, "the server does not speak HTTP/2 (offered h2 in ALPN, \(chosen)); "
                          + "http_version \"2\" requires it (use auto to accept HTTP/1.1)")
    }
}

extension HTTPProber {
    /// The failure of a `http_version: "2"` probe of an http:// URL (a redirect hop included): HTTP/2 is only
    /// spoken over TLS; nothing is sent.
    static func http2Unavailable(url: URL) -> ProbeError {
        ProbeError(.http2Unavailable, "\(url.absoluteString) is http://: HTTP/2 needs https:// (http_version \"2\")")
    }
}
