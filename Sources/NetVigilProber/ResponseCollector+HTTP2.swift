import NIOHTTP2
import NIOHPACK

extension ResponseCollector {
    /// An HTTP/2 failure (a reset or refused stream, a protocol error of the server) as `httpProtocol`, naming the
    /// RFC 9113 error code; nil for other errors.
    static func http2ProbeError(for error: any Error) -> ProbeError? {
        switch error {
        case let error as NIOHTTP2Errors.StreamClosed:
            let name = errorCodeName(error.errorCode)
            if error.errorCode == .refusedStream {
                return ProbeError(.httpProtocol, "the server refused the HTTP/2 stream (\(name): GOAWAY or RST_STREAM before the response)")
            }
            return ProbeError(.httpProtocol, "the server reset the HTTP/2 stream before the response was complete (RST_STREAM \(name))")
        case let error as NIOHTTP2Errors.StreamError:
            return http2ProbeError(for: error.baseError)
        case let error as any NIOHTTP2Error:
            return ProbeError(.httpProtocol, "HTTP/2 protocol error: \(plainName(of: error))")
        case let error as any NIOHPACKError:
            return ProbeError(.httpProtocol, "HTTP/2 header compression (HPACK) error: \(plainName(of: error))")
        default:
            return nil
        }
    }

    /// The failure of a probe whose stream (1) a GOAWAY with `lastStreamID` 0 refused.
    static func goAwayRefusal(lastStreamID: HTTP2StreamID, code: HTTP2ErrorCode) -> ProbeError {
        ProbeError(.httpProtocol, "the server sent GOAWAY (\(errorCodeName(code)), last stream \(Int(lastStreamID))) before "
                   + "answering: the request was refused")
    }

    /// The RFC 9113 name of `code` (`PROTOCOL_ERROR`, ...), or its number when unknown.
    static func errorCodeName(_ code: HTTP2ErrorCode) -> String {
        let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
                     "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
                     "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
        return code.networkCode < names.count ? names[code.networkCode] : "error code 0x\(String(code.networkCode, radix: 16))"
    }
}
