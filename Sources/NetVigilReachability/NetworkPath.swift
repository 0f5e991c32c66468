/// A network path a probe is pinned to: the interface its socket is bound to, or the local address it connects
/// from (the interface holding that address carries it).
public enum NetworkPath: Hashable, Sendable, CustomStringConvertible {
    case interface(String)
    case source(IPAddress)

    /// `interface wwan0` / `source 192.0.2.7`.
    public var description: String {
        switch self {
        case .interface(let name): "interface \(name)"
        case .source(let address): "source \(address)"
        }
    }
}

/// The reachability of one network path towards a destination, and in words why it cannot carry a probe.
public struct PathEvaluation: Sendable, Equatable {
    /// AFNetworking's status and flags of the path; `interface`/`interfaceKind` name the path's interface when it
    /// exists.
    public var evaluation: ReachabilityEvaluation
    /// Why the path is NotReachable (`interface wwan0 is down`, `no route to 192.0.2.1 through eth1`, ...); nil when
    /// it is reachable.
    public var problem: String?

    public init(evaluation: ReachabilityEvaluation, problem: String?) {
        self.evaluation = evaluation
        self.problem = problem
    }
}
