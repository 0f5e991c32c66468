#if canImport(Glibc)
import Glibc
#endif

/// System calls that a signal can interrupt (`EINTR`), retried in one place for every module.
public enum SystemCall {
    /// Calls `call` again while it fails with `EINTR`; returns its first other result. A negative result is
    /// a failure whose cause is in `errno`, as the call left it.
    @inlinable
    public static func retryingOnInterrupt<Result: BinaryInteger>(_ call: () -> Result) -> Result {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
