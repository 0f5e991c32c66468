import NIOCore

/// Monotonic instants for phase timings.
enum MonotonicClock {
    /// Now, on the monotonic clock.
    static func now() -> NIODeadline { .now() }

    /// Milliseconds (µs precision) from `start` to `end`.
    static func milliseconds(from start: NIODeadline, to end: NIODeadline) -> Double {
        let nanoseconds = end.uptimeNanoseconds &- start.uptimeNanoseconds
        return (Double(nanoseconds / 1_000)) / 1_000
    }
}
