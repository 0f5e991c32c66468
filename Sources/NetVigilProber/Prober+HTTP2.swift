import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2

extension Prober {
    /// Adds `collector` for a TLS connection that offers `h2`: once the chain is trusted, the TLS handler's
    /// `handshakeCompleted` event (with the ALPN result) has the collector put HTTP/2 (see `addHTTP2`) or the HTTP/1
    /// codec before itself and send the request, in the event, before the TLS handler reads any plaintext. The HTTP/2
    /// handlers are built only when the server selected `h2`; with `requiresHTTP2` anything else fails the probe
    /// without a byte sent.
    static func addNegotiatedHTTP(to channel: any Channel, collector: ResponseCollector, requiresHTTP2: Bool) throws {
        collector.negotiation = { negotiatedProtocol, sync, collector in
            if negotiatedProtocol == HTTPVersionPreference.http2ALPN {
                try addHTTP2(to: sync, before: collector)
            } else if requiresHTTP2 {
                throw http2Unavailable(selected: negotiatedProtocol)
            } else {
                try sync.addProbeHTTP1Handlers(position: .before(collector))
            }
            // The request is written while the TLS handler reports the handshake: one flush with its last flight
            // (and, for HTTP/2, with the connection preface and SETTINGS).
        }
        try channel.pipeline.syncOperations.addHandler(collector)
    }

    /// HTTP/2 on the connection without a stream multiplexer: `NIOHTTP2Handler` (SETTINGS with server push off;
    /// it answers SETTINGS and PING, acts on GOAWAY and enforces its frame, header-list and flood limits) and the
    /// probe's one stream, `HTTP2ProbeStreamCodec`, before `collector`. Adding the handler writes the preface.
    static func addHTTP2(to sync: ChannelPipeline.SynchronousOperations, before collector: ResponseCollector) throws {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = nioDefaultSettings + [HTTP2Setting(parameter: .enablePush, value: 0)]
        try sync.addHandler(NIOHTTP2Handler(mode: .client, connectionConfiguration: connection), position: .before(collector))
        try sync.addHandler(HTTP2ProbeStreamCodec(), position: .before(collector))
    }

    /// The failure of a `http_version: "2"` probe whose server did not select `h2`.
    static func http2Unavailable(selected: String?) -> ProbeError {
        let chosen = selected.map { "it selected \($0)" } ?? "it selected no protocol"
        return ProbeError(.http2Unavailable, "the server does not speak HTTP/2 (offered h2 in ALPN, \(chosen)); "
                          + "http_version \"2\" requires it (use auto to accept HTTP/1.1)")
    }
}

extension Prober {
    /// The failure of a `http_version: "2"` probe of an http:// URL (a redirect hop included): HTTP/2 is only
    /// spoken over TLS; nothing is sent.
    static func http2Unavailable(url: URL) -> ProbeError {
        ProbeError(.http2Unavailable, "\(url.absoluteString) is http://: HTTP/2 needs https:// (http_version \"2\")")
    }
}
