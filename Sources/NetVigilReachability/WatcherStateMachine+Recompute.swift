import Foundation

/// A recompute: asks the kernel for every target's route and publishes the evaluations whose state changed.
///
/// Latency matters more than batching here, so the work is ordered and results are published as they
/// are ready (each target's events stay in order; only the order across targets varies):
/// 1. targets most likely affected by the change — last routed through a link whose record or addresses
///    changed, never evaluated, or without a route; every target when routes, rules or commands changed
///    or after a resync — are looked up first;
/// 2. the IPv4 routes are re-dumped if the kernel may have flushed some silently, then `default` is
///    evaluated from the mirror;
/// 3. the remaining targets are looked up.
/// The first affected target is looked up alone, before the others; then lookups go out in growing chunks
/// (2, 4, ... 64 requests) and evaluations are published in growing batches (1, 2, 4, ...) as the kernel's
/// answers arrive. Address targets whose route, output link and the mirror's addresses are as at their
/// last evaluation are not evaluated again. Before each chunk but the first (not right after a dump), a
/// `checkNotifications` action asks whether notifications are queued: if so the recompute stops (at most
/// `maxPreemptions` times in a row), the next wait drains them and every target is recomputed again (with
/// any owed re-dump), so no target is skipped.
extension WatcherStateMachine {
    struct Pass {
        enum Step: Equatable { case seed, first, redump, evaluateDefault, rest, done }

        let hint: RecomputeHint
        let date: Date
        /// Chunks after the first may be preempted by notifications.
        let preemptible: Bool
        let plan: LookupPlan
        var seed: Int?
        var first: [Int] = []
        var rest: [Int] = []
        var defaultIndex: Int?
        var step = Step.seed
        /// Next position in `first` or `rest`.
        var position = 0
        var chunk = 4
        var started = false
        /// The next chunk passed its preemption check.
        var checked = false
        var redumped = false
        /// Per slot: the kernel's answer in this recompute.
        var lookups: [RouteLookup?]
        /// Per target: slots of the current chunk still unanswered.
        var remaining: [Int]
        var requested: [Bool]
        /// The slots of the lookups in flight, by position.
        var slots: [Int] = []
        var changed: [ReachabilityEvaluation] = []
        var flushAt = 1
    }

    mutating func startPass(hint: RecomputeHint, date: Date, preemptible: Bool) {
        cache.reset()
        if plan == nil { plan = LookupPlan(order: order) { states[$0]?.addresses ?? [] } }
        let plan = self.plan!
        var pass = Pass(
            hint: hint, date: date, preemptible: preemptible, plan: plan,
            lookups: [RouteLookup?](repeating: nil, count: plan.addresses.count),
            remaining: [Int](repeating: 0, count: order.count),
            requested: [Bool](repeating: false, count: plan.addresses.count))
        pass.slots.reserveCapacity(64)
        // The first affected target is looked up and published before the others: after a change, the time
        // to the first event counts most.
        pass.seed = order.firstIndex { target in
            if case .default = target { return false }
            return isAffected(target, hint)
        }
        for (index, target) in order.enumerated() where index != pass.seed {
            if case .default = target {
                pass.defaultIndex = index
            } else if isAffected(target, hint) {
                pass.first.append(index)
            } else {
                pass.rest.append(index)
            }
        }
        self.pass = pass
        stage = .recomputing
    }

    private func isAffected(_ target: ReachabilityTarget, _ hint: RecomputeHint) -> Bool {
        guard !hint.all, let interface = lastSent[target]?.interface else { return true }
        return hint.changedLinkNames.contains(interface)
    }

