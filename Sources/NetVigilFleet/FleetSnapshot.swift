import NetVigilStore

/// What the hub reads from the fleet database for one evaluation: every agent, every agent's latest result per
/// target, and the key each endpoint was last agreed to serve. Plain values, so that the verdicts
/// (``FleetConsensus``) are decided without a database.
public struct FleetSnapshot: Sendable, Equatable {
    /// A row of `agents`.
    public struct Agent: Sendable, Equatable {
        public var agent: String
        public var version: String
        public var labels: [String: String]
        public var lastSeen: Timestamp
        public var shippingLagSeconds: Double
        /// The agent's heartbeat interval; nil for an agent that does not report it.
        public var heartbeat: Duration?

        public init(agent: String, version: String, labels: [String: String] = [:], lastSeen: Timestamp,
                    shippingLagSeconds: Double = 0, heartbeat: Duration? = nil) {
            self.agent = agent
            self.version = version
            self.labels = labels
            self.lastSeen = lastSeen
            self.shippingLagSeconds = shippingLagSeconds
            self.heartbeat = heartbeat
        }

        /// The agent's site: its `site` label, or the agent itself when it has none (then every agent is a site).
        public var site: String { labels["site"].flatMap { $0.isEmpty ? nil : $0 } ?? agent }
    }

    /// A row of `latest_results`.
    public struct Result: Sendable, Equatable {
        public var agent: String
        public var target: String
        /// The probed URL; nil for rows shipped before the fleet view (then the target's name stands for it).
        public var url: String?
        public var time: Timestamp
        /// `ok`, `failed` or `skipped`.
        public var outcome: String
        public var errorKind: String?
        public var httpStatus: Int?
        public var totalMilliseconds: Double?
        public var trustVerdict: String?
        public var pinVerdict: String?
        /// The served leaf's SPKI pin (`sha256/…`) and issuer; nil without a served chain.
        public var servedSPKI: String?
        public var servedIssuer: String?

        public init(agent: String, target: String, url: String?, time: Timestamp, outcome: String, errorKind: String? = nil,
                    httpStatus: Int? = nil, totalMilliseconds: Double? = nil, trustVerdict: String? = nil,
                    pinVerdict: String? = nil, servedSPKI: String? = nil, servedIssuer: String? = nil) {
            self.agent = agent
            self.target = target
            self.url = url
            self.time = time
            self.outcome = outcome
            self.errorKind = errorKind
            self.httpStatus = httpStatus
            self.totalMilliseconds = totalMilliseconds
            self.trustVerdict = trustVerdict
            self.pinVerdict = pinVerdict
            self.servedSPKI = servedSPKI
            self.servedIssuer = servedIssuer
        }
    }

    /// A row of `fleet_endpoint_keys`: the key every agent last agreed on.
    public struct AgreedKey: Sendable, Equatable {
        public var spki: String
        public var issuer: String?
        public var since: Timestamp

        public init(spki: String, issuer: String?, since: Timestamp) {
            self.spki = spki
            self.issuer = issuer
            self.since = since
        }
    }

    public var agents: [Agent]
    public var results: [Result]
    /// By endpoint.
    public var agreedKeys: [String: AgreedKey]
    /// The database's clock when it was read (agents' heartbeats are its `now()`, so silence is measured on it).
    public var time: Timestamp

    public init(agents: [Agent], results: [Result], agreedKeys: [String: AgreedKey] = [:], time: Timestamp) {
        self.agents = agents
        self.results = results
        self.agreedKeys = agreedKeys
        self.time = time
    }

    /// Each result's endpoint (``FleetConsensus/endpoint(of:)``), in `results` order. Each distinct URL is parsed once:
    /// a fleet has few URLs and many results.
    public func resultEndpoints() -> [String] {
        var byURL: [String: String] = [:]
        return results.map { result in
            guard let url = result.url else { return FleetConsensus.endpoint(of: result) }
            if let known = byURL[url] { return known }
            let endpoint = FleetConsensus.endpoint(of: result)
            byURL[url] = endpoint
            return endpoint
        }
    }
}
