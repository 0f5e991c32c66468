import Foundation
import Logging
import NetVigilAgent
import NetVigilConcurrency
import NetVigilProber
import NetVigilStore
import PostgresNIO
import ServiceLifecycle

/// Delivers the fleet's alert outbox (`fleet_alert_outbox`) to the hub's sinks: due rows are locked with
/// `FOR UPDATE SKIP LOCKED`, delivered, and marked in the same transaction, so two hubs never take one row and a
/// hub that dies mid-delivery leaves it to the other (at least once). A hub that hangs instead (a frozen process, a
/// paused VM, a host gone from the network: its connection stays open) holds its rows no longer than
/// `lockBound`: PostgreSQL ends a session idle in a transaction beyond it (`idle_in_transaction_session_timeout`,
/// set for the delivery transaction only), which rolls back and releases them. Failures back off as the agent's do
/// (`alerts.retry`), forever.
public final class FleetNoticeSender: Service, Sendable {
    private let client: PostgresClient
    private let state: FleetHubState
    private let configuration: @Sendable () -> AlertsSection
    private let prober: Prober
    private let logger: Logger
    private let waker = Waker()
    private let trustRoots = SystemTrustRoots()
    private let batchSize: Int

    public init(client: PostgresClient, state: FleetHubState, configuration: @escaping @Sendable () -> AlertsSection,
                prober: Prober = Prober(), batchSize: Int = 16, logger: Logger) {
        self.client = client
        self.state = state
        self.configuration = configuration
        self.prober = prober
        self.batchSize = max(1, batchSize)
        self.logger = logger
    }

    /// Starts a pass now (after notices were written).
    public func wake() { waker.wake() }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var failing: String?
            while !Task.isCancelled {
                do {
                    while try await self.deliverDue() > 0, !Task.isCancelled {}
                    let pending = try await self.client.withConnection { connection in
                        try await FleetHubDatabase.pendingCount(on: connection, logger: FleetConnector.driverLogger(self.logger))
                    }
                    self.state.setPending(pending)
                    failing = nil
                } catch {
                    if Task.isCancelled { break }
                    let message = FleetError.classify(error).message
                    if failing != message { self.logger.error("fleet alert outbox cannot be read: \(message); retried") }
                    failing = message
                }
                _ = await self.waker.sleep(until: .now + .seconds(1))
            }
        }
    }

    /// How long a delivery transaction may stay idle (waiting for one sink) before PostgreSQL ends its session: the
    /// longest sink timeout and 10 s more, so a delivery within its timeout is never cut.
    static func lockBound(sinks: [AlertSink]) -> Duration {
        (sinks.map(\.timeout).max() ?? .seconds(10)) + .seconds(10)
    }

    /// Delivers one batch of due rows; returns how many it took.
    @discardableResult
    public func deliverDue() async throws -> Int {
        let settings = configuration()
        let sinks = Dictionary(settings.sinks.map { ($0.name, $0) }) { first, _ in first }
        let driver = FleetConnector.driverLogger(logger)
        let batchSize = self.batchSize
        let lockBound = "\(Self.lockBound(sinks: settings.sinks).inMilliseconds)"
        return try await client.withTransaction(logger: driver) { connection in
            try await connection.query("SELECT set_config('idle_in_transaction_session_timeout', \(lockBound), true)",
                                       logger: driver)
            let rows = try await FleetHubDatabase.lockDueNotices(limit: batchSize, on: connection, logger: driver)
            for row in rows {
                do throws(AlertDeliveryError) {
                    guard let sink = sinks[row.sink] else {
                        throw AlertDeliveryError("sink \"\(row.sink)\" is not configured (removed from alerts.sinks?); kept pending")
                    }
                    try await sink.deliver(Self.notice(for: row), prober: self.prober, systemTrustStore: self.trustRoots.trustStore)
                    try? await FleetHubDatabase.markDelivered(row.id, on: connection, logger: driver)
                    self.state.delivered(sink: row.sink, kind: row.payload.kind)
                    self.logger.info("fleet alert delivered", metadata: [
                        "sink": "\(row.sink)", "kind": "\(row.payload.kind)", "target": "\(row.payload.target)",
                        "state": "\(row.payload.state.rawValue)", "idempotency_key": "\(row.payload.idempotencyKey)"])
                } catch {
                    let delay = sinks[row.sink] == nil ? settings.retry.max : settings.retry.delay(afterAttempts: row.attempts + 1)
                    try await FleetHubDatabase.scheduleRetry(row.id, after: delay, error: error.message, on: connection, logger: driver)
                    self.state.deliveryFailed(sink: row.sink)
                    self.logger.error("fleet alert delivery failed; will retry", metadata: [
                        "sink": "\(row.sink)", "kind": "\(row.payload.kind)", "error": "\(error.message)",
                        "retry_in": "\(ConfigDuration.format(delay))"])
                }
            }
            return rows.count
        }
    }

    /// The sinks' form of an outbox row.
    static func notice(for row: FleetHubDatabase.OutboxRow) -> AlertNotice {
        let payload = row.payload
        let json = (try? payload.jsonText()) ?? "{}"
        let record = AlertRecord(time: payload.time, kind: payload.kind, target: payload.target, sink: row.sink,
                                 payloadJSON: json, nextAttemptAt: payload.time, idempotencyKey: payload.idempotencyKey)
        var labels = [
            "alertname": "NetvigilFleet" + payload.kind.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(),
            "severity": payload.severity == .page ? "critical" : "info",
            "instance": payload.hub,
        ]
        if payload.url.isEmpty { labels["agent"] = payload.target } else { labels["endpoint"] = payload.url }
        if let spki = payload.spki { labels["spki"] = spki }
        var annotations = ["summary": payload.message, "sites": payload.sites.joined(separator: ", "),
                           "agents": payload.agents.joined(separator: ", ")]
        if let issuer = payload.issuer { annotations["issuer"] = issuer }
        return AlertNotice(record: record, labels: labels, annotations: annotations, firing: payload.state == .firing,
                           startsAt: payload.since ?? payload.time)
    }
}
