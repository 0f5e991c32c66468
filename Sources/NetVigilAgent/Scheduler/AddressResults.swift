import NetVigilStore

/// The per-address (or per-path, `source: { interfaces: }`) results of one tick and what they mean for the whole
/// target. A path is named like an address, with its interface: `192.0.2.1 via wwan0` (`ProbeRecord.pathName`).
public struct AddressResults: Sendable {
    /// One row per address (per path, per address of each path), in getaddrinfo (or `connect_to`, or `interfaces`)
    /// order; each names its address in `resolvedAddress` and its path's interface in `interface`.
    public var records: [ProbeRecord]

    public init(_ records: [ProbeRecord]) { self.records = records }

    /// What the alert rules see of each address.
    public var findings: [AddressFinding] { records.map(AddressFinding.init) }

    /// The whole target's result: `ok` only when every address is; otherwise the worst address's row (a pin
    /// mismatch before another trust failure before any other failure) with the failing addresses (paths) in
    /// `resolvedAddress` and each one's error in the message. Skipped only when every address was skipped; a
    /// skipped path (its interface down) neither fails the target nor keeps it up.
    public var combined: ProbeRecord {
        guard let first = records.first else { preconditionFailure("an addresses: all tick has at least one result") }
        let failing = records.filter { $0.outcome == .failed }
        if failing.isEmpty {
            if records.allSatisfy({ $0.outcome == .skipped }) { return first }
            // Every address up: the soonest-expiring chain speaks for the target (cert_expiring sees the worst).
            var result = records.filter { $0.outcome == .ok }.min { Self.leafExpiry($0) < Self.leafExpiry($1) } ?? first
            // The addresses probed (a skipped path has none and is not listed).
            result.resolvedAddress = records.compactMap { $0.resolvedAddress == nil ? nil : $0.pathName }.joined(separator: ", ")
            result.interface = Self.interfaces(records)
            result.timings = slowest.timings
            return result
        }
        let worst = failing.first { AddressFinding($0).pinMismatch } ?? failing.first { AddressFinding($0).untrusted } ?? failing[0]
        var result = worst
        result.outcome = .failed
        result.resolvedAddress = failing.compactMap(\.pathName).joined(separator: ", ")
        result.interface = Self.interfaces(failing)
        if failing.count > 1 || records.count > 1 {
            result.errorMessage = failing.map { "\($0.pathName ?? "?"): \($0.errorMessage ?? $0.errorKind?.rawValue ?? "failed")" }
                .joined(separator: "; ")
        }
        return result
    }

    /// The row that took longest (its phases stand for the target's duration series).
    private var slowest: ProbeRecord {
        records.max { ($0.timings.total ?? 0) < ($1.timings.total ?? 0) } ?? records[0]
    }

    /// The distinct interfaces of `rows`, in order, joined; nil when none has one.
    private static func interfaces(_ rows: [ProbeRecord]) -> String? {
        let names = rows.compactMap(\.interface).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    private static func leafExpiry(_ record: ProbeRecord) -> Int64 {
        record.servedChain.first?.notAfter.milliseconds ?? Int64.max
    }
}
