import Foundation
import Logging
import NetVigilAgent
import NetVigilFeed
import NetVigilFleet
import NetVigilProber
import NetVigilReachability
import NetVigilStore
import NetVigilSystem
import ServiceLifecycle

/// The daemon: a validated configuration in, one `ServiceGroup` of services out (store writer, retention, alert
/// dispatcher, reachability recorder, captive-portal checker, probe scheduler, reloader, feed, systemd notifier),
/// with reload, shutdown and health as methods, so that they can be driven and observed in process.
///
/// `netvigil run` only parses its options, loads the configuration, builds a `Daemon` and runs it.
public final class Daemon: Sendable {
    /// The group; `run()` runs it.
    public let group: ServiceGroup
    /// The services in the order the group starts them (it stops them in reverse: the store writer last).
    public let services: [any Service]
    /// The store writer: everything producers submit goes through it.
    public let writer: StoreWriter
    /// The probe scheduler.
    public let scheduler: ProbeScheduler
    /// The reloader: `reload()` is what SIGHUP does.
    public let reloader: ConfigReloader
    /// Liveness and readiness (`/healthz`, the systemd watchdog).
    public let health: DaemonHealth
    /// The store.
    public let store: Store
    /// The feed's metrics.
    public let metrics: FeedMetrics
    private let events: EventHub
    private let firstRoundSpread: Duration
    private let logger: Logger