    /// The next action of the running recompute, `nil` when it has ended (its last actions are queued).
    mutating func advancePass() -> Action? {
        while pass != nil {
            if !queued.isEmpty { return queued.removeFirst() }
            switch pass!.step {
            case .seed:
                pass!.step = .first
                if let seed = pass!.seed {
                    // Growing chunks: the kernel answers a whole batch inside one send, so a small first batch
                    // gets the first answers out sooner; later batches amortize the system calls. Nothing
                    // affected (e.g. a link no target routes over changed): no first event to hurry, start at 4.
                    pass!.started = true
                    pass!.chunk = 2
                    lookUp([seed])
                }
            case .first, .rest:
                let list = pass!.step == .first ? pass!.first : pass!.rest
                guard pass!.position < list.count else {
                    pass!.step = pass!.step == .first ? .redump : .done
                    pass!.position = 0
                    continue
                }
                if pass!.started, pass!.preemptible, !pass!.checked, preemptions < Self.maxPreemptions {
                    pass!.checked = true
                    return .checkNotifications
                }
                pass!.checked = false
                pass!.started = true
                let end = min(pass!.position + pass!.chunk, list.count)
                let chunk = list[pass!.position..<end]
                pass!.position = end
                pass!.chunk = min(pass!.chunk * 2, 64)
                lookUp(chunk)
            case .redump:
                pass!.step = .evaluateDefault
                if pass!.hint.redumpIPv4Routes || redumpOwed {
                    // The kernel flushes IPv4 routes of a link going down or losing its last address without
                    // RTM_DELROUTE notifications: refresh them from a dump (the lookups so far did not need
                    // the mirror's routes; `default` does).
                    pass!.redumped = true
                    return .redumpRoutes(.ipv4)
                }
            case .evaluateDefault:
                pass!.step = .rest
                if let index = pass!.defaultIndex, let evaluation = evaluate(index) { publish(evaluation) }
            case .done:
                preemptions = 0
                recomputeOwed = false
                finishPass()
            }
        }
        return queued.isEmpty ? nil : queued.removeFirst()
    }

    /// Answers `checkNotifications`: with notifications queued the recompute stops here; the next wait
    /// drains them and every target is recomputed again, so nothing is skipped, only brought up to date first.
    mutating func notificationsPending(_ pending: Bool) {
        guard pending, let pass else { return }
        preemptions += 1
        recomputeOwed = true
        if pass.hint.redumpIPv4Routes && !pass.redumped { redumpOwed = true }
        finishPass()
    }

    /// Publishes what is left and ends the recompute; acknowledgements wait for a complete one.
    private mutating func finishPass() {
        guard let pass else { return }
        if !pass.changed.isEmpty { queued.append(.publish(pass.changed, thenYield: false)) }
        if pass.step == .done { flushAcks() }
        self.pass = nil
        stage = .idle
    }

    /// Answers `redumpRoutes`: replaces the mirror's routes of `family` (cloned entries are not mirrored).
    mutating func routesDumped(_ routes: [RouteInfo], family: IPAddress.Family, now: ContinuousClock.Instant) {
        let routes = routes.filter { !$0.isCloned }
        let fresh = Set(routes.map(\.key))
        let vanished = mirror.routeTable.keys.contains { $0.family == family && !fresh.contains($0) }
        mirror.removeRoutes(family: family)
        for route in routes { mirror.routeTable[route.key] = route }
        guard var pass else { return }
        self.pass = nil
        // A re-dump for fresh changes is confirmed once, a moment later; the confirming one is not (unless
        // fresh changes asked for a re-dump too).
        if pass.hint.redumpIPv4Routes || !confirmingRedump { confirmRedumpAt = now + Self.confirmRedumpDelay }
        confirmingRedump = false
        redumpOwed = false
        if vanished {
            // The kernel flushes right after sending the notifications we woke on, so the lookups so far may
            // predate it: look every target up again (only changes are published).
            pass.lookups = [RouteLookup?](repeating: nil, count: pass.plan.addresses.count)
            pass.requested = [Bool](repeating: false, count: pass.plan.addresses.count)
            pass.rest = (pass.seed.map { [$0] } ?? []) + pass.first + pass.rest
        }
        self.pass = pass
    }

