import Foundation
import Logging
import NetVigilStore
import Synchronization

/// Turns probe results into alerts: one state machine per (target, rule).
///
/// The scheduler calls `evaluate` after every probe and writes the returned rows in the same `WriteBatch` as the
/// probe record, so an alert and its cause commit together; the engine itself never writes. Thread-safe.
public final class AlertEngine: Sendable {
    private struct Key: Hashable {
        var target: String
        var kind: AlertRuleKind
    }

    private struct State {
        var rules: AlertRules
        var machines: [Key: AlertRuleState] = [:]
    }

    private let state: Mutex<State>
    private let logger: Logger

    /// An engine applying `rules`; alerts are logged at critical level to `logger`.
    public init(rules: AlertRules, logger: Logger) {
        state = Mutex(State(rules: rules))
        self.logger = logger
    }

    /// The rules in force.
    public var rules: AlertRules { state.withLock { $0.rules } }

    /// Applies new rules (configuration reload). States of rules turned off are dropped; others are kept.
    public func update(rules: AlertRules) {
        state.withLock { state in
            state.rules = rules
            state.machines = state.machines.filter { rules[$0.key.kind].enabled }
        }
    }

    /// Drops every state of `target` (removed or redefined on reload).
    public func forget(target: String) {
        state.withLock { state in
            state.machines = state.machines.filter { $0.key.target != target }
        }
    }

    /// Alerts firing now, by target and kind.
    public func firing() -> [FiringAlert] {
        state.withLock { state in
            state.machines.compactMap { key, machine in
                guard machine.isFiring, let since = machine.since else { return nil }
                return FiringAlert(target: key.target, kind: key.kind.rawValue, since: since, message: machine.message)
            }
        }.sorted { ($0.target, $0.kind) < ($1.target, $1.kind) }
    }

    /// Alerts firing now for one target.
    public func firing(target: String) -> [FiringAlert] {
        firing().filter { $0.target == target }
    }

    /// Restores firing alerts from the outbox: where the newest row of a (target, kind) is `firing`, the pair starts
    /// as firing, so a restarted daemon neither pages again nor forgets to resolve. Returns how many were restored.
    @discardableResult
    public func restore(from store: Store) async throws -> Int {
        restore(try await store.latestAlerts())
    }

    /// Restores from rows read with `Store.latestAlerts()`.
    @discardableResult
    public func restore(_ latest: [Store.LatestAlert]) -> Int {
        state.withLock { state in
            var restored = 0
            for row in latest where row.state == AlertEvent.State.firing.rawValue {
                guard let kind = AlertRuleKind(rawValue: row.kind), state.rules[kind].enabled else { continue }
                state.machines[Key(target: row.target, kind: kind)] = AlertRuleState(
                    firingSince: row.since ?? row.time, lastSent: row.time, message: row.message,
                    threshold: state.rules[kind].threshold)
                restored += 1
            }
            return restored
        }
    }

    /// Feeds one probe result of `context.target` through every enabled rule.
    /// - Returns: outbox rows (one per alert and sink, pending, due `now`) and feed events.
    public func evaluate(_ record: ProbeRecord, context: AlertContext, now: Timestamp) -> AlertDecision {
        let steps: [(kind: AlertRuleKind, rule: AlertRule, notification: AlertRuleState.Notification, since: Timestamp?)] =
            state.withLock { state in
                var steps: [(AlertRuleKind, AlertRule, AlertRuleState.Notification, Timestamp?)] = []
                // One cause, one page: a failure that an enabled, inhibiting rule explains is not counted as down.
                let cause = AlertObservation.failureCause(record, context: context, now: now)
                let inhibited = cause.map { state.rules[$0].enabled && state.rules[$0].inhibit } ?? false
                for kind in state.rules.enabledKinds {
                    let rule = state.rules[kind]
                    if kind == .targetDown && inhibited { continue }
                    let observation = AlertObservation.judge(record, kind: kind, rule: rule, context: context, now: now)
                    if observation == .neutral { continue }
                    let key = Key(target: context.target, kind: kind)
                    var machine = state.machines[key] ?? AlertRuleState()
                    let since = machine.since
                    if let notification = machine.step(observation, rule: rule, now: now) {
                        steps.append((kind, rule, notification, machine.since ?? since))
                    }
                    state.machines[key] = machine
                }
                return steps
            }
        guard !steps.isEmpty else { return AlertDecision() }

        var decision = AlertDecision()
        let report = PinValidationReport(record: record, context: context)
        var sinks: [String] = []
        for sink in context.sinks where !sinks.contains(sink) { sinks.append(sink) }
        for step in steps {
            let (alertState, message, reminder): (AlertEvent.State, String, Bool)
            switch step.notification {
            case .firing(let text):
                (alertState, message, reminder) = (.firing, text, false)
            case .stillFiring(let text, let isReminder):
                (alertState, message, reminder) = (.firing, text, isReminder)
            case .resolved(let previous):
                (alertState, message, reminder) = (.resolved, "\(step.kind.title) resolved for \(context.target) (was: \(previous))", false)
            }
            decision.events.append(AlertEvent(kind: step.kind.rawValue, state: alertState, target: context.target,
                                              time: now, message: message, reminder: reminder))
            logger.critical("alert \(alertState.rawValue)\(reminder ? " (reminder)" : ""): \(context.target) \(step.kind.rawValue): \(message)",
                            metadata: ["target": "\(context.target)", "kind": "\(step.kind.rawValue)",
                                       "state": "\(alertState.rawValue)", "reminder": "\(reminder)"])
            if alertState == .resolved && !step.rule.sendResolved { continue }
            let alertID = UUID().uuidString.lowercased()
            for sink in sinks {
                let key = "\(alertID):\(sink)"
                let payload = AlertPayload(kind: step.kind.rawValue, state: alertState, target: context.target, url: context.url,
                                           time: now, idempotencyKey: key, message: message, reminder: reminder,
                                           since: alertState == .firing ? step.since : nil, report: report,
                                           labels: context.labels, endpoint: context.endpoint)
                let json: String
                do {
                    json = try payload.jsonText()
                } catch {
                    // Encoding plain strings and numbers cannot fail; keep the alert rather than drop it.
                    json = "{\"kind\":\"\(step.kind.rawValue)\",\"state\":\"\(alertState.rawValue)\",\"idempotency_key\":\"\(key)\"}"
                }
                decision.rows.append(AlertRecord(time: now, kind: step.kind.rawValue, target: context.target, sink: sink,
                                                 payloadJSON: json, state: .pending, attempts: 0, nextAttemptAt: now,
                                                 idempotencyKey: key))
            }
        }
        return decision
    }
}
