import NetVigilStore

/// The per-address results of one `addresses: all` tick and what they mean for the whole target.
public struct AddressResults: Sendable {
    /// One row per address, in getaddrinfo (or `connect_to`) order; each names its address in `resolvedAddress`.
    public var records: [ProbeRecord]

    public init(_ records: [ProbeRecord]) { self.records = records }

    /// What the alert rules see of each address.
    public var findings: [AddressFinding] { records.map(AddressFinding.init) }

    /// The whole target's result: `ok` only when every address is; otherwise the worst address's row (a pin
    /// mismatch before another trust failure before any other failure) with the failing addresses in
    /// `resolvedAddress` and each one's error in the message. Skipped only when every address was skipped.
    public var combined: ProbeRecord {
        guard let first = records.first else { preconditionFailure("an addresses: all tick has at least one result") }
        let failing = records.filter { $0.outcome == .failed }
        if failing.isEmpty {
            if records.allSatisfy({ $0.outcome == .skipped }) { return first }
            // Every address up: the soonest-expiring chain speaks for the target (cert_expiring sees the worst).
            var result = records.filter { $0.outcome == .ok }.min { Self.leafExpiry($0) < Self.leafExpiry($1) } ?? first
            result.resolvedAddress = records.compactMap(\.resolvedAddress).joined(separator: ", ")
            result.timings = slowest.timings
            return result
        }
        let worst = failing.first { AddressFinding($0).pinMismatch } ?? failing.first { AddressFinding($0).untrusted } ?? failing[0]
        var result = worst
        result.outcome = .failed
        result.resolvedAddress = failing.compactMap(\.resolvedAddress).joined(separator: ", ")
        if failing.count > 1 || records.count > 1 {
            result.errorMessage = failing.map { "\($0.resolvedAddress ?? "?"): \($0.errorMessage ?? $0.errorKind?.rawValue ?? "failed")" }
                .joined(separator: "; ")
        }
        return result
    }

    /// The row that took longest (its phases stand for the target's duration series).
    private var slowest: ProbeRecord {
        records.max { ($0.timings.total ?? 0) < ($1.timings.total ?? 0) } ?? records[0]
    }

    private static func leafExpiry(_ record: ProbeRecord) -> Int64 {
        record.servedChain.first?.notAfter.milliseconds ?? Int64.max
    }
}
