import NetVigilProber
import NetVigilReachability
import NetVigilStore

extension ProbePipeline {
    /// One `addresses: all` tick: every address probed at once, a row each. When a failure may be the network
    /// going away and the host is no longer reachable, the tick is one skipped row instead (as for one address).
    func probeEachAddress(_ target: ProbeTarget, evaluation: ReachabilityEvaluation?) async -> AddressResults {
        let results = await prober.probeEachAddress(target.request, configuration: target.configuration)
        if results.contains(where: { $0.error?.kind.mayBeNetworkLoss == true }),
           let after = await hostReachability(target, refreshed: true), after.status == .notReachable {
            return AddressResults([Self.skipped(target, evaluation: after, failure: results.compactMap(\.error).first)])
        }
        return AddressResults(results.map { result in
            if let error = result.error, error.kind == .resourceExhausted {
                metrics?.resourceExhausted()
                var row = Self.agentFailure(target, error: error, reachability: evaluation)
                row.resolvedAddress = result.resolvedAddress
                return row
            }
            return result.record(target: target.name, reachabilityStatus: evaluation?.status.name)
        })
    }
}
