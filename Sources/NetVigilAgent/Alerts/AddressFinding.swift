import NetVigilStore

/// What one address (or path) of an `addresses: all` or `source: { interfaces: }` target showed in a tick, as the alert rules and the report need it.
public struct AddressFinding: Sendable, Equatable {
    /// The address probed (`?` for a skipped path).
    public var address: String
    /// The interface of its path (`source: { interfaces: }`); nil over the kernel's route.
    public var interface: String?
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

    /// How alerts name it: `192.0.2.1`, or `192.0.2.1 via wwan0` for a path.
    public var path: String { interface.map { "\(address) via \($0)" } ?? address }

    /// The finding of one per-address result.
    public init(_ record: ProbeRecord) {
        address = record.resolvedAddress ?? "?"
        interface = record.interface
        failed = record.outcome == .failed
        pinMismatch = record.pinVerdict?.isMismatch == true
            || record.trustVerdict?.reason.map(AlertObservation.pinFailureKinds.contains) == true
        if case .untrusted? = record.trustVerdict, !pinMismatch { untrusted = true } else { untrusted = false }
        servedChain = record.servedChain
        validatedChain = record.validatedChain
    }
}
