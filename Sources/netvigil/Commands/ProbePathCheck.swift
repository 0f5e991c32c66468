import Logging
import NetVigilAgent
import NetVigilProber
import NetVigilReachability

/// The reachability of the path of `probe --interface/--source` (or a configured target's `source:`), judged as
/// the daemon judges it before each probe: the netlink watcher's mirror of links, addresses and routes, through
/// the path's interface, towards the address the probe connected to.
struct ProbePathCheck {
    let source: ProbeSource
    private let monitor: ReachabilityMonitor

    /// Opens the netlink watcher for `source`; nil without a source, or (after `warn`) when netlink is unavailable.
    static func start(for source: ProbeSource?, warn: (String) -> Void) async -> ProbePathCheck? {
        guard let source else { return nil }
        var logger = Logger(label: "netvigil.reachability")
        logger.logLevel = .warning
        let monitor = ReachabilityMonitor(targets: [], logger: logger)
        do {
            try await monitor.start()
        } catch {
            warn("the path's reachability is unknown: \(error)")
            return nil
        }
        return ProbePathCheck(source: source, monitor: monitor)
    }

    /// Evaluates the path towards `result`'s address and records its interface and kind in `result`, as the
    /// daemon records them in the result row.
    func record(_ result: inout ProbeResult) async -> PathEvaluation? {
        let destination = result.resolvedAddress.flatMap(IPAddress.init)
        guard let path = await monitor.evaluatePath(NetworkPath(source), destination: destination, target: .default) else {
            return nil
        }
        result.interface = path.evaluation.interface ?? source.interfaceName
        result.interfaceKind = path.evaluation.interfaceKind?.rawValue
        return path
    }

    func stop() async { await monitor.stop() }
}
