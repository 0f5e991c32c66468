/// What happened to a policy's public-key pins; the raw values are what results store and show.
public enum PinVerdict: String, Sendable, Hashable, Codable, CaseIterable {
    /// The policy does not pin.
    case notPinned = "not_pinned"
    /// A pin matched.
    case matched
    /// No pin matched and the evaluation failed.
    case mismatch
    /// No pin matched; report-only let the connection through.
    case mismatchReported = "mismatch_reported"
    /// Pins are past `pinsExpire` and were ignored.
    case expired
    /// The chain failed before pins were looked at.
    case notEvaluated = "not_evaluated"

    /// True for `mismatch` and `mismatchReported`.
    public var isMismatch: Bool { self == .mismatch || self == .mismatchReported }
}
