import Foundation
import Logging
import NetVigilAgent
import NetVigilConcurrency
import PostgresNIO
import ServiceLifecycle

/// The hub's evaluation loop (`netvigil fleet serve`, issue #54): every `evaluate_every`, in one transaction under
/// ``FleetHubDatabase/evaluationLock``, it reads the fleet, decides the verdicts (``FleetConsensus``), compares the
/// conditions with the stored alerts (``FleetAlertPlan``) and writes the changes and their notices. Hubs running at
/// once take turns: each sees what the previous one committed, so each notice is written once.
public final class FleetHubEvaluator: Service, Sendable {
    private let client: PostgresClient
    private let state: FleetHubState
    private let sinks: @Sendable () -> AlertsSection
    private let sender: FleetNoticeSender?
    private let hub: String
    private let logger: Logger

    /// - Parameters:
    ///   - sinks: the configured sinks (read at each evaluation).
    ///   - sender: woken after notices are written.
    ///   - hub: this hub's name in payloads (its host name).
    public init(client: PostgresClient, state: FleetHubState, sinks: @escaping @Sendable () -> AlertsSection,
                sender: FleetNoticeSender?, hub: String = AlertmanagerAlert.hostName, logger: Logger) {
        self.client = client
        self.state = state
        self.sinks = sinks
        self.sender = sender
        self.hub = hub
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var failing: String?
            while !Task.isCancelled {
                let started = ContinuousClock.now
                do {
                    let plan = try await self.evaluateOnce()
                    if failing != nil { self.logger.info("fleet evaluation resumed") }
                    failing = nil
                    if !plan.notices.isEmpty { self.sender?.wake() }
                } catch {
                    if Task.isCancelled { break }
                    let message = FleetError.classify(error).message
                    self.state.evaluationFailed(message)
                    if failing != message {
                        self.logger.error("fleet evaluation failed: \(message); retried every \(ConfigDuration.format(self.state.evaluateEvery))")
                    }
                    failing = message
                }
                try? await Task.sleep(until: started + self.state.evaluateEvery)
            }
        }
    }

    /// One evaluation, committed; returns what it changed.
    @discardableResult
    public func evaluateOnce() async throws -> FleetAlertPlan {
        let started = ContinuousClock.now
        let configuration = sinks()
        let sinkNames = configuration.sinks.map(\.name)
        let resend = configuration.sinks.compactMap { sink in sink.alertmanagerResendInterval.map { (name: sink.name, interval: $0) } }
        let consensus = state.consensus
        let state = self.state
        let hub = self.hub
        let driver = FleetConnector.driverLogger(logger)
        let (snapshot, evaluation, plan) = try await client.withTransaction(logger: driver) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(FleetHubDatabase.evaluationLock))", logger: driver)
            let snapshot = try await state.mirror.refresh(on: connection, allowFullRead: true, logger: driver)
            let evaluation = consensus.evaluate(snapshot)
            let stored = try await FleetHubDatabase.storedAlerts(on: connection, logger: driver)
            let plan = FleetAlertPlan(stored: stored, conditions: evaluation.conditions, now: snapshot.time,
                                      sinks: sinkNames, resendSinks: resend, hub: hub)
            try await FleetHubDatabase.apply(plan, agreedKeys: evaluation.newAgreedKeys, on: connection, logger: driver)
            return (snapshot, evaluation, plan)
        }
        let elapsed = ContinuousClock.now - started
        state.publish(evaluation, of: snapshot, took: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        for alert in plan.fire {
            logger.warning("fleet alert firing: \(alert.payload.message)", metadata: ["kind": "\(alert.kind.rawValue)", "subject": "\(alert.subject)"])
        }
        for alert in plan.resolve {
            logger.info("fleet alert resolved: \(alert.payload.message)", metadata: ["kind": "\(alert.kind.rawValue)", "subject": "\(alert.subject)"])
        }
        return plan
    }
}
