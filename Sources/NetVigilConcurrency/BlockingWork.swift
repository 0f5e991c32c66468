import Dispatch

/// The one way netvigil runs blocking work (synchronous SQLite reads, exports, child processes, getaddrinfo) away
/// from the event loops that run its tasks.
///
/// Work goes to Dispatch's global concurrent queue: its threads grow with the blocked work and go away when idle,
/// so a slow export or DNS server never takes a thread another caller needs, and no pool is sized in advance.
public enum BlockingWork {
    /// Runs `work` on a Dispatch thread and returns its result.
    public static func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
            submit(work) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Runs `work` on a Dispatch thread and hands its result to `completion` on that thread (for callers that
    /// complete a NIO promise or race a timer on an event loop).
    public static func submit<T, E: Error>(_ work: @escaping @Sendable () throws(E) -> T,
                                           completion: @escaping @Sendable (Result<T, E>) -> Void) {
        DispatchQueue.global(qos: .userInitiated).async {
            do throws(E) {
                completion(.success(try work()))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
