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
        /// Each target's own rule settings (`targets[].rules`), as last seen or restored.
        var overrides: [String: AlertRuleOverrides] = [:]
        /// Each target's last served leaf key (`key_changed`); kept when a target is forgotten, as it is per endpoint.
        var leafKeys: [String: LeafKey] = [:]
        /// Targets removed by a reload whose alerts were resolved: a probe of theirs still in flight raises nothing.
        var removed: Set<String> = []

        /// The settings of `kind` for `target`.
        func rule(_ kind: AlertRuleKind, target: String) -> AlertRule {
            rules.rule(kind, for: overrides[target] ?? AlertRuleOverrides())
        }
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

    /// Applies new rules (configuration reload); `targetRules` are the targets' own `rules:` by target name (a
    /// target left out keeps the ones it had). States of rules turned off are dropped; others are kept.
    public func update(rules: AlertRules, targetRules: [String: AlertRuleOverrides] = [:]) {
        state.withLock { state in
            state.rules = rules
            state.overrides.merge(targetRules) { _, new in new }
            state.machines = state.machines.filter { state.rule($0.key.kind, target: $0.key.target).enabled }
        }
    }

    /// Resolves every alert of `context.target`, which a reload removed from the configuration or changed, and drops
    /// its states: each firing alert gets the rows and event a resolution makes (rows only where the rule's
    /// `send_resolved` is on), its message saying why (`resolution`). Until `admit(target:)`, results of that target
    /// (a probe still in flight, made with the old settings) are ignored.
    public func remove(_ context: AlertContext, now: Timestamp,
                       resolution: String = AlertEngine.removedResolution) -> AlertDecision {
        let steps = state.withLock { state -> [Step] in
            state.removed.insert(context.target)
            state.overrides[context.target] = nil
            var steps: [Step] = []
            for kind in AlertRuleKind.allCases {
                let key = Key(target: context.target, kind: kind)
                guard let machine = state.machines.removeValue(forKey: key), machine.isFiring else { continue }
                steps.append(Step(kind: kind, rule: state.rule(kind, target: context.target),
                                  notification: .resolved(message: machine.message), since: machine.since))
            }
            return steps
        }
        guard !steps.isEmpty else { return AlertDecision() }
        let report = PinValidationReport(dateTime: now, hostname: context.host, port: context.port,
                                         effectiveExpirationDate: context.pinsExpire.map(Timestamp.init),
                                         includeSubdomains: context.includeSubdomains, notedHostname: context.notedHostname,
                                         servedCertificateChain: [], validatedCertificateChain: [],
                                         knownPins: context.knownPins.map(PinValidationReport.rfc7469Pin))
        return decision(steps, context: context, report: report, now: now, resolution: resolution)
    }

    /// Why the alerts of a target a reload removed resolved.
    public static let removedResolution = "target removed from the configuration"
    /// Why the alerts of a target a reload changed resolved: its rules or endpoint may differ now, so its alerts
    /// start anew from its next result instead of firing on under settings that no longer exist.
    public static let changedResolution = "target changed in the configuration"

    /// Lets results of `target` raise alerts again (a reload added a target of a name removed before).
    public func admit(target: String) {
        state.withLock { _ = $0.removed.remove(target) }
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
    /// as firing, so a restarted daemon neither pages again nor forgets to resolve. Also takes each target's last
    /// served leaf key from its newest stored result, so `key_changed` compares the first result after a restart
    /// with the last one before it. `targetRules`: the targets' own `rules:`. Returns how many alerts were restored.
    @discardableResult
    public func restore(from store: Store, targetRules: [String: AlertRuleOverrides] = [:]) async throws -> Int {
        let alerts = try await store.latestAlerts()
        restore(leafKeys: try await store.latestLeafKeys())
        return restore(alerts, targetRules: targetRules)
    }

    /// Restores each target's last served leaf key from `Store.latestLeafKeys()`; keys already seen win.
    public func restore(leafKeys: [Store.LatestLeafKey]) {
        state.withLock { state in
            for row in leafKeys where state.leafKeys[row.target] == nil {
                state.leafKeys[row.target] = LeafKey(endpoint: row.url.map(ProbeTarget.endpoint(of:)) ?? "", pin: row.spkiPin)
            }
        }
    }

    /// Restores from rows read with `Store.latestAlerts()`.
    @discardableResult
    public func restore(_ latest: [Store.LatestAlert], targetRules: [String: AlertRuleOverrides] = [:]) -> Int {
        state.withLock { state in
            state.overrides.merge(targetRules) { _, new in new }
            var restored = 0
            for row in latest where row.state == AlertEvent.State.firing.rawValue {
                // key_changed is one event, resolved quietly by the next result: its firing state is not carried
                // over (the restored leaf key is), so a change right after a restart is never taken as an old one.
                guard let kind = AlertRuleKind(rawValue: row.kind), kind != .keyChanged else { continue }
                let rule = state.rule(kind, target: row.target)
                guard rule.enabled else { continue }
                state.machines[Key(target: row.target, kind: kind)] = AlertRuleState(
                    firingSince: row.since ?? row.time, lastSent: row.time, message: row.message,
                    threshold: rule.threshold)
                restored += 1
            }
            return restored
        }
    }

    /// Feeds one probe result of `context.target` through every enabled rule.
    /// - Returns: outbox rows (one per alert and sink, pending, due `now`) and feed events.
    public func evaluate(_ record: ProbeRecord, context: AlertContext, now: Timestamp) -> AlertDecision {
        let steps: [Step] =
            state.withLock { state in
                var steps: [Step] = []
                guard !state.removed.contains(context.target) else { return steps }
                state.overrides[context.target] = context.ruleOverrides.isEmpty ? nil : context.ruleOverrides
                let previousKey = state.leafKeys[context.target]
                if record.outcome != .skipped, let leaf = record.servedChain.first {
                    state.leafKeys[context.target] = LeafKey(endpoint: context.endpoint, pin: leaf.spkiPin)
                }
                // One cause, one page: a failure that an enabled, inhibiting rule explains is not counted as down.
                let cause = AlertObservation.failureCause(record, context: context, now: now)
                let inhibited = cause.map { state.rule($0, target: context.target) }.map { $0.enabled && $0.inhibit } ?? false
                for kind in AlertRuleKind.allCases {
                    let rule = state.rule(kind, target: context.target)
                    guard rule.enabled else {
                        state.machines[Key(target: context.target, kind: kind)] = nil
                        continue
                    }
                    if kind == .targetDown && inhibited { continue }
                    let observation = AlertObservation.judge(record, kind: kind, rule: rule, context: context, now: now,
                                                             previousLeafKey: previousKey)
                    if observation == .neutral { continue }
                    let key = Key(target: context.target, kind: kind)
                    var machine = state.machines[key] ?? AlertRuleState()
                    let since = machine.since
                    if let notification = machine.step(observation, rule: rule, now: now) {
                        steps.append(Step(kind: kind, rule: rule, notification: notification, since: machine.since ?? since))
                    }
                    // A quiet machine behaves as a new one: keeping only the others keeps memory per active rule,
                    // not per (target, rule).
                    state.machines[key] = machine.isQuiet ? nil : machine
                }
                return steps
            }
        guard !steps.isEmpty else { return AlertDecision() }
        return decision(steps, context: context, report: PinValidationReport(record: record, context: context), now: now)
    }

    /// One notification of one rule, as a step of its state machine produced it.
    private struct Step {
        var kind: AlertRuleKind
        var rule: AlertRule
        var notification: AlertRuleState.Notification
        var since: Timestamp?
    }

    /// The events, log lines and outbox rows (one per sink) of `steps`; `resolution` says why a resolved alert
    /// resolved when it was not a good result.
    private func decision(_ steps: [Step], context: AlertContext, report: PinValidationReport, now: Timestamp,
                          resolution: String? = nil) -> AlertDecision {
        var decision = AlertDecision()
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
                let why = resolution.map { ": \($0)" } ?? ""
                (alertState, message, reminder) = (.resolved, "\(step.kind.title) resolved for \(context.target)\(why) (was: \(previous))", false)
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
