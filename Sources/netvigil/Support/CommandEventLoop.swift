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

    /// Starts the loop, and the probe's one-time set-up beside it, to overlap with the main thread's parsing.
    ///
    /// One helper thread creates the group: `MultiThreadedEventLoopGroup.init` waits until its thread runs, ~1.1 ms
    /// that the main thread would otherwise spend before parsing (docs/performance.md, Footprint and start-up).
    /// `group` is a `static let`, so a use on another thread waits for that initialisation to finish. Another first
    /// makes conformance look-ups the parse needs (`ProbeCommand.lookUpConformances`), ahead of the main thread,
    /// then runs `ProbeWarmUp.run`: off the loop, so that the probe starts on the loop as soon as the arguments are
    /// parsed, and whatever of the set-up is left then runs on the second core beside it. The group's thread is
    /// started first: started second, or by the warm-up thread, the probe measured 2.5-3.5 ms slower.
    static func prepare() {
        start { _ in _ = CommandEventLoop.group.next(); return nil }
        start { _ in ProbeCommand.lookUpConformances(); ProbeWarmUp.run(); return nil }
    }

    /// Starts a detached thread for `body`; if the thread cannot be created, nothing is lost but time (the group
    /// is created on first use, and the set-up happens as the probe needs it).
    private static func start(_ body: @escaping @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?) {
        var thread = pthread_t()
        if pthread_create(&thread, nil, body, nil) == 0 { pthread_detach(thread) }
    }

    /// Runs `body` with the loop as the task executor it and its child tasks prefer. Called from the main task,
    /// `body`'s nonisolated work starts on the loop without passing through the global executor.
    static func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(EventLoopTaskExecutor(loop: group.next()), isolation: isolation, operation: body)
    }
}
