import NetVigilStore

/// What one address of an `addresses: all` target showed in a tick, as the alert rules and the report need it.
public struct AddressFinding: Sendable, Equatable {
    /// The address probed.
    public var address: String
    /// Whether its result failed.
    public var failed: Bool
    /// Whether its pins did not match (report-only included).
    public var pinMismatch: Bool
    /// Whether its chain was untrusted for another reason than pins.
    public var untrusted: Bool
    /// The chain it served, leaf first.
    public var servedChain: [CertificateRecord]
    /// Its chain as validated, leaf → anchor.
    public var validatedChain: [CertificateRecord]

    /// The finding of one per-address result.
    public init(_ record: ProbeRecord) {
        address = record.resolvedAddress ?? "?"
        failed = record.outcome == .failed
        pinMismatch = record.pinVerdict?.isMismatch == true
            || record.trustVerdict?.reason.map(AlertObservation.pinFailureKinds.contains) == true
        if case .untrusted? = record.trustVerdict, !pinMismatch { untrusted = true } else { untrusted = false }
        servedChain = record.servedChain
        validatedChain = record.validatedChain
    }
}
