import NetVigilProber
import NetVigilReachability

extension NetworkPath {
    /// The reachability module's name for a probe source: the interface it is bound to, or the local address it
    /// connects from (the interface holding that address carries it).
    public init(_ source: ProbeSource) {
        switch source {
        case .interface(let name): self = .interface(name)
        case .address(let text): self = IPAddress(text).map(NetworkPath.source) ?? .interface(text)
        }
    }
}
