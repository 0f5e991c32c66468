import Logging
import NetVigilAgent
import NetVigilConcurrency
import NetVigilStore
import PostgresNIO
import Synchronization

/// What a hub knows between evaluations, for its feed: the status report (brought up to date at most once a second), the
/// last evaluation's outcome, and the counters of `/metrics`.
public final class FleetHubState: Sendable {
    public struct Counters: Sendable, Equatable {
        public var evaluations = 0
        public var evaluationErrors = 0
        public var lastEvaluationSeconds = 0.0
        /// When the last evaluation succeeded; nil before the first.
        public var lastSuccess: ContinuousClock.Instant?
        public var lastError: String?
        /// Deliveries by sink and kind, and failed attempts by sink.
        public var sent: [String: [String: Int]] = [:]
        public var deliveryErrors: [String: Int] = [:]
        public var pendingNotices = 0
        /// Conditions true at the last evaluation, by kind.
        public var firing: [String: Int] = [:]
    }

    /// The newest snapshot, read by the evaluator or a route, and its report.
    private struct Cache {
        var snapshot: FleetSnapshot
        var report: FleetStatusReport
        var readAt: ContinuousClock.Instant
    }

    public let consensus: FleetConsensus
    public let evaluateEvery: Duration
    /// The fleet's latest results, read incrementally by the routes and the evaluator alike.
    public let mirror = FleetSnapshotMirror()
    private let client: PostgresClient?
    private let logger: Logger
    private let cache = Mutex<Cache?>(nil)
    private let readTurn = AsyncSemaphore(value: 1)
    private let counters = Mutex(Counters())

    /// - Parameter client: the pool the status is read through; nil serves only what ``publish(_:of:took:)`` gave (tests).
    public init(consensus: FleetConsensus, evaluateEvery: Duration, client: PostgresClient?, logger: Logger) {
        self.consensus = consensus
        self.evaluateEvery = evaluateEvery
        self.client = client
        self.logger = logger
    }

    /// The fleet's status: the last one read if it is under a second old, else brought up to date now from
    /// `latest_results` (the rows written since the last read).
    public func report() async throws -> FleetStatusReport {
        guard let client else {
            guard let report = lastReport else { throw FleetError(.server, "no fleet status evaluated yet") }
            return report
        }
        return try await read(client).report
    }

    /// The newest snapshot and its report if under a second old (the evaluator's or a route's), else read now and
    /// kept for the next second: the status, endpoint and export routes share it.
    private func read(_ client: PostgresClient) async throws -> (snapshot: FleetSnapshot, report: FleetStatusReport) {
        func fresh() -> (snapshot: FleetSnapshot, report: FleetStatusReport)? {
            guard let cached = cache.withLock({ $0 }), .now - cached.readAt < .seconds(1) else { return nil }
            return (cached.snapshot, cached.report)
        }
        if let cached = fresh() { return cached }
        // Requests that find the cache stale at once wait for one read and share it, instead of each reading and
        // deciding in turn (several people opening the page, a page's own parallel requests).
        try await readTurn.acquire()
        defer { readTurn.release() }
        if let cached = fresh() { return cached }
        let logger = FleetConnector.driverLogger(self.logger)
        let snapshot = try await client.withConnection { connection in
            try await mirror.refresh(on: connection, allowFullRead: false, logger: logger)
        }
        let report = consensus.evaluate(snapshot).report
        cache.withLock { $0 = Cache(snapshot: snapshot, report: report, readAt: .now) }
        return (snapshot, report)
    }

    /// One endpoint: each agent's latest result and the uptime per site over 24 hours and 7 days; nil when no
    /// agent has a result for it.
    public func endpointDetail(_ endpoint: String) async throws -> FleetEndpointDetail? {
        guard let client else { throw FleetError(.server, "no fleet database") }
        let logger = FleetConnector.driverLogger(self.logger)
        let (snapshot, report) = try await read(client)
        guard let status = report.endpoints.first(where: { $0.endpoint == endpoint }) else { return nil }
        return try await client.withConnection { connection in
            let agents = Dictionary(report.agents.map { ($0.agent, $0) }) { first, _ in first }
            let pairs = zip(snapshot.results, snapshot.resultEndpoints()).filter { $0.1 == endpoint }
                .map { (agent: $0.0.agent, target: $0.0.target) }
            let results = try await FleetHubDatabase.latestResults(of: pairs, on: connection, logger: logger)
            let (day, week) = try await FleetHubDatabase.uptime(of: pairs, on: connection, logger: logger)
            var rows = results.map { result in
                FleetEndpointDetail.AgentResult(
                    agent: result.agent, site: agents[result.agent]?.site ?? result.agent, target: result.target,
                    url: result.url, time: result.time, outcome: result.outcome, errorKind: result.errorKind,
                    httpStatus: result.httpStatus, totalMilliseconds: result.totalMilliseconds,
                    trustVerdict: result.trustVerdict, pinVerdict: result.pinVerdict, servedSPKI: result.servedSPKI,
                    servedIssuer: result.servedIssuer, silent: (agents[result.agent]?.state ?? .silent) == .silent)
            }
            func rank(_ row: FleetEndpointDetail.AgentResult) -> Int {
                row.silent ? 3 : row.outcome == "ok" ? 2 : row.outcome == "skipped" ? 1 : 0
            }
            rows.sort { (rank($0), $0.site, $0.agent) < (rank($1), $1.site, $1.agent) }
            let sites = Dictionary(grouping: rows, by: \.site)
            let uptime = sites.keys.sorted().map { site in
                let members = Set(sites[site]!.map(\.agent)).sorted()
                func total(_ window: [String: FleetEndpointDetail.Uptime]) -> FleetEndpointDetail.Uptime {
                    let parts = members.compactMap { window[$0] }
                    return FleetEndpointDetail.Uptime(ok: parts.reduce(0) { $0 + $1.ok }, total: parts.reduce(0) { $0 + $1.total })
                }
                return FleetEndpointDetail.SiteUptime(site: site, agents: members, day: total(day), week: total(week))
            }
            return FleetEndpointDetail(time: snapshot.time, status: status, results: rows, uptime: uptime)
        }
    }

