import NetVigilStore

/// `GET /v1/fleet/status`: every agent and every endpoint as the fleet sees it (docs/fleet.md,
/// deploy/schemas/fleet-status.schema.json).
public struct FleetStatusReport: Sendable, Codable, Equatable {
    /// When the snapshot was read (the database's clock).
    public var time: Timestamp
    public var consensus: Consensus
    public var summary: Summary
    /// Worst first (silent, behind, then healthy), then by site and name.
    public var agents: [AgentStatus]
    /// Worst first (down, partial, unknown, up), then by endpoint.
    public var endpoints: [EndpointStatus]

    public struct Consensus: Sendable, Codable, Equatable {
        public var downWhen: String
        /// As configured: `3x` (of each agent's heartbeat) or a duration such as `90s`.
        public var silentAfter: String
        public var behindAfterSeconds: Double

        enum CodingKeys: String, CodingKey {
            case downWhen = "down_when"
            case silentAfter = "silent_after"
            case behindAfterSeconds = "behind_after_seconds"
        }
    }

    public struct Summary: Sendable, Codable, Equatable {
        public var agents = 0
        public var healthy = 0
        public var silent = 0
        public var behind = 0
        public var endpoints = 0
        public var up = 0
        public var partial = 0
        public var down = 0
        public var unknown = 0
        /// Key groups judged an interception.
        public var interceptions = 0
    }

    public enum AgentState: String, Sendable, Codable, Comparable {
        case silent, behind, ok

        var rank: Int {
            switch self {
            case .silent: 0
            case .behind: 1
            case .ok: 2
            }
        }

        public static func < (lhs: AgentState, rhs: AgentState) -> Bool { lhs.rank < rhs.rank }
    }

    public struct AgentStatus: Sendable, Codable, Equatable {
        public var agent: String
        public var site: String
        public var labels: [String: String]
        public var version: String
        public var lastSeen: Timestamp
        public var shippingLagSeconds: Double
        public var state: AgentState
        public var healthy: Bool
        /// Endpoints this agent has a latest result for, and how many of them it sees down.
        public var endpoints: Int
        public var down: Int

        enum CodingKeys: String, CodingKey {
            case agent, site, labels, version, state, healthy, endpoints, down
            case lastSeen = "last_seen"
            case shippingLagSeconds = "shipping_lag_seconds"
        }
    }

    public enum Verdict: String, Sendable, Codable, Comparable, CaseIterable {
        case down, partial, unknown, up

        var rank: Int {
            switch self {
            case .down: 0
            case .partial: 1
            case .unknown: 2
            case .up: 3
            }
        }

        public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }
    }

    /// What the served keys' pin verdicts say, over the agents of one key group.
    public enum PinAgreement: String, Sendable, Codable {
        /// Every agent's configured pins matched.
        case matched
        /// No configured pin matched (for every agent of the group that pins).
        case mismatch
        /// No agent of the group pins this endpoint.
        case notPinned = "not_pinned"
        /// The chain failed before the pins were looked at (an untrusted issuer, say), for every agent that pins.
        case notEvaluated = "not_evaluated"
        /// The agents disagree (some match, some do not, or pins are expired or not evaluated).
        case mixed
    }

    /// One served leaf key and who is served it.
    public struct KeyGroup: Sendable, Codable, Equatable {
        public var spki: String
        /// The leaf's issuers as the agents saw them (one, unless the server has several certificates for one key).
        public var issuers: [String]
        public var agents: [String]
        public var sites: [String]
        public var pins: PinAgreement
        /// The group seen by the most sites (ties: by the most agents; then the lowest key).
        public var majority: Bool
        /// Judged a path interception: see ``FleetConsensus``.
        public var interception: Bool
    }

    public struct EndpointStatus: Sendable, Codable, Equatable {
        public var endpoint: String
        public var verdict: Verdict
        /// Agent names by their latest result (silent agents' results are left out and listed in `silent`).
        public var up: [String]
        public var down: [String]
        public var skipped: [String]
        public var silent: [String]
        /// Sites with an agent that sees the endpoint down.
        public var downSites: [String]
        /// Largest first.
        public var keys: [KeyGroup]
        /// The key every agent last agreed on, and since when; nil before they ever agreed.
        public var agreedKey: String?
        public var agreedSince: Timestamp?

        enum CodingKeys: String, CodingKey {
            case endpoint, verdict, up, down, skipped, silent, keys
            case downSites = "down_sites"
            case agreedKey = "agreed_key"
            case agreedSince = "agreed_since"
        }
    }
}
