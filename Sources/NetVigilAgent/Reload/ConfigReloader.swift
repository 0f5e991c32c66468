import Logging
import NetVigilConcurrency
import ServiceLifecycle
import UnixSignals

/// Reloads the configuration on SIGHUP: the new file is validated first; on any error the running configuration
/// stays in force and the error is logged. History and in-memory state are kept. A reload that runs past
/// ``ReloadProgress/stuckAfter`` is logged once, and ``ReloadProgress`` lets `/healthz` and the metrics show it.
public struct ConfigReloader: Service {
    /// What a reload changed.
    public struct Summary: Sendable, Equatable {
        public var added: [String]
        public var changed: [String]
        public var removed: [String]
        /// Sections that changed but only take effect after a restart (e.g. `storage`, `feed`).
        public var needsRestart: [String]

        public init(added: [String], changed: [String], removed: [String], needsRestart: [String]) {
            self.added = added
            self.changed = changed
            self.removed = removed
            self.needsRestart = needsRestart
        }
    }

    private let path: String?
    private let logger: Logger
    private let metrics: AgentMetrics?
    private let progress: ReloadProgress
    private let apply: @Sendable (AgentConfiguration) async -> Summary

    /// - Parameters:
    ///   - path: the configuration file; nil when the daemon runs the built-in configuration (nothing to reload).
    ///   - metrics: where each outcome goes (`netvigil_config_last_reload_successful` and its timestamp).
    ///   - progress: when the reload in progress started, shared with ``DaemonHealth``.
    ///   - apply: applies a validated configuration and says what changed.
    public init(path: String?, logger: Logger, metrics: AgentMetrics? = nil, progress: ReloadProgress = ReloadProgress(),
                apply: @escaping @Sendable (AgentConfiguration) async -> Summary) {
        self.path = path
        self.logger = logger
        self.metrics = metrics
        self.progress = progress
        self.apply = apply
    }

    /// Reloads on each SIGHUP until graceful shutdown or cancellation.
    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        // Not `signals.cancelOnGracefulShutdown()`: its `merge` (swift-async-algorithms 1.1.4) holds a lock while
        // the waiting task may be enqueued again; a cancellation at that moment blocks the cancelling event loop
        // for good (apple/swift-async-algorithms#430). The signal stream ends when this task is cancelled.
        await cancelWhenGracefulShutdown {
            for await _ in signals { await reload() }
        }
    }

    /// Loads, validates and applies the file once; returns nil when the file was refused.
    @discardableResult
    public func reload() async -> Summary? {
        guard let path else {
            logger.notice("SIGHUP ignored: running the built-in configuration (start with --config FILE to reload)")
            return nil
        }
        progress.began()
        let watch = Task { [logger, progress] in
            try? await Task.sleep(for: progress.stuckAfter)
            guard !Task.isCancelled else { return }
            logger.error("configuration reload still running; later SIGHUPs wait for it", metadata: [
                "file": "\(path)", "after": "\(progress.stuckAfter.components.seconds) s",
            ])
        }
        let summary = await load(path)
        watch.cancel()
        progress.ended()
        metrics?.configReloadRunning(nil)
        return summary
    }

    private func load(_ path: String) async -> Summary? {
        let configuration: AgentConfiguration
        do {
            // Parsing and validating thousands of targets takes a while: off the event loops that run the probes.
            configuration = try await BlockingWork.run { try AgentConfiguration.load(path: path) }
        } catch {
            let described = (error as? ConfigError).map { ([$0] + $0.others).map(\.oneLine).joined(separator: "; ") } ?? "\(error)"
            logger.error("configuration reload refused; keeping the running configuration", metadata: ["error": "\(described)"])
            metrics?.configReloaded(successful: false)
            return nil
        }
        for warning in configuration.warnings { logger.warning("configuration warning", metadata: ["warning": "\(warning)"]) }
        let summary = await apply(configuration)
        metrics?.configReloaded(successful: true)
        logger.notice("configuration reloaded", metadata: [
            "added": "\(summary.added)", "changed": "\(summary.changed)", "removed": "\(summary.removed)",
        ])
        if !summary.needsRestart.isEmpty {
            logger.warning("changed sections take effect after a restart", metadata: ["sections": "\(summary.needsRestart)"])
        }
        return summary
    }
}