    /// Streams the fleet export of `query` to `write`, a page at a time (each page one short statement); stops
    /// with an error past `deadline`. `write` gets the bytes of whole lines.
    public func export(_ query: FleetExportQuery, format: FleetExportFormat, version: String,
                       deadline: ContinuousClock.Instant, write: (String) async throws -> Void) async throws {
        guard let client else { throw FleetError(.server, "no fleet database") }
        let logger = FleetConnector.driverLogger(self.logger)
        var pairs: [(agent: String, target: String)]?
        if let endpoint = query.endpoint {
            let snapshot = try await read(client).snapshot
            pairs = zip(snapshot.results, snapshot.resultEndpoints()).filter { $0.1 == endpoint }.map { ($0.0.agent, $0.0.target) }
        }
        let header = query.headerFields(version: version, exportedAt: .now())
        try await write(format == .ndjson ? "{\"type\":\"header\",\(header)}\n" : "{\(header),\"probes\":[")
        var cursor: FleetExportQuery.Cursor?
        var first = true
        repeat {
            guard ContinuousClock.now < deadline else { throw FleetError(.server, "the export ran past its time limit") }
            let page = try await client.withConnection { connection in
                try await query.page(after: cursor, pairs: pairs, on: connection, logger: logger)
            }
            if !page.lines.isEmpty {
                switch format {
                case .ndjson:
                    try await write(page.lines.joined(separator: "\n") + "\n")
                case .json:
                    try await write((first ? "" : ",") + page.lines.joined(separator: ","))
                }
                first = false
            }
            cursor = page.next
        } while cursor != nil
        if format == .json { try await write("]}\n") }
    }

    /// The evaluator's result and the snapshot it came from: cached for the routes, its conditions the `firing`
    /// counts.
    public func publish(_ evaluation: FleetConsensus.Evaluation, of snapshot: FleetSnapshot, took seconds: Double) {
        cache.withLock { $0 = Cache(snapshot: snapshot, report: evaluation.report, readAt: .now) }
        counters.withLock {
            $0.evaluations += 1
            $0.lastEvaluationSeconds = seconds
            $0.lastSuccess = .now
            $0.lastError = nil
            $0.firing = Dictionary(grouping: evaluation.conditions, by: \.kind.rawValue).mapValues(\.count)
        }
    }

    public func evaluationFailed(_ message: String) {
        counters.withLock {
            $0.evaluationErrors += 1
            $0.lastError = message
        }
    }

    public func delivered(sink: String, kind: String) {
        counters.withLock { $0.sent[sink, default: [:]][kind, default: 0] += 1 }
    }

    public func deliveryFailed(sink: String) {
        counters.withLock { $0.deliveryErrors[sink, default: 0] += 1 }
    }

    public func setPending(_ count: Int) {
        counters.withLock { $0.pendingNotices = count }
    }

    public var snapshotOfCounters: Counters { counters.withLock { $0 } }

    /// The last report, however old (for `/metrics`: no database round trip per scrape).
    public var lastReport: FleetStatusReport? { cache.withLock { $0?.report } }

    /// Why the hub is unhealthy, or nil: no successful evaluation within three intervals (30 s at least).
    public func healthProblem(now: ContinuousClock.Instant = .now) -> String? {
        let counters = self.counters.withLock { $0 }
        let limit = max(evaluateEvery * 3, .seconds(30))
        guard let last = counters.lastSuccess else {
            return counters.lastError.map { "no evaluation has succeeded yet: \($0)" }
        }
        guard now - last > limit else { return nil }
        return "no successful evaluation for \(Int((now - last).components.seconds)) s\(counters.lastError.map { ": \($0)" } ?? "")"
    }
}
