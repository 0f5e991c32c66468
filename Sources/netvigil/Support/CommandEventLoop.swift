import NIOCore
import NIOPosix
import NetVigilProber

/// One event loop thread for a command that makes a single probe (`netvigil probe`), with its Swift tasks running on
/// that thread.
///
/// A probe's futures complete on an event loop; Swift's default executor would resume every await of the probe on
/// another thread. Here the command's task prefers this loop as its task executor (as the daemon's probe tasks
/// prefer the prober's loops), so connect, TLS and the response run where their futures complete.
enum CommandEventLoop {
    /// The group: one thread, started on first use and never shut down (it lives as long as the process).
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Runs `body` with the loop as the task executor it and its child tasks prefer. Called from the main task,
    /// `body`'s nonisolated work starts on the loop without passing through the global executor.
    static func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(EventLoopTaskExecutor(loop: group.next()), isolation: isolation, operation: body)
    }
}
