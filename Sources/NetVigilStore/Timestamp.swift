import Foundation
import NetVigilConcurrency

/// A point in time with millisecond precision, stored as milliseconds since 1970-01-01 UTC.
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since the Unix epoch (UTC).
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public init(_ date: Date) {
        milliseconds = Int64((date.timeIntervalSince1970 * 1_000).rounded(.down))
    }

    /// The current wall-clock time.
    public static func now() -> Timestamp { Timestamp(Date()) }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1_000) }

    /// Adds a duration (negative to go back).
    public func adding(_ duration: Duration) -> Timestamp {
        Timestamp(milliseconds: milliseconds + duration.inMilliseconds)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// RFC 3339 in UTC with milliseconds, e.g. `2026-11-22T09:58:03.120Z`.
    public var rfc3339: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { rfc3339 }

    /// Encodes as an RFC 3339 string.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }

    /// Decodes from an RFC 3339 string.
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp.parseRFC3339(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an RFC 3339 time, got \"\(text)\"")
        }
        self = value
    }

    /// Hours, minutes, seconds and milliseconds of `msOfDay` (0 ..< 86,400,000).
    static func clock(_ msOfDay: Int64) -> (hour: Int64, minute: Int64, second: Int64, millis: Int64) {
        let hour = msOfDay / 3_600_000
        let minute = (msOfDay % 3_600_000) / 60_000
        let second = (msOfDay % 60_000) / 1_000
        return (hour, minute, second, msOfDay % 1_000)
    }

    /// Appends the RFC 3339 form to a byte buffer without allocating strings.
    public func appendRFC3339(to bytes: inout [UInt8]) {
        let ms = milliseconds
        var days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let msOfDay = ms - days * 86_400_000
        // Civil-from-days (proleptic Gregorian), after H. Hinnant's public-domain algorithm description.
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        var year = yearOfEra + era * 400
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        if month <= 2 { year += 1 }
        let (hour, minute, second, millis) = Timestamp.clock(msOfDay)

        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var value = value
            while divisor > 0 {
                bytes.append(UInt8(truncatingIfNeeded: 48 + (value / divisor) % 10))
                value %= divisor
                divisor /= 10
            }
        }
        digits(year, 4); bytes.append(UInt8(ascii: "-"))
        digits(month, 2); bytes.append(UInt8(ascii: "-"))
        digits(day, 2); bytes.append(UInt8(ascii: "T"))
        digits(hour, 2); bytes.append(UInt8(ascii: ":"))
        digits(minute, 2); bytes.append(UInt8(ascii: ":"))
        digits(second, 2); bytes.append(UInt8(ascii: "."))
        digits(millis, 3); bytes.append(UInt8(ascii: "Z"))
    }

    /// Parses RFC 3339 (`2026-11-22T10:00:00Z`, fractional seconds and offsets allowed),
    /// `now`, or a relative time such as `-24h`, `-30m`, `-7d` (relative to `now`).
    public static func parse(_ text: String, now: Timestamp = .now()) -> Timestamp? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text == "now" { return now }
        if text.hasPrefix("-"), let duration = parseRelative(String(text.dropFirst())) {
            return now.adding(.zero - duration)
        }
        return parseRFC3339(text)
    }

    private static func parseRelative(_ text: String) -> Duration? {
        var rest = Substring(text)
        var total: Int64 = 0
        let units: [Character: Int64] = ["s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000]
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, let number = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            if rest.hasPrefix("ms") {
                total += number
                rest = rest.dropFirst(2)
                continue
            }
            guard let unit = rest.first, let factor = units[unit] else { return nil }
            total += number * factor
            rest = rest.dropFirst()
        }
        return .milliseconds(total)
    }

    /// Parses RFC 3339 only (`2026-11-22T10:00:00.120Z`, fractional seconds and offsets allowed), without
    /// allocating a formatter: what `netvigil status` reads each target's times with.
    public static func parseRFC3339(_ text: String) -> Timestamp? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            index += count
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2) else { return nil }
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, millis: Int64 = 0, offset: Int64 = 0
        if index < bytes.count {
            guard expect("Tt "), let h = number(2), expect(":"), let m = number(2), expect(":"), let s = number(2) else { return nil }
            guard h < 24, m < 60, s < 61 else { return nil }
            hour = h; minute = m; second = min(s, 59)
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                var scale: Int64 = 100
                var digits = 0
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                    millis += Int64(bytes[index] - 48) * scale
                    scale /= 10
                    index += 1
                    digits += 1
                }
                guard digits > 0 else { return nil }
            }
            guard index < bytes.count else { return nil }
            if expect("Zz") {
                offset = 0
            } else {
                let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                guard expect("+-"), let oh = number(2), expect(":"), let om = number(2), oh < 24, om < 60 else { return nil }
                offset = sign * (oh * 60 + om) * 60_000
            }
            guard index == bytes.count else { return nil }
        }
        // Days-from-civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let mp = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * mp + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let ms = days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1_000 + millis - offset
        return Timestamp(milliseconds: ms)
    }
}
