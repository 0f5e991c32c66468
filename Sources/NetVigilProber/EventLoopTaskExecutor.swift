import NIOCore

/// A `TaskExecutor` that runs jobs on one NIO event loop.
///
/// A task that prefers it runs its nonisolated code on that loop, where the futures it awaits complete, instead of
/// hopping to Swift's default executor (Dispatch's pool in the static binary) and back at every await. The daemon's
/// probe tasks (`ProbeScheduler`, through ``Prober/nextTaskExecutor()``) and `netvigil probe`
/// (`CommandEventLoop`) use it. Whatever runs under it must not block: see docs/architecture.md, Threads and executors.
public final class EventLoopTaskExecutor: TaskExecutor {
    /// The loop every job runs on.
    public let loop: any EventLoop

    public init(loop: any EventLoop) {
        self.loop = loop
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
