import Foundation

/// A record still in memory, written as the export writes its stored row (`ExportRowJSON.probe`).
extension ProbeRecord: ProbeRowSource {
    typealias Failure = Never

    func isNull(_ column: ProbeColumn) -> Bool {
        switch value(column) {
        case .integer(let value): value == nil
        case .milliseconds(let value): value == nil
        case .text(let value): value == nil
        case .chain(let certificates): certificates.isEmpty
        }
    }

    func integer(_ column: ProbeColumn) -> Int64? {
        if case .integer(let value) = value(column) { return value }
        return nil
    }

    func milliseconds(_ column: ProbeColumn) -> Double? {
        if case .milliseconds(let value) = value(column) { return value }
        return nil
    }

    func writeText(_ column: ProbeColumn, to writer: inout JSONStreamWriter) {
        if case .text(let value) = value(column) { writer.string(value) } else { writer.null() }
    }

    func writeChain(_ column: ProbeColumn, to writer: inout JSONStreamWriter) {
        guard case .chain(let certificates) = value(column) else { return writer.raw("[]") }
        writer.raw("[")
        for (index, certificate) in certificates.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.certificate(subject: certificate.subject, issuer: certificate.issuer, notAfter: certificate.notAfter,
                               sha256: certificate.sha256, spkiPin: certificate.spkiPin)
        }
        writer.raw("]")
    }

    /// As stored (like the export), re-encoded only when the text spans lines: an event is one line.
    func writeObject(_ column: ProbeColumn, to writer: inout JSONStreamWriter) {
        guard case .text(let text) = value(column), let text, let data = text.data(using: .utf8),
              (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else { return writer.null() }
        if data.contains(0x0A) || data.contains(0x0D) { writer.rawBytes(Self.oneLine(data)) } else { writer.rawBytes(data) }
    }

    /// The array as the store writes it (`findingsJSON`: one line, made here, so not parsed again).
    func writeArray(_ column: ProbeColumn, to writer: inout JSONStreamWriter) {
        guard case .text(let text) = value(column), let text else { return writer.null() }
        writer.rawBytes(text.utf8)
    }

    private static func oneLine(_ data: Data) -> [UInt8] {
        guard let object = try? JSONSerialization.jsonObject(with: data),
              let compact = try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]) else {
            return Array("null".utf8)
        }
        return Array(compact)
    }
}
