import Foundation

/// Inputs from outside a recompute: dumps, notifications, commands, host names, failures.
extension WatcherStateMachine {
    /// Netlink was (re)opened and dumped (links, addresses, then routes and rules of each family): the next
    /// actions resolve every host name and evaluate every target.
    mutating func connected(dump: [NetlinkMessage]) {
        replaceMirror(with: dump)
        wake = nil
        pass = nil
        stage = .connected(hostsResolved: false)
    }

    /// Applies one notification received during a wait.
    mutating func notificationReceived(_ message: NetlinkMessage) {
        let changed = mirror.apply(message, probe: linkProbe)
        wake?.changed.formUnion(changed)
    }

    /// The kernel dropped notifications (ENOBUFS) or one did not fit: returns the number of overruns so far.
    /// The shell discards what is queued, dumps everything and reports it with `resynchronized(dump:)`.
    mutating func overrun() -> Int {
        resyncs += 1
        return resyncs
    }

    /// The full dump after an overrun: it replaces the mirror and every target is recomputed.
    mutating func resynchronized(dump: [NetlinkMessage]) {
        replaceMirror(with: dump)
        wake?.resynced = true
        wake?.changed = [.links, .addresses, .routes, .rules]
    }

    private mutating func replaceMirror(with dump: [NetlinkMessage]) {
        var fresh = NetlinkMirror()
        let old = mirror
        let probe = linkProbe
        let keepKnown: NetlinkMirror.LinkProbe = { name, index in
            if let link = old.links[index], link.name == name { return (link.devtype, link.isWireless) }
            return probe(name, index)
        }
        for message in dump { fresh.apply(message, probe: keepKnown) }
        mirror = fresh
        addressGeneration &+= 1
    }

    /// Applies commands (in order); a recompute follows unless they were only removals or `stop`.
    mutating func commandsReceived(_ commands: [Command]) {
        var recompute = false
        if commands.contains(where: { if case .snapshot = $0 { false } else { true } }) { plan = nil }
        for command in commands {
            switch command {
            case let .add(targets, ack):
                for target in targets where states[target] == nil {
                    order.append(target)
                    states[target] = TargetState(target)
                }
                pendingAcks.append(ack)
                recompute = true
            case let .remove(targets):
                for target in targets {
                    states[target] = nil
                    lastSent[target] = nil
                    inputs[target] = nil
                }
                order.removeAll { states[$0] == nil }
            case let .intervention(target, required, ack):
                if states[target] == nil {
                    order.append(target)
                    states[target] = TargetState(target)
                }
                states[target]?.interventionRequired = required
                pendingAcks.append(ack)
                recompute = true
            case let .snapshot(id):
                pendingSnapshots.append(id)
                recompute = true
            case let .refresh(ack):
                pendingAcks.append(ack)
                recompute = true
            case .stop:
                stopRequested = true
            }
        }
        if recompute { wake?.needsRecompute = true }
    }

    /// Host names to resolve: those due (never resolved, or `hostResolveInterval` ago), or all when `force`.
    func hostsToResolve(force: Bool, now: ContinuousClock.Instant) -> [String] {
        order.compactMap { target in
            guard case let .host(name) = target, let state = states[target] else { return nil }
            let due = state.resolvedAt.map { now - $0 >= hostResolveInterval } ?? true
            return force || due ? name : nil
        }
    }

    /// The addresses of a host name, in resolver order (empty when it does not resolve).
    mutating func hostResolved(_ name: String, addresses: [IPAddress], now: ContinuousClock.Instant) {
        let target = ReachabilityTarget.host(name)
        guard var state = states[target] else { return }
        if addresses != state.addresses { plan = nil }
        state.addresses = addresses
        state.resolvedAt = now
        states[target] = state
    }

    /// Netlink failed: every target becomes `Unknown` (published once) and waiting commands are answered.
    /// Returns what to perform; the shell reopens netlink later and calls `connected(dump:)`.
    mutating func failed(date: Date) -> [Action] {
        pass = nil
        wake = nil
        stage = .disconnected
        inputs = [:]
        var changed: [ReachabilityEvaluation] = []
        for target in order {
            let unknown = ReachabilityEvaluation.unknown(target, time: date)
            if let last = lastSent[target], last.hasSameState(as: unknown) { continue }
            lastSent[target] = unknown
            changed.append(unknown)
        }
        if !changed.isEmpty { queued.append(.publish(changed, thenYield: false)) }
        flushAcks()
        defer { queued = [] }
        return queued
    }
}