    /// Queues the lookups of `targets`' addresses not looked up yet; targets with nothing to wait for are
    /// evaluated at once.
    private mutating func lookUp(_ targets: ArraySlice<Int>) {
        pass!.slots.removeAll(keepingCapacity: true)
        for index in targets {
            var count = 0
            for slot in pass!.plan.slotsOfTarget[index] where pass!.lookups[slot] == nil {
                if !pass!.requested[slot] {
                    pass!.requested[slot] = true
                    pass!.slots.append(slot)
                }
                count += 1
            }
            pass!.remaining[index] = count
            if count == 0, let evaluation = evaluate(index) { publish(evaluation) }
        }
        guard !pass!.slots.isEmpty else { return }
        queued.append(.lookUpRoutes(pass!.slots.map { pass!.plan.addresses[$0] }))
    }

    /// Answers one lookup of `lookUpRoutes` (by position); returns what to publish at once (targets whose
    /// addresses are all answered).
    mutating func routeLookedUp(_ position: Int, _ lookup: RouteLookup) -> [Action] {
        guard pass != nil else { return [] }
        let slot = pass!.slots[position]
        pass!.lookups[slot] = lookup
        for index in pass!.plan.targetsOfSlot[slot] where pass!.remaining[index] > 0 {
            pass!.remaining[index] -= 1
            if pass!.remaining[index] == 0, let evaluation = evaluate(index) { publish(evaluation) }
        }
        defer { queued.removeAll() }
        return queued
    }

    /// The evaluation of `order[index]`, or nil when it has not changed (or cannot be made yet).
    private mutating func evaluate(_ index: Int) -> ReachabilityEvaluation? {
        let target = order[index]
        let intervention = states[target]?.interventionRequired ?? false
        let date = pass!.date
        switch target {
        case .default:
            return ReachabilityEvaluator.evaluateDefault(
                mirror: mirror, interventionRequired: intervention, time: date, cache: &cache)
        case .address:
            guard let slot = pass!.plan.slotsOfTarget[index].first, let lookup = pass!.lookups[slot] else { return nil }
            var link: LinkInfo?
            if case let .route(route) = lookup { link = mirror.links[route.outputInterface] }
            let current = EvaluationInputs(
                lookup: lookup, link: link, addressGeneration: addressGeneration, interventionRequired: intervention)
            if inputs[target] == current, lastSent[target] != nil { return nil }
            inputs[target] = current
            return ReachabilityEvaluator.evaluate(
                target: target, address: pass!.plan.addresses[slot], lookup: lookup, mirror: mirror,
                interventionRequired: intervention, time: date, cache: &cache)
        case .host:
            var candidates: [ReachabilityEvaluation] = []
            for slot in pass!.plan.slotsOfTarget[index] {
                guard let lookup = pass!.lookups[slot] else { continue }
                candidates.append(ReachabilityEvaluator.evaluate(
                    target: target, address: pass!.plan.addresses[slot], lookup: lookup, mirror: mirror,
                    interventionRequired: intervention, time: date, cache: &cache))
            }
            // Reachable when any address is; a name that does not resolve is NotReachable.
            var evaluation = candidates.max { ReachabilityEvaluator.rank($0) < ReachabilityEvaluator.rank($1) }
                ?? ReachabilityEvaluation(target: target, flags: intervention ? .interventionRequired : [], time: date)
            if let best = candidates.first(where: {
                ReachabilityEvaluator.rank($0) == ReachabilityEvaluator.rank(evaluation)
            }) {
                evaluation = best  // first in resolver order among the best
            }
            return evaluation
        }
    }

    /// Records a changed evaluation; queues a batch when it is full (1, 2, 4, ...).
    private mutating func publish(_ evaluation: ReachabilityEvaluation) {
        if let last = lastSent[evaluation.target], last.hasSameState(as: evaluation) { return }
        lastSent[evaluation.target] = evaluation
        pass!.changed.append(evaluation)
        guard pass!.changed.count >= pass!.flushAt else { return }
        // The first batch is out: on a busy host let its consumer (just woken) run before the rest.
        queued.append(.publish(pass!.changed, thenYield: pass!.flushAt == 1))
        pass!.changed.removeAll(keepingCapacity: true)
        pass!.flushAt *= 2
    }
}
