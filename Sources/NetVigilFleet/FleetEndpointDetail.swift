import NetVigilAgent
import NetVigilStore

/// `GET /v1/fleet/endpoint?endpoint=URL`: one endpoint as every agent sees it, and its uptime per site
/// (deploy/schemas/fleet-endpoint.schema.json).
public struct FleetEndpointDetail: Sendable, Codable, Equatable {
    public var time: Timestamp
    public var status: FleetStatusReport.EndpointStatus
    /// Each agent's latest result, worst first (down, skipped, up), then by site and agent.
    public var results: [AgentResult]
    /// By site, sorted.
    public var uptime: [SiteUptime]

    public struct AgentResult: Sendable, Codable, Equatable {
        public var agent: String
        public var site: String
        public var target: String
        public var url: String?
        public var time: Timestamp
        public var outcome: String
        public var errorKind: String?
        public var httpStatus: Int?
        public var totalMilliseconds: Double?
        public var trustVerdict: String?
        public var pinVerdict: String?
        public var servedSPKI: String?
        public var servedIssuer: String?
        /// The agent is silent: this result is left out of the verdict.
        public var silent: Bool

        enum CodingKeys: String, CodingKey {
            case agent, site, target, url, time, outcome, silent
            case errorKind = "error_kind"
            case httpStatus = "http_status"
            case totalMilliseconds = "total_ms"
            case trustVerdict = "trust_verdict"
            case pinVerdict = "pin_verdict"
            case servedSPKI = "served_spki"
            case servedIssuer = "served_issuer"
        }
    }

    /// Results that were `ok` out of those not skipped, over a window.
    public struct Uptime: Sendable, Codable, Equatable {
        public var ok: Int
        public var total: Int
        /// `ok / total`; nil without results.
        public var ratio: Double?

        public init(ok: Int, total: Int) {
            self.ok = ok
            self.total = total
            ratio = total > 0 ? Double(ok) / Double(total) : nil
        }
    }

    public struct SiteUptime: Sendable, Codable, Equatable {
        public var site: String
        public var agents: [String]
        public var day: Uptime
        public var week: Uptime
    }
}
