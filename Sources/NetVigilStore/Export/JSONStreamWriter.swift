/// Builds JSON text into a fixed-size buffer and flushes it to an `ExportOutput`, so memory stays constant.
struct JSONStreamWriter {
    private var buffer: [UInt8] = []
    private let output: ExportOutput
    private let flushThreshold: Int
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    init(output: ExportOutput, flushThreshold: Int = 64 * 1024) {
        self.output = output
        self.flushThreshold = flushThreshold
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// Flushes when the buffer is over the threshold (call between rows).
    mutating func flushIfNeeded() throws {
        if buffer.count >= flushThreshold { try flush() }
    }

    /// What is buffered and not yet flushed.
    var bytes: [UInt8] { buffer }

    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try output.write($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    mutating func rawBytes(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// `"key":`
    mutating func key(_ name: StaticString) {
        buffer.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { buffer.append(contentsOf: $0) }
        buffer.append(UInt8(ascii: "\""))
        buffer.append(UInt8(ascii: ":"))
    }

    mutating func null() { raw("null") }

    mutating func bool(_ value: Bool) { value ? raw("true") : raw("false") }

    mutating func int(_ value: Int64) {
        buffer.append(contentsOf: String(value).utf8)
    }

    mutating func int(_ value: Int64?) {
        if let value { int(value) } else { null() }
    }

    /// A millisecond value with µs precision, written as e.g. `12.345`.
    mutating func milliseconds(_ value: Double?) {
        guard let value, value.isFinite else { return null() }
        let micros = Int64((value * 1_000).rounded())
        if micros < 0 { buffer.append(UInt8(ascii: "-")) }
        let magnitude = micros.magnitude
        buffer.append(contentsOf: String(magnitude / 1_000).utf8)
        buffer.append(UInt8(ascii: "."))
        let fraction = magnitude % 1_000
        buffer.append(UInt8(truncatingIfNeeded: 48 + fraction / 100))
        buffer.append(UInt8(truncatingIfNeeded: 48 + (fraction / 10) % 10))
        buffer.append(UInt8(truncatingIfNeeded: 48 + fraction % 10))
    }

    mutating func timestamp(_ value: Timestamp?) {
        guard let value else { return null() }
        buffer.append(UInt8(ascii: "\""))
        value.appendRFC3339(to: &buffer)
        buffer.append(UInt8(ascii: "\""))
    }

    mutating func string(_ value: String?) {
        guard var value else { return null() }
        buffer.append(UInt8(ascii: "\""))
        value.withUTF8 { utf8 in
            for byte in utf8 {
                switch byte {
                case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\\")); buffer.append(byte)
                case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\")); buffer.append(byte)
                case 0x0A: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "n"))
                case 0x0D: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "r"))
                case 0x09: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), 48, 48])
                    buffer.append(Self.hex[Int(byte >> 4)])
                    buffer.append(Self.hex[Int(byte & 0xF)])
                default: buffer.append(byte)
                }
            }
        }
        buffer.append(UInt8(ascii: "\""))
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
