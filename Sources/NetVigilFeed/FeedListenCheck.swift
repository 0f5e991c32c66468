import NetVigilAgent
import NIOCore
import NIOPosix

/// Why the feed cannot listen where the configuration says.
public struct FeedListenError: Error, CustomStringConvertible {
    public var address: ListenAddress
    /// What the operator can act on, e.g. "address already in use (another process listens there)".
    public var reason: String

    public var description: String { "feed.listen \(address): \(reason)" }
}

/// Binds the feed's address once and lets it go, so a busy or foreign address fails the daemon before any service
/// starts, with one clear line.
///
/// Without it the bind fails inside the running service group, which then cancels the feed's own services
/// (Hummingbird's date cache iterates a `merge`; see ``ConfigReloader/run()`` for why that cancellation can hang).
/// The check binds the way the feed does (`SO_REUSEADDR`), so it refuses exactly what the feed would refuse.
public enum FeedListenCheck {
    public static func check(_ address: ListenAddress) async throws(FeedListenError) {
        guard address.port != 0 else { return }  // the kernel picks a free port
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: address.host, port: address.port)
                .get()
            try? await channel.close()
        } catch let error as IOError {
            throw FeedListenError(address: address, reason: reason(errno: error.errnoCode))
        } catch {
            throw FeedListenError(address: address, reason: "cannot listen: \(error)")
        }
    }

    static func reason(errno: Int32) -> String {
        switch errno {
        case EADDRINUSE: "address already in use (another process listens there; `ss -tlnp` names it)"
        case EADDRNOTAVAIL: "address not available: no interface of this host has it"
        case EACCES: "permission denied (ports below 1024 need CAP_NET_BIND_SERVICE)"
        default: "cannot listen: \(String(cString: strerror(errno))) (errno \(errno))"
        }
    }
}
