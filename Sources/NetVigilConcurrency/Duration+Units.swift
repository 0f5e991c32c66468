/// The one conversion of `Duration` into the plain numbers C calls, JSON and metrics take.
///
/// Whole units truncate toward zero, like the integer division they replace.
extension Duration {
    /// The duration in seconds, with its fraction.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole milliseconds.
    public var inMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds &* 1_000 &+ attoseconds / 1_000_000_000_000_000
    }

    /// Whole nanoseconds (saturating for durations beyond ±292 years).
    public var inNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(attoseconds / 1_000_000_000).overflow
            ? (seconds < 0 ? .min : .max) : scaled + attoseconds / 1_000_000_000
    }
}
