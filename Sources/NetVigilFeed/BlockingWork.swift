import Dispatch

/// Runs synchronous store work (SQLite reads) on a Dispatch thread so it never blocks the server's event loops or
/// the cooperative pool, and returns its result.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async {
            continuation.resume(with: Result { try work() })
        }
    }
}
