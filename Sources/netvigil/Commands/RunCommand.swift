import ArgumentParser
import Foundation
import Logging
import NetVigilAgent
import NetVigilFeed
import NetVigilHTTP
import NetVigilReachability
import NetVigilStore
import NetVigilSystem
import ServiceLifecycle

/// `netvigil run`: the daemon. Store writer, retention, reachability recorder, probe scheduler, alert dispatcher
/// and feed are services of one `ServiceGroup`; SIGHUP reloads the configuration.
struct RunCommand: AsyncParsableCommand {
    /// SIGTERM/SIGINT end the process within this, gracefully when possible (the group gets 4 s of it).
    static let shutdownDeadline: Duration = .milliseconds(4_800)

    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the monitoring daemon (stops on SIGTERM or SIGINT within 5 s, reloads on SIGHUP).",
        discussion: """
            GET /healthz on the feed answers 200 while the daemon is live and 503 with the reasons when a due probe \
            has not started within max(2 x the shortest interval, 30 s), a probe runs that long past its timeout, or \
            the store cannot be written (disk full: results wait in memory, up to storage.max_queued_rows rows, and \
            alerts are still delivered); under systemd the watchdog ping (WatchdogSec=) stops while unhealthy. \
            SIGTERM/SIGINT stop the services gracefully; after 4.8 s the process exits anyway with 70, logging what \
            it could not write, and a second signal exits at once. \
            Exit codes: 0 clean stop; 78 bad configuration; 74 storage not writable or not a regular file; 65 corrupt \
            or foreign database; 70 the feed address cannot be bound (e.g. the port is in use), a service failed or the \
            stop was forced; 130/143 SIGINT/SIGTERM during start-up.
            """)

    @Option(name: .long, help: "YAML configuration file (default: the built-in configuration).")
    var config: String?

    func run() async throws {
        try await withCLIFailureHandling {
            let deadline = ShutdownDeadline(deadline: Self.shutdownDeadline, logger: Logger(label: "netvigil"))
            let configuration = try loadConfiguration(config)
            LogBootstrap.bootstrap(level: configuration.log.level)
            let logger = Logger(label: "netvigil")
            // Probes and the daemon's own files get their descriptors first; feed clients share what is left.
            let descriptors = DescriptorBudget(limit: DescriptorLimit.raiseToHardLimit(logger: logger),
                                               processors: ProcessInfo.processInfo.activeProcessorCount,
                                               scheduler: configuration.scheduler, feed: configuration.feed,
                                               targets: configuration.targets.targets)
            for adjustment in descriptors.adjustments {
                logger.warning("setting lowered to fit the open-file limit", metadata: ["adjustment": "\(adjustment)"])
            }
            for warning in configuration.warnings { logger.warning("configuration warning", metadata: ["warning": "\(warning)"]) }

            // A busy feed port fails here, before anything starts, rather than inside the running group.
            do {
                try await FeedListenCheck.check(configuration.feed.listen)
            } catch {
                throw CLIFailure(.software, "\(error)")
            }
            let store: Store
            do {
                store = try Store.open(path: configuration.storage.path)
            } catch let error as StoreError {
                throw CLIFailure(error.kind == .io ? .ioError : .dataError, "storage: \(error)")
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
                prober: HTTPProber(), writer: writer, states: states, events: events, alerts: alerts,
                metrics: metrics.agent, reachability: monitor, alertsCommitted: { dispatcher.wake() },
                logger: Logger(label: "netvigil.probe"))
            let scheduler = ProbeScheduler(targets: configuration.targets.targets, concurrency: descriptors.concurrency,
                                           pipeline: pipeline, logger: Logger(label: "netvigil.scheduler"))
            metrics.agent.follow(scheduler: scheduler.statistics)
            let reloadProgress = ReloadProgress()
            let health = DaemonHealth(scheduler: scheduler, writer: writer, metrics: metrics.agent, reload: reloadProgress)
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
            // The reload compares these with the start-up settings; captured alone, so the start-up target list is
            // not kept alive next to the reloaded one.
            let (startupStorage, startupFeed) = (configuration.storage, configuration.feed)
            let reloader = ConfigReloader(path: config, logger: Logger(label: "netvigil.config"), metrics: metrics.agent,
                                          progress: reloadProgress) { reloaded in
                LogBootstrap.level = reloaded.log.level
                alerts.update(rules: reloaded.alerts.rules, targetRules: reloaded.targets.alertRules)
                dispatcher.update(configuration: reloaded.alerts)
                await reachability.watch(reloaded.reachability.targets + reloaded.targets.targets.compactMap(\.reachabilityTarget))
                await portal.update(settings: reloaded.reachability.captivePortal, paths: reloaded.targets.targets.flatMap(\.sources))
                let change = await scheduler.update(targets: reloaded.targets.targets)
                var unchangeable: [String] = []
                if reloaded.storage != startupStorage { unchangeable.append("storage") }
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
                    feedLogger.info("feed listening", metadata: ["address": "\(address)"])
                    systemd.feedIsListening(at: address)
                })
            // A service that fails stops the others gracefully (the default would cancel them, and the writer's
            // queue would be lost); ``ShutdownDeadline`` bounds that stop as it does a signal's.
            let services: [any Service] = [
                // The writer is first so it stops last: everything producers submit is flushed.
                writer, retention, dispatcher, reachability, portal, scheduler, reloader, feed,
                // Near the end, so it stops early: STOPPING=1 goes out as soon as shutdown begins.
                systemd,
                // Last, so it hears of shutdown first.
                ShutdownDeadline.Watch(deadline: deadline),
            ]
            var groupConfiguration = ServiceGroupConfiguration(
                services: services.map { .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger)
            groupConfiguration.maximumGracefulShutdownDuration = .seconds(4)
            let group = ServiceGroup(configuration: groupConfiguration)
            logger.info("netvigil starting", metadata: [
                "version": "\(NetVigilVersion.current)", "store": "\(store.path)", "feed": "\(configuration.feed.listen)",
                "targets": "\(configuration.targets.targets.count)",
            ])
            deadline.running {
                let health = writer.health
                return "\(health.queuedRows) rows not stored (\(writer.queuedAlerts.count) of them alert rows)"
            }
            // Once the first round of probes has run (10 s of spread for short lists, up to the interval for long
            // ones), start-up's heap goes.
            MemoryRelease.afterStartup(delay: max(scheduler.firstRoundSpread, .seconds(10)) + .seconds(5))
            // The services hold what they need. Without this the start-up targets would stay alive beside the
            // reloaded ones for the daemon's whole life (~2 KB a target: 17 MB at 10,000, docs/performance.md).
            _ = consume configuration
            do {
                try await group.run()
            } catch {
                events.finish()
                throw CLIFailure(.software, "daemon stopped: \(error)")
            }
            events.finish()
            // The writer drained its queue before it stopped; what three failed attempts could not write is counted.
            let writerHealth = writer.health
            let unwritten = writerHealth.queuedRows + writerHealth.abandonedRows
            logger.log(level: unwritten == 0 ? .info : .error, "netvigil stopped",
                       metadata: ["unwritten_rows": "\(unwritten)", "dropped_rows": "\(writerHealth.droppedRows)"])
        }
    }
}
