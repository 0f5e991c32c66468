import Foundation

/// Builds JSON text into a reusable buffer and flushes it to an `ExportOutput` in large writes, so memory stays
/// constant however many rows are written.
struct JSONStreamWriter {
    private let buffer: JSONOutputBuffer
    private let output: ExportOutput
    private let flushThreshold: Int
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
    /// The last day written by `timestamp` and its `YYYY-MM-DDT` bytes: consecutive rows share the day.
    private var cachedDay = Int64.min
    private var cachedDayPrefix: [UInt8] = []

    /// Flushes at 256 KiB by default: few system calls, and the buffer stays far below the export's memory budget.
    init(output: ExportOutput, flushThreshold: Int = 256 * 1024) {
        self.output = output
        self.flushThreshold = flushThreshold
        buffer = JSONOutputBuffer(capacity: flushThreshold + 16 * 1024)
    }

    /// Flushes when the buffer is over the threshold (call between rows).
    mutating func flushIfNeeded() throws {
        if buffer.count >= flushThreshold { try flush() }
    }

    /// How many bytes are buffered and not yet flushed.
    var bufferedCount: Int { buffer.count }

    /// What is buffered and not yet flushed.
    var bytes: [UInt8] { Array(buffer.bytes) }

    mutating func flush() throws {
        guard buffer.count > 0 else { return }
        try output.write(UnsafeRawBufferPointer(buffer.bytes))
        buffer.removeAll()
    }

    @inline(__always)
    mutating func raw(_ text: StaticString) {
        append(text)
    }

    /// A literal's bytes without a closure (single-character literals have no pointer representation).
    @inline(__always)
    private func append(_ text: StaticString) {
        if text.hasPointerRepresentation {
            buffer.append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        } else {
            text.withUTF8Buffer { buffer.append($0) }
        }
    }

    mutating func rawBytes(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    mutating func rawBytes(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer.append($0) }
    }

    /// `"key":`
    @inline(__always)
    mutating func key(_ name: StaticString) {
        buffer.append(UInt8(ascii: "\""))
        append(name)
        buffer.append(UInt8(ascii: "\""))
        buffer.append(UInt8(ascii: ":"))
    }

    mutating func null() { raw("null") }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    /// Decimal digits of an integer, without going through `String`.
    mutating func int(_ value: Int64) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        unsigned(value.magnitude)
    }

    mutating func int(_ value: Int64?) {
        if let value { int(value) } else { null() }
    }

    private mutating func unsigned(_ value: UInt64) {
        if value < 10 {
            buffer.append(UInt8(truncatingIfNeeded: 48 + value))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var value = value
            var start = 20
            while value > 0 {
                start -= 1
                digits[start] = UInt8(truncatingIfNeeded: 48 + value % 10)
                value /= 10
            }
            buffer.append(UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// A millisecond value with µs precision, written as e.g. `12.345`.
    mutating func milliseconds(_ value: Double?) {
        guard let value, value.isFinite else { return null() }
        let micros = Int64((value * 1_000).rounded())
        if micros < 0 { buffer.append(UInt8(ascii: "-")) }
        let magnitude = micros.magnitude
        unsigned(magnitude / 1_000)
        buffer.append(UInt8(ascii: "."))
        let fraction = magnitude % 1_000
        buffer.append(UInt8(truncatingIfNeeded: 48 + fraction / 100))
        buffer.append(UInt8(truncatingIfNeeded: 48 + (fraction / 10) % 10))
        buffer.append(UInt8(truncatingIfNeeded: 48 + fraction % 10))
    }

    /// `"2026-11-22T09:58:03.120Z"` (RFC 3339, UTC, milliseconds): the date part is formatted once per day, the
    /// time of day with integer arithmetic.
    mutating func timestamp(_ value: Timestamp?) {
        guard let value else { return null() }
        let ms = value.milliseconds
        let day = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        if day != cachedDay {
            var text: [UInt8] = []
            Timestamp(milliseconds: day * 86_400_000).appendRFC3339(to: &text)
            cachedDayPrefix = Array(text.prefix(11))  // YYYY-MM-DDT
            cachedDay = day
        }
        let (hour, minute, second, millis) = Timestamp.clock(ms - day * 86_400_000)
        buffer.append(UInt8(ascii: "\""))
        cachedDayPrefix.withUnsafeBufferPointer { buffer.append($0) }
        twoDigits(hour); buffer.append(UInt8(ascii: ":"))
        twoDigits(minute); buffer.append(UInt8(ascii: ":"))
        twoDigits(second); buffer.append(UInt8(ascii: "."))
        buffer.append(UInt8(truncatingIfNeeded: 48 + millis / 100))
        twoDigits(millis % 100)
        buffer.append(UInt8(ascii: "Z"))
        buffer.append(UInt8(ascii: "\""))
    }

    private mutating func twoDigits(_ value: Int64) {
        buffer.append(UInt8(truncatingIfNeeded: 48 + value / 10))
        buffer.append(UInt8(truncatingIfNeeded: 48 + value % 10))
    }

    mutating func string(_ value: String?) {
        guard var value else { return null() }
        value.withUTF8 { appendQuoted($0) }
    }

    /// A string from raw UTF-8 bytes (an SQLite text column); nil writes `null`. Bytes that are not valid UTF-8
    /// are replaced with U+FFFD, as decoding them into a `String` would.
    mutating func string(utf8 bytes: UnsafeBufferPointer<UInt8>?) {
        guard let bytes else { return null() }
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii || String(validating: bytes, as: UTF8.self) != nil {
            appendQuoted(bytes)
        } else {
            var repaired = String(decoding: bytes, as: UTF8.self)
            repaired.withUTF8 { appendQuoted($0) }
        }
    }

    /// `"…"` with the escapes RFC 8259 requires (quote, backslash, control characters); runs of bytes that need
    /// none are copied at once.
    private mutating func appendQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
        buffer.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if index > runStart { buffer.append(UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            runStart = index + 1
            buffer.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(byte)
            case 0x0A: buffer.append(UInt8(ascii: "n"))
            case 0x0D: buffer.append(UInt8(ascii: "r"))
            case 0x09: buffer.append(UInt8(ascii: "t"))
            default:
                buffer.append(UInt8(ascii: "u")); buffer.append(48); buffer.append(48)
                buffer.append(Self.hex[Int(byte >> 4)])
                buffer.append(Self.hex[Int(byte & 0xF)])
            }
        }
        if utf8.count > runStart { buffer.append(UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count])) }
        buffer.append(UInt8(ascii: "\""))
    }

    /// A stored JSON object text as that object; null when it is absent or not a valid JSON object.
    mutating func object(text: String?) {
        guard let text, let data = text.data(using: .utf8),
              (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else { return null() }
        rawBytes(text.utf8)
    }

    /// A stored JSON array text as itself; null when it is NULL or not an array.
    mutating func array(text: String?) {
        guard let text, let data = text.data(using: .utf8),
              (try? JSONSerialization.jsonObject(with: data)) is [Any] else { return null() }
        rawBytes(text.utf8)
    }

    mutating func stringArray(_ values: [String]) {
        buffer.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            string(value)
        }
        buffer.append(UInt8(ascii: "]"))
    }
}
