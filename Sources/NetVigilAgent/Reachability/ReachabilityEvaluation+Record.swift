import NetVigilReachability
import NetVigilStore

extension ReachabilityEvaluation {
    /// The row stored in `reachability_events` for this evaluation.
    public var record: ReachabilityEventRecord {
        ReachabilityEventRecord(
            time: Timestamp(time), target: target.description, status: status.name, statusCode: status.rawValue,
            flags: Int64(flags.rawValue), flagNames: flags.names, interface: interface,
            interfaceKind: interfaceKind?.rawValue, gateway: gateway, source: source, family: family?.description)
    }
}
