import NIOCore

/// A `TaskExecutor` that runs jobs on one NIO event loop (see `CommandEventLoop`).
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
