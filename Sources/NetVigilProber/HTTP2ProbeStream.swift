import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// The probe's one HTTP/2 stream (stream 1, the client's first) as a pure state machine: what an inbound frame
/// means for the response (a head, body bytes, the end, a failure or nothing), when to open a receive window again,
/// and the request as HEADERS. `HTTP2ProbeStreamCodec` follows its decisions; NIOHTTP2's `NIOHTTP2Handler` has
/// already validated the frames, acknowledged SETTINGS and PING and acted on GOAWAY.
struct HTTP2ProbeStream {
    /// The stream of every probe.
    static let id: HTTP2StreamID = 1
    /// The receive window NIOHTTP2 starts with (RFC 9113's default) and that this stream keeps open: a window at
    /// half of it or less is topped up again.
    static let targetWindow = 65_535

    /// Where the response is.
    enum State: Equatable {
        /// No final response head yet (1xx heads may come).
        case awaitingHead
        /// The final head came; DATA and trailers may follow.
        case receivingBody
        /// The stream ended, was reset or refused: nothing more is passed on.
        case closed
    }

    /// What the codec does with a frame or event.
    enum Action {
        /// Nothing for the response.
        case none
        /// A response head (informational or final); `endsStream`: the response has no body.
        case head(HTTPResponseHead, endsStream: Bool)
        /// Body bytes (possibly empty); `endsStream`: the last of them.
        case body(IOData, endsStream: Bool)
        /// The end, after trailers.
        case end(HTTPHeaders)
        /// The probe fails with this error.
        case fail(any Error)
    }

    private(set) var state = State.awaitingHead

    /// What `frame` means: frames of other streams (and of the connection, but a GOAWAY that refuses stream 1) are
    /// nothing; stream 1's HEADERS, DATA and RST_STREAM make the response or end it.
    mutating func receive(_ frame: HTTP2Frame) -> Action {
        guard state != .closed else { return .none }
        if frame.streamID == .rootStream {
            guard case .goAway(let lastStreamID, let code, _) = frame.payload, lastStreamID < Self.id else { return .none }
            state = .closed
            return .fail(ResponseCollector.goAwayRefusal(lastStreamID: lastStreamID, code: code))
        }
        guard frame.streamID == Self.id else { return .none }
        switch frame.payload {
        case .headers(let headers):
            return receiveHeaders(headers.headers, endsStream: headers.endStream)
        case .data(let data):
            guard state == .receivingBody else {
                state = .closed
                return .fail(ProbeError(.httpProtocol, "HTTP/2 protocol error: DATA before the response's HEADERS"))
            }
            if data.endStream { state = .closed }
            return .body(data.data, endsStream: data.endStream)
        case .rstStream(let code):
            state = .closed
            return .fail(NIOHTTP2Errors.streamClosed(streamID: Self.id, errorCode: code))
        default:
            return .none
        }
    }

    private mutating func receiveHeaders(_ block: HPACKHeaders, endsStream: Bool) -> Action {
        if state == .receivingBody {
            state = .closed
            guard endsStream else {
                return .fail(ProbeError(.httpProtocol, "HTTP/2 protocol error: trailers without END_STREAM"))
            }
            return .end(Self.regularHeaders(block))
        }
        guard let head = Self.responseHead(block) else {
            state = .closed
            return .fail(ProbeError(.httpProtocol, "HTTP/2 protocol error: a response HEADERS without a valid :status"))
        }
        let informational = head.status.code < 200
        if informational, endsStream {
            // RFC 9113 8.1: malformed. Ending there would leave the probe without a final response until its timeout.
            state = .closed
            return .fail(ProbeError(.httpProtocol, "HTTP/2 protocol error: an informational (1xx) response ended the stream"))
        }
        if !informational { state = endsStream ? .closed : .receivingBody }
        return .head(head, endsStream: endsStream)
    }

    /// The stream closed (NIOHTTP2's `StreamClosedEvent`): with a reason before the response ended, the probe fails
    /// as for RST_STREAM with that reason (`REFUSED_STREAM` for one a GOAWAY cut off).
    mutating func streamClosed(reason: HTTP2ErrorCode?) -> Action {
        guard state != .closed else { return .none }
        state = .closed
        guard let reason else {
            return .fail(ProbeError(.httpProtocol, "the HTTP/2 stream closed before the response was complete"))
        }
        return .fail(NIOHTTP2Errors.streamClosed(streamID: Self.id, errorCode: reason))
    }

    /// The WINDOW_UPDATE increment for the connection's or stream 1's receive window now at `inboundWindowSize`
    /// (NIOHTTP2's `NIOHTTP2WindowUpdatedEvent`), or nil: only while the body comes, only when at half or less.
    func windowIncrement(streamID: HTTP2StreamID, inboundWindowSize: Int?) -> Int? {
        guard state == .receivingBody, streamID == .rootStream || streamID == Self.id,
              let size = inboundWindowSize, size <= Self.targetWindow / 2 else { return nil }
        return Self.targetWindow - size
    }

    /// The request head as an HTTP/2 header block: `:method`, `:scheme` https, `:authority` (the `Host` header),
    /// `:path`, then the other headers with lower-case names, without HTTP/1's connection-specific ones.
    static func requestHeaders(_ head: HTTPRequestHead) -> HPACKHeaders {
        var block = HPACKHeaders()
        block.add(name: ":method", value: head.method.rawValue)
        block.add(name: ":scheme", value: "https")
        if let authority = head.headers.first(name: "host") { block.add(name: ":authority", value: authority) }
        block.add(name: ":path", value: head.uri)
        for (name, value) in head.headers {
            let lowered = name.lowercased()
            switch lowered {
            case "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
                continue
            case "te" where value.lowercased() != "trailers":
                continue
            default:
                block.add(name: lowered, value: value)
            }
        }
        return block
    }

    /// The response head of a HEADERS block (`:status`, the regular fields), or nil without a valid `:status`.
    static func responseHead(_ block: HPACKHeaders) -> HTTPResponseHead? {
        let statuses = block[":status"]
        guard statuses.count == 1, statuses[0].utf8.count == 3, let code = Int(statuses[0]), code >= 100 else { return nil }
        return HTTPResponseHead(version: .http2, status: HTTPResponseStatus(statusCode: code), headers: regularHeaders(block))
    }

    /// The fields of `block` that are not pseudo-headers.
    static func regularHeaders(_ block: HPACKHeaders) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(block.count)
        for (name, value, _) in block where !name.hasPrefix(":") { headers.add(name: name, value: value) }
        return headers
    }
}
