import Foundation
import Logging
import ServiceLifecycle

/// The daemon's side of `Type=notify`: tells systemd when netvigil is ready, keeps the watchdog fed and says when it stops.
///
/// "Ready" means all three daemon parts are up:
/// - the **store** is open and writable (the daemon opens it before any service starts, so this holds when this
///   service runs);
/// - the **feed** has bound its listening socket (``feedIsListening(at:)``, called from the feed's `onServerRunning`);
/// - the **reachability watcher** has its netlink socket and initial dump (`watcherIsUp` returns `true`). When the
///   watcher is still down after `readinessTimeout` (netlink unavailable; the recorder keeps retrying and targets stay
///   `Unknown`), readiness is reported anyway with a `STATUS=` saying so, rather than failing the unit's start.
///
/// Then it sends `READY=1` and a one-line `STATUS=`. With `WATCHDOG_USEC` set (and `WATCHDOG_PID` absent or this
/// process) it sends `WATCHDOG=1` every half timeout from a task on the shared concurrency pool, but only while
/// `health` says the probe pipeline is live (``DaemonHealth``): a daemon whose executor is wedged, whose scheduler
/// stopped starting probes or whose store writer is stuck stops pinging (with `STATUS=unhealthy: …`), and systemd
/// restarts it. On graceful shutdown (or cancellation) it sends
/// `STOPPING=1`. Without `NOTIFY_SOCKET` it does nothing but wait for shutdown.
///
/// Put it last in the `ServiceGroup`: services stop in reverse order, so `STOPPING=1` goes out first.
public actor SystemdNotifyService: Service {
    private let notifier: SystemdNotifier?
    private let watchdog: SystemdWatchdog?
    private let logger: Logger
    private let readinessTimeout: Duration
    private let watcherIsUp: @Sendable () async -> Bool
    private let health: @Sendable () async -> DaemonHealth.Report
    private var lastHealth = DaemonHealth.Report(problems: [])
    private let feedAddresses: AsyncStream<String>
    private let feedContinuation: AsyncStream<String>.Continuation
    private var lastFailure: SystemdNotifyError?

    /// - Parameters:
    ///   - notifier: where messages go; `nil` (not under systemd) makes every call a no-op.
    ///   - watchdog: the watchdog systemd asked for, if any.
    ///   - readinessTimeout: how long to wait for the watcher after the feed is listening.
    ///   - watcherIsUp: whether the reachability watcher is running (e.g. `{ await monitor.isRunning }`).
    ///   - health: checked before each watchdog ping; no ping while it reports problems.
    public init(notifier: SystemdNotifier?, watchdog: SystemdWatchdog?, logger: Logger,
                readinessTimeout: Duration = .seconds(10), watcherIsUp: @escaping @Sendable () async -> Bool,
                health: @escaping @Sendable () async -> DaemonHealth.Report = { DaemonHealth.Report(problems: []) }) {
        self.notifier = notifier
        self.watchdog = notifier == nil ? nil : watchdog
        self.logger = logger
        self.readinessTimeout = readinessTimeout
        self.watcherIsUp = watcherIsUp
        self.health = health
        (feedAddresses, feedContinuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`. An unusable `NOTIFY_SOCKET` is
    /// logged as an error and notification is disabled (the daemon itself still runs).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger,
                readinessTimeout: Duration = .seconds(10), watcherIsUp: @escaping @Sendable () async -> Bool,
                health: @escaping @Sendable () async -> DaemonHealth.Report = { DaemonHealth.Report(problems: []) }) {
        var notifier: SystemdNotifier?
        do {
            notifier = try SystemdNotifier(environment: environment)
        } catch {
            logger.error("systemd notification disabled", metadata: ["error": "\(error)"])
        }
        self.init(notifier: notifier, watchdog: SystemdWatchdog(environment: environment), logger: logger,
                  readinessTimeout: readinessTimeout, watcherIsUp: watcherIsUp, health: health)
    }

    /// Whether a service manager is listening (`NOTIFY_SOCKET` was set and valid).
    public nonisolated var isEnabled: Bool { notifier != nil }

    /// Call when the feed's listening socket is bound (Hummingbird's `onServerRunning`); `address` goes into `STATUS=`.
    public nonisolated func feedIsListening(at address: String) {
        feedContinuation.yield(address)
    }

    /// Replaces the `STATUS=` line shown by `systemctl status`.
    public func update(status: String) {
        send([.status(status)])
    }

    /// Sends arbitrary messages, e.g. `.reloading` then `.ready` around a configuration reload.
    public func notify(_ messages: [SystemdNotifyMessage]) {
        send(messages)
    }

    public func run() async throws {
        guard notifier != nil else {
            try? await gracefulShutdown()
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.announceReadiness() }
            if let watchdog {
                group.addTask { await self.feedWatchdog(every: watchdog.pingInterval) }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        send([.stopping, .status("stopping")])
    }

    private func announceReadiness() async {
        var feedAddress: String?
        for await address in feedAddresses {
            feedAddress = address
            break
        }
        guard let feedAddress, !Task.isCancelled else { return }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: readinessTimeout)
        var watcherUp = await watcherIsUp()
        while !watcherUp, clock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(50))
            watcherUp = await watcherIsUp()
        }
        guard !Task.isCancelled else { return }
        let status = watcherUp
            ? "ready: feed on \(feedAddress), reachability watcher up"
            : "ready: feed on \(feedAddress), reachability watcher unavailable (retrying; targets Unknown)"
        send([.ready, .status(status)])
        logger.info("systemd notified: ready", metadata: ["status": "\(status)"])
    }

    private func feedWatchdog(every interval: Duration) async {
        logger.debug("systemd watchdog enabled", metadata: ["interval": "\(interval)"])
        while !Task.isCancelled {
            let report = await health()
            if report.isHealthy {
                if !lastHealth.isHealthy {
                    logger.notice("healthy again; watchdog pings resume")
                    send([.watchdog, .status("healthy again")])
                } else {
                    send([.watchdog])
                }
            } else if report != lastHealth {
                logger.error("unhealthy: watchdog pings withheld", metadata: ["problems": "\(report.summary)"])
                send([.status("unhealthy: \(report.summary)")])
            }
            lastHealth = report
            try? await Task.sleep(for: interval)
        }
    }

    /// Sends and logs a failure once per distinct error (a gone receiver would otherwise log every ping).
    private func send(_ messages: [SystemdNotifyMessage]) {
        guard let notifier else { return }
        do {
            try notifier.send(messages)
            lastFailure = nil
        } catch {
            if error != lastFailure {
                logger.warning("systemd notification failed", metadata: ["error": "\(error)"])
            }
            lastFailure = error
        }
    }
}