    /// Builds every service of the daemon; nothing runs until `run()`.
    /// - Parameters:
    ///   - configuration: validated (`AgentConfiguration`); consumed: the services keep what they need.
    ///   - path: the configuration file, re-read on reload; nil for the built-in configuration (reload refused).
    ///   - descriptorLimit: the process's soft open-file limit (nil: unknown); probes and the daemon's own files get
    ///     their descriptors first, feed clients share the rest.
    ///   - logLevelChanged: a reloaded `log.level` (the process's log handler is the caller's).
    ///   - extraServices: appended to the group, after the daemon's own (e.g. a shutdown deadline that must hear of
    ///     the stop first).
    /// - Throws: `DaemonError` when the feed's address cannot be bound or the store cannot be opened.
    public init(configuration: consuming AgentConfiguration, path: String?, descriptorLimit: Int?,
                logger: Logger = Logger(label: "netvigil"),
                logLevelChanged: @escaping @Sendable (Logger.Level) -> Void = { _ in },
                extraServices: [any Service] = []) async throws(DaemonError) {
        self.logger = logger
        let descriptors = DescriptorBudget(limit: descriptorLimit, processors: ProcessInfo.processInfo.activeProcessorCount,
                                           scheduler: configuration.scheduler, feed: configuration.feed,
                                           targets: configuration.targets.targets)
        for adjustment in descriptors.adjustments {
            logger.warning("setting lowered to fit the open-file limit", metadata: ["adjustment": "\(adjustment)"])
        }
        for warning in configuration.warnings { logger.warning("configuration warning", metadata: ["warning": "\(warning)"]) }

        // A busy feed port fails here, before anything starts, rather than inside the running group.
        do {
            try await FeedListenCheck.check(configuration.feed.listen)
            if let healthListen = configuration.feed.healthListen { try await FeedListenCheck.check(healthListen) }
        } catch {
            throw .feedUnavailable("\(error)")
        }
        let store: Store
        do {
            store = try Store.open(path: configuration.storage.path)
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .store(StoreError(.io, path: configuration.storage.path, message: "\(error)"))
        }
        let metrics = FeedMetrics()
        let events = EventHub(maxSubscribers: descriptors.eventSubscribers)
        let states = TargetStates()
        let writer = StoreWriter(store: store, logger: Logger(label: "netvigil.store"),
                                 maxQueuedRows: configuration.storage.maxQueuedRows,
                                 onDrop: { metrics.agent.storeDroppedRows($0) })
        let retention = RetentionService(store: store, retention: configuration.storage.retention,
                                         logger: Logger(label: "netvigil.retention"),
                                         afterRelease: { MemoryRelease.trimSoon() })
        let monitor = ReachabilityMonitor(
            targets: configuration.reachability.targets,
            options: .init(hostResolveInterval: configuration.reachability.resolveInterval),
            logger: Logger(label: "netvigil.reachability"))
        // Probe targets' hosts are watched too: a probe of an unreachable host is skipped, not failed.
        await monitor.add(configuration.targets.targets.compactMap(\.reachabilityTarget))
        let reachability = ReachabilityRecorder(monitor: monitor, writer: writer, logger: Logger(label: "netvigil.reachability"),
                                                metrics: metrics.agent, events: events)
        let alerts = AlertEngine(rules: configuration.alerts.rules, logger: Logger(label: "netvigil.alerts"))
        do {
            let restored = try await alerts.restore(from: store, targetRules: configuration.targets.alertRules)
            if restored > 0 { logger.info("alert state restored", metadata: ["firing": "\(restored)"]) }
        } catch {
            logger.error("cannot restore alert state; firing alerts may be sent again", metadata: ["error": "\(error)"])
        }
        let dispatcher = AlertDispatcher(store: store, configuration: configuration.alerts,
                                         logger: Logger(label: "netvigil.alerts"), metrics: metrics.agent, writer: writer,
                                         firing: { alerts.firing() })
        let pipeline = ProbePipeline(
            prober: Prober(), writer: writer, states: states, events: events, alerts: alerts,
            metrics: metrics.agent, reachability: monitor, alertsCommitted: { dispatcher.wake() },
            logger: Logger(label: "netvigil.probe"))
        let scheduler = ProbeScheduler(targets: configuration.targets.targets, concurrency: descriptors.concurrency,
                                       pipeline: pipeline, logger: Logger(label: "netvigil.scheduler"))
        metrics.agent.follow(scheduler: scheduler.statistics)
        let reloadProgress = ReloadProgress()
        // `fleet:`: the shipper copies the local history to PostgreSQL; its lag is a /healthz warning, not a 503.
        var fleetServices: [any Service] = []
        var fleetStatus: FleetShippingStatus?
        if let fleet = configuration.fleet {
            let status = FleetShippingStatus(heartbeat: fleet.heartbeat)
            let identity = FleetAgentIdentity(
                agent: fleet.agent, version: NetVigilVersion.current, labels: configuration.labels.dictionary,
                targets: configuration.targets.targets.map(\.name),
                configBytes: path.flatMap { FileManager.default.contents(atPath: $0).map { Array($0) } })
            fleetServices.append(FleetShipper(store: store, connector: FleetConnector(section: fleet), identity: identity,
                                              heartbeat: fleet.heartbeat, metrics: metrics.agent, status: status,
                                              logger: Logger(label: "netvigil.fleet")))
            fleetStatus = status
        }
        var healthWarnings: (@Sendable () -> [String])?
        if let fleetStatus { healthWarnings = { fleetStatus.warnings() } }
        let health = DaemonHealth(scheduler: scheduler, writer: writer, metrics: metrics.agent, reload: reloadProgress,
                                  warnings: healthWarnings)
        let portal = CaptivePortalChecker(monitor: monitor, settings: configuration.reachability.captivePortal,
                                          paths: configuration.targets.targets.flatMap(\.sources),
                                          logger: Logger(label: "netvigil.portal"))
        Task {
            // Uptime ratios survive restarts: seed them from the last 7 days of history.
            if let counts = try? await store.outcomeCounts(since: Timestamp(milliseconds: Timestamp.now().milliseconds - 7 * 86_400_000)) {
                states.seed(counts)
            }
        }
        let feedConfiguration = FeedConfiguration(descriptors.applied(to: configuration.feed))
        // The reload compares these with the start-up settings; captured alone, so the start-up target list is not
        // kept alive next to the reloaded one.
        let (startupStorage, startupFeed, startupFleet) = (configuration.storage, configuration.feed, configuration.fleet)
        let reloader = ConfigReloader(path: path, logger: Logger(label: "netvigil.config"), metrics: metrics.agent,
                                      progress: reloadProgress) { reloaded in
            logLevelChanged(reloaded.log.level)
            alerts.update(rules: reloaded.alerts.rules, targetRules: reloaded.targets.alertRules)
            dispatcher.update(configuration: reloaded.alerts)
            await reachability.watch(reloaded.reachability.targets + reloaded.targets.targets.compactMap(\.reachabilityTarget))
            await portal.update(settings: reloaded.reachability.captivePortal, paths: reloaded.targets.targets.flatMap(\.sources))
            let change = await scheduler.update(targets: reloaded.targets.targets)
            var unchangeable: [String] = []
            if reloaded.storage != startupStorage { unchangeable.append("storage") }
            if reloaded.fleet != startupFleet { unchangeable.append("fleet") }
            var feedSettings = reloaded.feed
            feedSettings.tls = startupFeed.tls
            if feedSettings != startupFeed || (reloaded.feed.tls == nil) != (startupFeed.tls == nil) {
                unchangeable.append("feed")
            }
            if let tls = reloaded.feed.tls, let live = feedConfiguration.tls {
                // The files were loaded again with the configuration: new connections get the renewed certificate.
                live.replace(with: tls.context)
                logger.info("feed TLS certificate and key reloaded", metadata: ["certificate": "\(tls.certificateFile)"])
            }
            // The parse's transient heap (YAML nodes, a second target list) is free once this returns.
            MemoryRelease.trimSoon()
            return ConfigReloader.Summary(added: change.added, changed: change.changed, removed: change.removed,
                                          needsRestart: unchangeable)
        }
        // Type=notify: READY=1 once the feed listens and the watcher runs, WATCHDOG=1, STOPPING=1 (no-op outside systemd).
        let systemd = SystemdNotifyService(logger: Logger(label: "netvigil.systemd"), watcherIsUp: { await monitor.isRunning },
                                           health: { health.check() })
        let feedLogger = Logger(label: "netvigil.feed")
        let feed = buildApplication(
            configuration: feedConfiguration,
            state: FeedState(store: store, reachability: monitor, metrics: metrics, events: events, targets: states,
                             alerts: alerts, portal: portal, health: health),
            logger: feedLogger,
            onServerRunning: { address in
                // A URL to open, not only an address: the first thing a new user wants is the page.
                feedLogger.info("feed listening", metadata: [
                    "url": "\(feedConfiguration.tls == nil ? "http" : "https")://\(Self.urlHost(address))/",
                ])
                systemd.feedIsListening(at: address)
            })
        let feedState = FeedState(store: store, reachability: monitor, metrics: metrics, events: events, targets: states,
                                  alerts: alerts, portal: portal, health: health)
        var healthListener: [any Service] = []
        if let healthListen = configuration.feed.healthListen {
            healthListener.append(buildHealthApplication(listen: healthListen, state: feedState, logger: feedLogger) { address in
                feedLogger.info("health listener", metadata: ["url": "http://\(Self.urlHost(address))/healthz"])
            })
        }
        // The writer is first so it stops last: everything producers submit is flushed. The systemd notifier is near
        // the end, so it stops early: STOPPING=1 goes out as soon as shutdown begins.
        let services: [any Service] = [writer, retention, dispatcher, reachability, portal, scheduler, reloader, feed]
            + fleetServices + healthListener + [systemd] + extraServices
        group = ServiceGroup.stoppingGracefully(services, logger: logger)
        logger.info("netvigil starting", metadata: [
            "version": "\(NetVigilVersion.current)", "store": "\(store.path)", "feed": "\(configuration.feed.listen)",
            "targets": "\(configuration.targets.targets.count)",
        ])
        self.services = services
        self.writer = writer
        self.scheduler = scheduler
        self.reloader = reloader
        self.health = health
        self.store = store
        self.metrics = metrics
        self.events = events
        self.firstRoundSpread = scheduler.firstRoundSpread
        // The services hold what they need. Without this the start-up targets would stay alive beside the reloaded
        // ones for the daemon's whole life.
        _ = consume configuration
    }

