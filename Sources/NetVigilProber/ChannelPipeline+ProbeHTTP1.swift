import NIOCore
import NIOHTTP1

extension ChannelPipeline.SynchronousOperations {
    /// The HTTP/1.1 client handlers NIO's `addHTTPClientHandlers` adds (encoder, decoder, header validator), but with
    /// informational (1xx) responses forwarded instead of dropped: dropped, an endless stream of `103 Early Hints`
    /// was decoded out of the collector's sight for the whole probe timeout, a core busy all along. The collector
    /// bounds them (``ResponseCollector/maxInformationalResponses``).
    func addProbeHTTP1Handlers(position: Position = .last) throws {
        let decoder = HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .forward)
        try addHandlers([HTTPRequestEncoder(), ByteToMessageHandler(decoder), NIOHTTPRequestHeadersValidator()],
                        position: position)
    }
}
