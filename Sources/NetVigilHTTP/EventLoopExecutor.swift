import Foundation
import NIOCore
import NIOPosix

/// Runs Swift concurrency on NIO's event loop threads instead of a separate cooperative pool.
///
/// Every probe awaits NIO futures; with the default pool each await resumes on another thread, so a probe costs
/// two thread switches and their wake-ups. With the event loops as the global executor a task resumes on the
/// thread that completed its future. Nothing in netvigil blocks inside a task: SQLite writes run on GRDB's queues,
/// other blocking work (store reads of the feed, exports, alert commands, getaddrinfo) goes through `BlockingWork`,
/// netlink runs on its own thread.
public enum EventLoopExecutor {
    /// Installs `MultiThreadedEventLoopGroup.singleton` as the global executor, unless `NETVIGIL_NIO_EXECUTOR=0`.
    /// Call once, first thing in `main`. Returns whether it was installed.
    @discardableResult
    public static func install(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard environment["NETVIGIL_NIO_EXECUTOR"] != "0" else { return false }
        return NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }
}