    /// Runs the services until a signal (SIGTERM, SIGINT), `shutdown()` or a failing service stops them; the store
    /// writer has flushed what it was given when this returns.
    /// - Throws: the error of the service that failed.
    public func run() async throws {
        // Once the first round of probes has run (10 s of spread for short lists, up to the interval for long ones),
        // start-up's heap goes.
        MemoryRelease.afterStartup(delay: max(firstRoundSpread, .seconds(10)) + .seconds(5))
        defer { events.finish() }
        try await group.run()
        // The writer drained its queue before it stopped; what three failed attempts could not write is counted.
        let writerHealth = writer.health
        let unwritten = writerHealth.queuedRows + writerHealth.abandonedRows
        logger.log(level: unwritten == 0 ? .info : .error, "netvigil stopped",
                   metadata: ["unwritten_rows": "\(unwritten)", "dropped_rows": "\(writerHealth.droppedRows)"])
    }

    /// Re-reads the configuration file and applies it, as SIGHUP does; nil when the file was refused (the running
    /// configuration stays) or the daemon runs the built-in configuration.
    @discardableResult
    public func reload() async -> ConfigReloader.Summary? {
        await reloader.reload()
    }

    /// Starts a graceful shutdown, as SIGTERM does: probes in flight are cancelled, the writer flushes, `run()`
    /// returns.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }

    /// `HOST:PORT` with an IPv6 host in brackets, as a URL wants it.
    static func urlHost(_ address: String) -> String {
        guard let colon = address.lastIndex(of: ":"), address[..<colon].contains(":") else { return address }
        return "[\(address[..<colon])]\(address[colon...])"
    }

    /// What `/healthz` answers now.
    public func healthReport() -> DaemonHealth.Report {
        health.check()
    }

    /// What is not flushed yet, for a forced exit's last log line.
    public var unflushedSummary: String {
        let health = writer.health
        return "\(health.queuedRows) rows not stored (\(writer.queuedAlerts.count) of them alert rows)"
    }
}
