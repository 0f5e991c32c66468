#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Failures that mean the agent itself ran out of descriptors or memory, not that the target failed.
enum ResourceExhaustion {
    /// `EMFILE`, `ENFILE`, `ENOMEM`, `ENOBUFS`.
    static let errnoCodes: Set<Int32> = [EMFILE, ENFILE, ENOMEM, ENOBUFS]

    /// "the agent is out of …" for an errno code.
    static func describe(_ code: Int32) -> String {
        switch code {
        case EMFILE: "the agent is out of file descriptors (EMFILE: per-process limit reached)"
        case ENFILE: "the system is out of file descriptors (ENFILE)"
        case ENOBUFS: "the system is out of socket buffers (ENOBUFS)"
        default: "the agent is out of memory (ENOMEM)"
        }
    }

    /// Whether a descriptor can be opened right now; the reason when it cannot for lack of resources.
    static func current() -> String? {
        let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            close(descriptor)
            return nil
        }
        let code = errno
        return errnoCodes.contains(code) ? describe(code) : nil
    }
}
