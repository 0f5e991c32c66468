import Foundation

/// `fleet:` of a hub's configuration (`netvigil fleet serve`, docs/fleet.md): the fleet database it reads, and when
/// the fleet's agents together call an endpoint down or an agent silent.
///
/// ```yaml
/// fleet:
///   postgres: postgres://hub1@db.example.net/netvigil   # a member of netvigil_hub (netvigil fleet add-hub)
///   password_file: /etc/netvigil/hub.pass
///   tls: { mode: verify-full, ca: /etc/netvigil/fleet-ca.pem }
///   evaluate_every: 10s
///   consensus:
///     down_when: 2 of 3        # or 50%
///     silent_after: 3x         # 3 × each agent's own heartbeat (default), or a duration: 90s
///     behind_after: 5m
/// ```
public struct FleetHubSection: Sendable, Equatable {
    public static let key = "fleet"
    public static let allowedKeys = ["postgres", "password_file", "tls", "evaluate_every", "consensus"]
    static let consensusKeys = ["down_when", "silent_after", "behind_after"]

    /// Where to connect; the URL's user is the hub's login role.
    public var url: PostgresURL
    public var password: Secret?
    public var tlsMode: FleetTLSMode
    public var caFile: String?
    /// How often the hub reads the latest results and evaluates its alerts.
    public var evaluateEvery: Duration
    public var consensus: FleetConsensusSettings

    public init(url: PostgresURL, password: Secret? = nil, tlsMode: FleetTLSMode = .disable, caFile: String? = nil,
                evaluateEvery: Duration = .seconds(10), consensus: FleetConsensusSettings = FleetConsensusSettings()) {
        self.url = url
        self.password = password
        self.tlsMode = tlsMode
        self.caFile = caFile
        self.evaluateEvery = evaluateEvery
        self.consensus = consensus
    }

    init(reading mapping: ConfigMapping) throws {
        let connection = try FleetSection.readConnection(mapping)
        guard let user = connection.url.user, FleetSection.isValidAgentName(user) else {
            throw try mapping.required("postgres").error("name the hub's login role as the URL's user (postgres://HUB@HOST/DATABASE)")
        }
        var evaluateEvery = Duration.seconds(10)
        if let value = mapping["evaluate_every"] { evaluateEvery = try value.duration(minimum: .seconds(1)) }
        var consensus = FleetConsensusSettings()
        if let value = mapping["consensus"] {
            consensus = try FleetConsensusSettings(reading: value.mapping(allowedKeys: Self.consensusKeys))
        }
        self.init(url: connection.url, password: connection.password, tlsMode: connection.tlsMode,
                  caFile: connection.caFile, evaluateEvery: evaluateEvery, consensus: consensus)
    }
}

/// When the fleet's results add up to a verdict (`fleet.consensus`).
public struct FleetConsensusSettings: Sendable, Equatable {
    /// The share of the agents watching an endpoint that must see it down for `down`: `2 of 3` is 2/3, `50%` is 0.5.
    public var downShare: Double
    /// How it was written, for messages and the status document.
    public var downWhen: String
    /// An agent whose last heartbeat is older than this is silent, and its results are left out of every verdict.
    public var silentAfter: SilentAfter
    /// An agent whose shipping lag is over this is behind.
    public var behindAfter: Duration

    public init(downShare: Double = 0.5, downWhen: String = "50%", silentAfter: SilentAfter = .heartbeats(3),
                behindAfter: Duration = .seconds(300)) {
        self.downShare = downShare
        self.downWhen = downWhen
        self.silentAfter = silentAfter
        self.behindAfter = behindAfter
    }

    init(reading mapping: ConfigMapping) throws {
        self.init()
        if let value = mapping["down_when"] {
            let text = try value.nonEmptyString()
            guard let share = Self.share(text) else {
                throw value.error("expected \"K of N\" (1 ≤ K ≤ N, e.g. 2 of 3) or a percentage from 1% to 100% (e.g. 50%)")
            }
            downShare = share
            downWhen = text
        }
        if let value = mapping["silent_after"] {
            let text = try value.nonEmptyString()
            if text.hasSuffix("x") {
                guard let count = Double(text.dropLast()), count >= 1, count <= 1000 else {
                    throw value.error("expected a multiple of the agents' heartbeat from 1x to 1000x (e.g. 3x) or a duration (e.g. 90s)")
                }
                silentAfter = .heartbeats(count)
            } else {
                silentAfter = .duration(try value.duration(minimum: .seconds(1)))
            }
        }
        if let value = mapping["behind_after"] { behindAfter = try value.duration(minimum: .seconds(1)) }
    }

    /// `K of N` → K/N; `P%` → P/100; nil for anything else or a share outside (0, 1].
    public static func share(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasSuffix("%") {
            guard let percent = Double(trimmed.dropLast().trimmingCharacters(in: .whitespaces)), percent >= 1,
                  percent <= 100 else { return nil }
            return percent / 100
        }
        let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[1] == "of", let k = Int(parts[0]), let n = Int(parts[2]), k >= 1, k <= n else {
            return nil
        }
        return Double(k) / Double(n)
    }
}

extension FleetConsensusSettings {
    /// When an agent counts as silent.
    public enum SilentAfter: Sendable, Equatable, CustomStringConvertible {
        /// This many of the agent's own heartbeat intervals (each agent reports its `fleet.heartbeat`; 30 s for an
        /// agent that does not).
        case heartbeats(Double)
        /// A fixed time for every agent.
        case duration(Duration)

        /// The agent heartbeat assumed for agents that do not report theirs (the agent's default).
        public static let defaultHeartbeat = Duration.seconds(30)

        /// The silence after which an agent with heartbeat `heartbeat` (nil: not reported) is silent.
        public func limit(heartbeat: Duration?) -> Duration {
            switch self {
            case .heartbeats(let count): (heartbeat ?? Self.defaultHeartbeat) * count
            case .duration(let duration): duration
            }
        }

        /// As configured: `3x` or `90s`.
        public var description: String {
            switch self {
            case .heartbeats(let count): (count == count.rounded() ? String(Int(count)) : String(count)) + "x"
            case .duration(let duration): ConfigDuration.format(duration)
            }
        }
    }
}
