import NetVigilStore

/// Why the daemon could not start. Each case says what to fix; `netvigil run` maps them to its exit codes.
public enum DaemonError: Error, Sendable, CustomStringConvertible {
    /// The feed's listen address cannot be bound (in use, not local, no permission).
    case feedUnavailable(String)
    /// The store cannot be opened: not writable, not a regular file, corrupt or a foreign database.
    case store(StoreError)

    public var description: String {
        switch self {
        case .feedUnavailable(let reason): return reason
        case .store(let error): return "storage: \(error)"
        }
    }
}
