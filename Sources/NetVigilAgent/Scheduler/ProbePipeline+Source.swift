import Foundation
import NetVigilProber
import NetVigilReachability
import NetVigilStore

extension ProbePipeline {
    /// One tick of a `source:` target: every path checked and probed at once, a row per path (or per address of
    /// the path with `addresses: all`), in the configured order. A path the reachability check finds NotReachable
    /// (its interface down, without carrier, route or address) is one skipped row naming the path and why; the
    /// other paths are probed as usual. Each row records its path's interface, kind and AFNetworking status.
    func probeEachPath(_ target: ProbeTarget, hostEvaluation: ReachabilityEvaluation?) async -> AddressResults {
        let destination = Self.pathDestination(target, hostEvaluation: hostEvaluation)
        return await withTaskGroup(of: (Int, [ProbeRecord]).self) { group in
            for (index, source) in target.sources.enumerated() {
                group.addTask { (index, await self.probePath(target, source: source, destination: destination)) }
            }
            var rows: [(Int, [ProbeRecord])] = []
            for await entry in group { rows.append(entry) }
            return AddressResults(rows.sorted { $0.0 < $1.0 }.flatMap(\.1))
        }
    }

    /// The rows of one path: skipped when the path is NotReachable before the probe, or after a failure that may be
    /// the path going away.
    func probePath(_ target: ProbeTarget, source: ProbeSource, destination: IPAddress?) async -> [ProbeRecord] {
        let path = NetworkPath(source)
        let before = await pathReachability(target, path: path, destination: destination)
        if let before, before.evaluation.status == .notReachable {
            return [Self.skipped(target, source: source, path: before)]
        }
        var configuration = target.configuration
        configuration.source = source
        let results = target.probesEachAddress
            ? await prober.probeEachAddress(target.request, configuration: configuration)
            : [await prober.probe(target.request, configuration: configuration)]
        if let failure = results.compactMap(\.error).first(where: \.kind.mayBeNetworkLoss),
           let after = await pathReachability(target, path: path, destination: destination, refreshed: true),
           after.evaluation.status == .notReachable {
            return [Self.skipped(target, source: source, path: after, failure: failure)]
        }
        return results.map { result in
            var row: ProbeRecord
            if let error = result.error, error.kind == .resourceExhausted {
                metrics?.resourceExhausted()
                row = Self.agentFailure(target, error: error, reachability: before?.evaluation)
                row.resolvedAddress = result.resolvedAddress
            } else {
                row = result.record(target: target.name, reachabilityStatus: before?.evaluation.status.name)
            }
            row.interface = before?.evaluation.interface ?? source.interfaceName
            row.interfaceKind = before?.evaluation.interfaceKind?.rawValue
            return row
        }
    }

    /// The path's evaluation towards `destination`; nil without a monitor (or before it runs).
    func pathReachability(_ target: ProbeTarget, path: NetworkPath, destination: IPAddress?,
                          refreshed: Bool = false) async -> PathEvaluation? {
        guard let reachability else { return nil }
        return await reachability.evaluatePath(path, destination: destination, target: target.reachabilityTarget ?? .default,
                                               refreshed: refreshed)
    }

    /// The address the paths are judged towards: the host evaluation's chosen address (or the target's literal /
    /// first `connect_to` address); nil when none is known yet.
    static func pathDestination(_ target: ProbeTarget, hostEvaluation: ReachabilityEvaluation?) -> IPAddress? {
        let destination = hostEvaluation?.address.flatMap(IPAddress.init) ?? target.reachabilityTarget?.ipAddress
        // A source address reaches only its own family (the target resolves only that family).
        if let destination, let isIPv6 = target.sources.first?.isIPv6, (destination.family == .ipv6) != isIPv6 { return nil }
        return destination
    }

    /// A skipped row of one path, naming the path and what stops it; `failure`: the error of a probe that ran while
    /// the path went away. Its address is the one the path was judged towards (so "ADDR via IFACE" names the same
    /// row as the path's probed rows); nil when none is known.
    static func skipped(_ target: ProbeTarget, source: ProbeSource, path: PathEvaluation, failure: ProbeError? = nil,
                        now: Timestamp = .now()) -> ProbeRecord {
        let name = path.evaluation.interface ?? source.interfaceName ?? source.description
        let state = "path via \(name) is NotReachable (\(path.problem ?? "flags: none"))"
        var row = ProbeRecord(
            time: now, target: target.name, url: target.url, outcome: .skipped,
            errorMessage: failure.map { "probe failed as the path went away (\($0)); \(state)" } ?? "not probed: \(state)",
            reachabilityStatus: path.evaluation.status.name,
            detailsJSON: "{\"reachability\":\(path.evaluation.jsonLine())}")
        row.resolvedAddress = path.evaluation.address
        row.interface = path.evaluation.interface ?? source.interfaceName
        row.interfaceKind = path.evaluation.interfaceKind?.rawValue
        return row
    }
}
