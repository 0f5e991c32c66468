import Glibc
import NIOCore
import NIOPosix
import NetVigilHTTP

/// One event loop thread for a command that makes a single probe (`netvigil probe`), with its Swift tasks running on
/// that thread.
///
/// A fresh `netvigil probe` otherwise starts NIO's shared group (one thread per core) and Dispatch's worker pool
/// (the default global executor: the static binary cannot install NIO's executor hook, see `EventLoopExecutor`),
/// and every await of the probe resumes on a Dispatch worker woken from another thread. Here the command's task
/// prefers this loop as its task executor, so connect, TLS and the response run where their futures complete.
enum CommandEventLoop {
    /// The group: one thread, started on first use and never shut down (it lives as long as the process).
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Starts the loop and OpenSSL's set-up on it, to overlap with the main thread's argument parsing.
    ///
    /// A helper thread creates the group: `MultiThreadedEventLoopGroup.init` waits until its thread runs, ~1.1 ms
    /// that the main thread would otherwise spend before parsing (docs/performance.md, Footprint and start-up).
    /// `group` is a `static let`, so a use on another thread waits for that initialisation to finish.
    static func prepare() {
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { _ in
            CommandEventLoop.group.next().execute { OpenSSLPreparation.warmUp() }
            return nil
        }, nil)
        if created == 0 {
            pthread_detach(thread)
        } else {
            group.next().execute { OpenSSLPreparation.warmUp() }
        }
    }

    /// Runs `body` with the loop as the task executor it and its child tasks prefer. Called from the main task,
    /// `body`'s nonisolated work starts on the loop without passing through the global executor.
    static func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(EventLoopTaskExecutor(loop: group.next()), isolation: isolation, operation: body)
    }
}
