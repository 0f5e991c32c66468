import Foundation

/// Reads a proxy's answer to CONNECT, byte by byte as it arrives: a pure state machine (no I/O), so the channel
/// handler stays thin. The head is bounded (`maxHeadBytes`); a 2xx establishes the tunnel and whatever followed the
/// head belongs to the origin; anything else is a refusal naming the status.
struct ProxyConnectParser {
    /// What the bytes so far amount to.
    enum Outcome: Equatable {
        /// The head is not complete yet.
        case needMore
        /// 2xx: the tunnel is open; `leftover` came after the head (the origin's first bytes).
        case established(status: Int, leftover: [UInt8])
        /// A complete non-2xx head.
        case refused(status: Int, reason: String)
        /// Not an HTTP/1.x response, or a head over the limit.
        case invalid(String)
    }

    /// The largest head accepted (16 KiB).
    static let maxHeadBytes = 16 * 1024

    private var head: [UInt8] = []
    private var scanned = 0
    private var finished = false

    /// Feeds the next bytes; once an outcome other than `needMore` was returned, later bytes are ignored.
    mutating func consume(_ bytes: some Sequence<UInt8>) -> Outcome {
        guard !finished else { return .needMore }
        head.append(contentsOf: bytes)
        guard let end = headEnd() else {
            if head.count > Self.maxHeadBytes {
                finished = true
                return .invalid("the proxy's answer to CONNECT exceeds \(Self.maxHeadBytes / 1024) KiB without ending its head")
            }
            return .needMore
        }
        finished = true
        guard end <= Self.maxHeadBytes else {
            return .invalid("the proxy's answer to CONNECT exceeds \(Self.maxHeadBytes / 1024) KiB without ending its head")
        }
        guard let (status, reason) = Self.statusLine(head[..<end]) else {
            return .invalid("the proxy's answer to CONNECT is not an HTTP/1.x response")
        }
        if (200...299).contains(status) { return .established(status: status, leftover: Array(head[end...])) }
        return .refused(status: status, reason: reason)
    }

    /// The index after the blank line ending the head (CRLF CRLF, or bare LFs), scanning only new bytes.
    private mutating func headEnd() -> Int? {
        let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        var index = scanned
        while index < head.count {
            if head[index] == lf {
                guard index + 1 < head.count else { break }  // the terminator may still be arriving
                if head[index + 1] == lf { return index + 2 }
                if head[index + 1] == cr {
                    guard index + 2 < head.count else { break }
                    if head[index + 2] == lf { return index + 3 }
                }
            }
            index += 1
        }
        scanned = index
        return nil
    }

    /// `HTTP/1.x SSS reason` → status and a printable, shortened reason.
    private static func statusLine(_ head: ArraySlice<UInt8>) -> (Int, String)? {
        let line = head.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let bytes = Array(line)
        guard bytes.count >= 12, bytes.starts(with: Array("HTTP/1.".utf8)), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[7]),
              bytes[8] == UInt8(ascii: " ") else { return nil }
        let digits = bytes[9..<12]
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              bytes.count == 12 || bytes[12] == UInt8(ascii: " "),
              let status = Int(String(decoding: digits, as: UTF8.self)), status >= 100 else { return nil }
        let reasonBytes = bytes.dropFirst(13).prefix(64).map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: "?") }
        return (status, String(decoding: reasonBytes, as: UTF8.self).trimmingCharacters(in: .whitespaces))
    }
}
