/// A fleet alert that should fire now: what ``FleetConsensus`` finds, what ``FleetAlertPlan`` turns into notices.
public struct FleetCondition: Sendable, Equatable, Hashable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// Down from enough of the agents watching it (`consensus.down_when`).
        case endpointDown = "endpoint_down"
        /// A minority of sites is served a key the others are not.
        case pathInterception = "path_interception"
        /// Every agent sees one new key (a rotation).
        case serverKeyChanged = "server_key_changed"
        /// No heartbeat for `consensus.silent_after`.
        case agentSilent = "agent_silent"
        /// Shipping lag over `consensus.behind_after`.
        case agentBehind = "agent_behind"
    }

    public enum Severity: String, Sendable, Codable {
        /// Someone is paged.
        case page
        /// Shown and sent, nobody needs to act.
        case info
    }

    public var kind: Kind
    /// The endpoint (`endpoint_*`, `path_interception`, `server_key_changed`) or the agent (`agent_*`).
    public var subject: String
    /// Tells two conditions of one kind and subject apart: the intercepting or new key; empty otherwise.
    public var detail: String
    public var severity: Severity
    /// One line for people.
    public var message: String
    public var sites: [String]
    public var agents: [String]
    /// The served key and its issuer, for the key conditions.
    public var spki: String?
    public var issuer: String?

    public init(kind: Kind, subject: String, detail: String = "", severity: Severity = .page, message: String,
                sites: [String] = [], agents: [String] = [], spki: String? = nil, issuer: String? = nil) {
        self.kind = kind
        self.subject = subject
        self.detail = detail
        self.severity = severity
        self.message = message
        self.sites = sites
        self.agents = agents
        self.spki = spki
        self.issuer = issuer
    }

    /// The alert's identity in `fleet_alerts`: kind, subject and detail.
    public var key: String { [kind.rawValue, subject, detail].joined(separator: "|") }

    /// Whether the condition ends by itself after it was sent (a rotation is news, not a state).
    public var isEvent: Bool { kind == .serverKeyChanged }
}
