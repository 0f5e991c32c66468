import Foundation
import Logging
import NetVigilConcurrency
import NetVigilProber
import NetVigilReachability
import NetVigilStore
import ServiceLifecycle
import Synchronization

/// The captive-portal check (NetworkManager connectivity check / Android `generate_204`): a plain request whose
/// expected answer only a free network gives. Any other answer sets `interventionRequired` on `default`, which
/// the AFNetworking formula maps to NotReachable; the feed shows it as `portal`. The check also runs over every
/// path of the targets' `source:` (bound to that interface or address, as their probes are): each path gets its
/// own verdict, and a path behind a portal is NotReachable for the probes over it alone (`+Paths`).
public final class CaptivePortalChecker: Service, Sendable {
    /// The latest verdict.
    public struct Verdict: Sendable, Codable, Equatable {
        /// `free`, `portal` or `unknown` (no check yet, or the check itself failed to connect).
        public var state: String
        public var checkedAt: Timestamp?
        public var url: String?
        /// The status the check got, nil when it did not get one.
        public var httpStatus: Int?
        public var message: String?

        enum CodingKeys: String, CodingKey {
            case state, url, message
            case checkedAt = "checked_at", httpStatus = "http_status"
        }
    }

    struct State {
        var settings: CaptivePortalSettings?
        var verdict = Verdict(state: "unknown")
        var generation = 0
        /// The distinct `source:` paths of the configured targets, checked each round besides `default`.
        var paths: [ProbeSource] = []
        /// The latest verdict of each path.
        var pathVerdicts: [ProbeSource: Verdict] = [:]
    }

    let monitor: ReachabilityMonitor
    private let prober: Prober
    let logger: Logger
    let state: Mutex<State>
    private let waker = Waker()

    /// `paths`: the targets' `source:` paths, each checked over its own binding.
    public init(monitor: ReachabilityMonitor, settings: CaptivePortalSettings?, paths: [ProbeSource] = [],
                prober: Prober = Prober(), logger: Logger) {
        self.monitor = monitor
        self.prober = prober
        self.logger = logger
        self.state = Mutex(State(settings: settings, paths: Self.distinct(paths)))
    }

    /// The latest verdict.
    public var verdict: Verdict { state.withLock { $0.verdict } }

    /// Applies reloaded settings and paths (nil settings turn the check off and clear `interventionRequired`; a
    /// path no longer configured loses its verdict).
    public func update(settings: CaptivePortalSettings?, paths: [ProbeSource] = []) async {
        let paths = Self.distinct(paths)
        let (changed, dropped) = state.withLock { state -> (Bool, [ProbeSource]) in
            let dropped = state.pathVerdicts.keys.filter { settings == nil || !paths.contains($0) }
            for path in dropped { state.pathVerdicts[path] = nil }
            guard state.settings != settings || state.paths != paths else { return (false, dropped) }
            state.settings = settings
            state.paths = paths
            state.generation += 1
            if settings == nil { state.verdict = Verdict(state: "unknown") }
            return (true, dropped)
        }
        for path in dropped { await monitor.setInterventionRequired(nil, for: NetworkPath(path)) }
        guard changed else { return }
        if settings == nil { await monitor.setInterventionRequired(false, for: .default) }
        waker.wake()
    }

    public func run() async throws {
        let defaultChanges = await monitor.changes(for: .default)
        // Nothing to drain: shutdown cancels the loop, its sleep and a check in flight.
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                // A change of the default route (new network) triggers a check at once.
                group.addTask {
                    var lastInterface: String?? = .none
                    for await evaluation in defaultChanges {
                        if lastInterface != .some(evaluation.interface) {
                            lastInterface = .some(evaluation.interface)
                            self.waker.wake()
                        }
                    }
                }
                while !Task.isCancelled {
                    let settings = self.state.withLock { $0.settings }
                    guard let settings else {
                        _ = await self.waker.sleep(until: .now + .seconds(3_600))
                        continue
                    }
                    await self.check(settings)
                    _ = await self.waker.sleep(until: .now + settings.interval)
                }
                group.cancelAll()
            }
        }
    }

    /// Runs the check once over the default route and over every path, and applies the verdicts.
    @discardableResult
    public func check(_ settings: CaptivePortalSettings) async -> Verdict {
        let paths = state.withLock { $0.paths }
        async let pathChecks: Void = checkPaths(paths, settings: settings)
        let verdict = await verdict(settings)
        await pathChecks
        return await apply(verdict, settings: settings)
    }

    /// One check's verdict, over `source` when given (bound as a probe over that path is).
    func verdict(_ settings: CaptivePortalSettings, over source: ProbeSource? = nil) async -> Verdict {
        var verdict = Verdict(state: "unknown", checkedAt: .now(), url: settings.url)
        do {
            let request = try RequestSerializer(version: NetVigilVersion.current).request(method: .GET, url: settings.url)
            var configuration = ProbeConfiguration(trustStore: try SystemTrustStoreCache.shared(),
                                                   timeout: settings.timeout.inSeconds,
                                                   connectTimeout: min(5, settings.timeout.inSeconds), maxRedirects: 0)
            configuration.responseSerializer.acceptableStatusCodes = Set(100...599)
            configuration.source = source
            if let isIPv6 = source?.isIPv6 { configuration.addressFamily = isIPv6 ? .ipv6 : .ipv4 }
            let result = await prober.probe(request, configuration: configuration)
            if let status = result.status {
                verdict.httpStatus = status
                verdict.state = status == settings.expectStatus ? "free" : "portal"
                verdict.message = status == settings.expectStatus ? nil
                    : "expected HTTP \(settings.expectStatus), got \(status): a captive portal intercepts traffic"
            } else {
                verdict.message = "check failed: \(result.error?.message ?? "no answer")"
            }
        } catch {
            verdict.message = "check failed: \(error)"
        }
        return verdict
    }

    /// Stores the default route's verdict and applies it to `default`.
    private func apply(_ verdict: Verdict, settings: CaptivePortalSettings) async -> Verdict {
        let previous = state.withLock { state -> Verdict in
            defer { state.verdict = verdict }
            return state.verdict
        }
        // Only a definite answer changes the flag: a failed check (no network at all) is the watcher's business.
        if verdict.state != "unknown" {
            await monitor.setInterventionRequired(verdict.state == "portal", for: .default)
        }
        if previous.state != verdict.state {
            if verdict.state == "portal" {
                logger.warning("captive portal detected", metadata: ["url": "\(settings.url)", "status": "\(verdict.httpStatus ?? 0)"])
            } else {
                logger.info("captive portal check", metadata: ["state": "\(verdict.state)", "message": "\(verdict.message ?? "")"])
            }
        }
        return verdict
    }

}
