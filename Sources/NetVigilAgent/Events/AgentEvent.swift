import NetVigilStore

/// Something the daemon observed, as the feed's event stream (`/v1/events`) carries it.
public enum AgentEvent: Sendable, Equatable {
    /// A reachability target changed status or flags.
    case reachability(ReachabilityEventRecord)
    /// A probe finished (or was skipped).
    case probe(ProbeRecord)
    /// An alert started firing, was reminded of, or resolved.
    case alert(AlertEvent)

    /// The SSE `event:` name.
    public var name: String {
        switch self {
        case .reachability: "reachability"
        case .probe: "probe"
        case .alert: "alert"
        }
    }
}

/// An alert state change of one (target, rule) pair.
public struct AlertEvent: Sendable, Codable, Equatable {
    /// `firing` or `resolved`.
    public enum State: String, Sendable, Codable {
        case firing, resolved
    }

    /// Rule kind (`AlertRuleKind`), e.g. `pin_mismatch`, `cert_expiring`, `key_changed`.
    public var kind: String
    public var state: State
    public var target: String
    public var time: Timestamp
    /// One line for people.
    public var message: String
    /// True for a reminder of an alert that keeps firing.
    public var reminder: Bool

    public init(kind: String, state: State, target: String, time: Timestamp, message: String, reminder: Bool = false) {
        self.kind = kind
        self.state = state
        self.target = target
        self.time = time
        self.message = message
        self.reminder = reminder
    }
}
