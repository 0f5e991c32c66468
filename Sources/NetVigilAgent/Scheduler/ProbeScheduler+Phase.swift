#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NetVigilConcurrency

/// Where each target's first tick falls: spread so the host is never asked to start more probes per second than it
/// can, at a place fixed by the target's name so restarts and reloads keep it.
extension ProbeScheduler {
    /// How long the first ticks of `targets` targets with this `interval` are spread over:
    /// `min(interval, max(maximumSpread, targets / maximumStartRate))`. Short lists start within `maximumSpread`
    /// (the first probe comes soon after start); long lists use as much of the interval as keeps the start rate
    /// at or under `maximumStartRate`.
    static func spreadWindow(interval: Duration, targets: Int, maximumSpread: Duration,
                             maximumStartRate: Double) -> Duration {
        let needed = Double(max(0, targets)) / max(maximumStartRate, 1e-9)
        let neededNanoseconds = needed >= Double(Int64.max / 2) / 1e9 ? Int64.max / 2 : Int64(needed * 1e9)
        let window = max(maximumSpread, .nanoseconds(neededNanoseconds))
        return min(interval, window)
    }

    /// The target's place in a spread `window`, in nanoseconds from its start: a stable hash of `name` (FNV-1a,
    /// then a SplitMix64 finaliser so names differing in one digit land far apart), scaled to `0..<window`.
    static func phaseSlot(name: String, window: Duration) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        let width = UInt64(max(1, window.inNanoseconds))
        return Int64(hash.multipliedFullWidth(by: width).high)
    }

    /// How long from now until the target's first tick: the next instant whose wall-clock time, modulo `window`,
    /// is the target's ``phaseSlot(name:window:)``. Always in `0..<window`; the same name and window give the same
    /// wall-clock phase after a restart or reload.
    static func firstTickDelay(name: String, window: Duration, wallClockNanoseconds: Int64) -> Duration {
        let width = max(1, window.inNanoseconds)
        let slot = phaseSlot(name: name, window: window)
        var delay = (slot - wallClockNanoseconds % width) % width
        if delay < 0 { delay += width }
        return .nanoseconds(delay)
    }

    /// Nanoseconds since the Unix epoch (`CLOCK_REALTIME`): only the phase of first ticks is read from it.
    static func wallClockNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) &* 1_000_000_000 &+ Int64(now.tv_nsec)
    }
}
