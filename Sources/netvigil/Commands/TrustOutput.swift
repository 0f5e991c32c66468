import Foundation
import NetVigilTrust

/// Text and JSON helpers shared by `netvigil pin` and `netvigil trust`.
enum TrustOutput {
    /// Pretty, stable JSON (sorted keys, no escaped slashes) followed by a newline.
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    /// Certificate lines for humans, indented by `indent`.
    static func describe(_ certificate: Certificate, index: Int, indent: String = "  ", at date: Date = Date()) -> String {
        var lines = ["\(indent)[\(index)] \(certificate.subject)"]
        let pad = indent + "    "
        lines.append("\(pad)issuer:     \(certificate.issuer)")
        let expiry = certificate.notAfter < date ? " (expired)" : (certificate.notBefore > date ? " (not yet valid)" : "")
        lines.append("\(pad)not after:  \(certificate.notAfter.formatted(.iso8601))\(expiry)")
        lines.append("\(pad)pin:        \(certificate.spkiPin)")
        lines.append("\(pad)sha256:     \(certificate.sha256Fingerprint)")
        return lines.joined(separator: "\n")
    }

    /// Reads certificates from a file, mapping errors to sysexits: 66 missing/unreadable, 65 not a certificate.
    static func loadCertificates(_ path: String, option: String?) throws -> [Certificate] {
        let prefix = option.map { $0 + ": " } ?? ""
        do {
            return try Certificate.load(paths: [path])
        } catch {
            switch error {
            case .unreadable:
                throw CLIFailure(.noInput, prefix + "\(error)")
            default:
                throw CLIFailure(.dataError, prefix + "\(error)")
            }
        }
    }

    /// Parses `--at`: RFC 3339 (`2030-01-01T00:00:00Z`), a date (`2030-01-01`, midnight UTC), `now`,
    /// a relative offset (`+30d`, `-12h`, `+90m`) or `@SECONDS` since 1970.
    static func parseTime(_ text: String, now: Date = Date()) -> Date? {
        let value = text.trimmingCharacters(in: .whitespaces)
        if value == "now" { return now }
        if value.hasPrefix("@"), let seconds = Double(value.dropFirst()), seconds.isFinite {
            return Date(timeIntervalSince1970: seconds)
        }
        if let sign = value.first, sign == "+" || sign == "-", let unit = value.last {
            let number = value.dropFirst().dropLast()
            guard let amount = Double(number), amount.isFinite, !number.isEmpty else { return nil }
            let scale: Double
            switch unit {
            case "d": scale = 86400
            case "h": scale = 3600
            case "m": scale = 60
            case "s": scale = 1
            default: return nil
            }
            return now.addingTimeInterval((sign == "-" ? -1 : 1) * amount * scale)
        }
        if let date = try? Date(value, strategy: .iso8601) { return date }
        if let date = try? Date(value, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        let dateOnly = Date.ISO8601FormatStyle().year().month().day()
        if value.count == 10, let date = try? Date(value, strategy: dateOnly) { return date }
        return nil
    }
}
