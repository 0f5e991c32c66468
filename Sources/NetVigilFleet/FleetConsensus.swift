import Foundation
import NetVigilAgent
import NetVigilStore

/// The verdicts only a fleet can give, decided from one ``FleetSnapshot`` (no I/O; docs/fleet.md).
///
/// - An agent is **silent** when its heartbeat is older than `silent_after` (by default 3 × its own heartbeat
///   interval); its results are left out of every
///   verdict (a dead agent's last result says nothing about now). It is **behind** when its shipping lag is over
///   `behind_after`.
/// - An endpoint (a URL without credentials, query or fragment: agents may name their targets differently) is
///   **down** when at least `down_when` of the agents that probed it (skipped results aside) see it fail, and at least
///   two of them unless only one watches it; **partial** when some but fewer do; **up** when none do; **unknown**
///   without results.
/// - Agents are grouped by the leaf key they are served. The group seen by the most sites is the majority. Another
///   group is a **path interception** when fewer sites see it, or as many but its pins mismatch (or its chain failed
///   before they were looked at) where the majority's match, unless it is the group whose pins match while the majority's do not (then the server changed its key
///   and the majority sees the new one).
/// - A **server key change** is every agent that probed the endpoint being served one key that differs from the one
///   they last agreed on (an agent without a handshake, e.g. refused, breaks the agreement: no rotation is called
///   from the agents that happen to reach it).
public struct FleetConsensus: Sendable {
    public var settings: FleetConsensusSettings

    public init(settings: FleetConsensusSettings) {
        self.settings = settings
    }

    /// The outcome of one evaluation.
    public struct Evaluation: Sendable, Equatable {
        public var report: FleetStatusReport
        /// Every alert condition true now.
        public var conditions: [FleetCondition]
        /// Endpoints whose agents now agree on a key other than the stored one: the new agreed key.
        public var newAgreedKeys: [String: FleetSnapshot.AgreedKey]
    }

    public func evaluate(_ snapshot: FleetSnapshot) -> Evaluation {
        let now = snapshot.time
        var conditions: [FleetCondition] = []
        var agentsByName: [String: FleetSnapshot.Agent] = [:]
        var states: [String: FleetStatusReport.AgentState] = [:]
        for agent in snapshot.agents {
            agentsByName[agent.agent] = agent
            let limit = settings.silentAfter.limit(heartbeat: agent.heartbeat)
            if now.milliseconds - agent.lastSeen.milliseconds > Int64(limit.seconds * 1000) {
                states[agent.agent] = .silent
                let rule = switch settings.silentAfter {
                case .heartbeats: "\(settings.silentAfter) its heartbeat of \(ConfigDuration.format(agent.heartbeat ?? FleetConsensusSettings.SilentAfter.defaultHeartbeat))"
                case .duration: ConfigDuration.format(limit)
                }
                conditions.append(FleetCondition(
                    kind: .agentSilent, subject: agent.agent,
                    message: "agent \(agent.agent) (site \(agent.site)) sent no heartbeat since \(agent.lastSeen.rfc3339) (silent after \(rule))",
                    sites: [agent.site], agents: [agent.agent]))
            } else if agent.shippingLagSeconds > settings.behindAfter.seconds {
                states[agent.agent] = .behind
                conditions.append(FleetCondition(
                    kind: .agentBehind, subject: agent.agent,
                    message: "agent \(agent.agent) (site \(agent.site)) is \(Int(agent.shippingLagSeconds)) s behind in shipping its results (bound \(ConfigDuration.format(settings.behindAfter)))",
                    sites: [agent.site], agents: [agent.agent]))
            } else {
                states[agent.agent] = .ok
            }
        }
        // Agents and sites as ordinals in name order: a fleet's status sorts and groups tens of thousands of names,
        // and comparing integers is what keeps that within a request's budget. Results may name an agent the agents
        // table lacks (it counts as silent).
        var nameSet = Set(snapshot.agents.map(\.agent))
        for result in snapshot.results { nameSet.insert(result.agent) }
        let names = nameSet.sorted()
        let ordinal = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        let siteNames = Set(names.map { agentsByName[$0]?.site ?? $0 }).sorted()
        let siteOrdinal = Dictionary(uniqueKeysWithValues: siteNames.enumerated().map { ($1, $0) })
        let siteOf = names.map { siteOrdinal[agentsByName[$0]?.site ?? $0]! }
        let stateOf = names.map { states[$0] ?? .silent }
        func agentNames(_ ordinals: [Int]) -> [String] { ordinals.sorted().map { names[$0] } }
        func sitesOf(_ ordinals: [Int]) -> [String] { Set(ordinals.map { siteOf[$0] }).sorted().map { siteNames[$0] } }

        // Each agent's newest result per endpoint, by agent ordinal.
        var endpointIndex: [String: Int] = [:]
        var endpointNames: [String] = []
        var byEndpoint: [[Int: Int]] = []
        for (index, (result, endpoint)) in zip(snapshot.results, snapshot.resultEndpoints()).enumerated() {
            let slot: Int
            if let known = endpointIndex[endpoint] {
                slot = known
            } else {
                slot = endpointNames.count
                endpointIndex[endpoint] = slot
                endpointNames.append(endpoint)
                byEndpoint.append([:])
            }
            let agent = ordinal[result.agent]!
            if let known = byEndpoint[slot][agent], snapshot.results[known].time >= result.time { continue }
            byEndpoint[slot][agent] = index
        }

        var endpoints: [FleetStatusReport.EndpointStatus] = []
        var newAgreedKeys: [String: FleetSnapshot.AgreedKey] = [:]
        var totalEndpoints = [Int](repeating: 0, count: names.count)
        var totalDown = [Int](repeating: 0, count: names.count)
        for (slot, entries) in byEndpoint.enumerated() {
            let endpoint = endpointNames[slot]
            var up: [Int] = [], down: [Int] = [], skipped: [Int] = [], silent: [Int] = []
            var live: [(agent: Int, result: FleetSnapshot.Result)] = []
            for (agent, index) in entries {
                guard stateOf[agent] != .silent else {
                    silent.append(agent)
                    continue
                }
                let result = snapshot.results[index]
                live.append((agent, result))
                totalEndpoints[agent] += 1
                switch result.outcome {
                case "ok": up.append(agent)
                case "skipped": skipped.append(agent)
                default:
                    down.append(agent)
                    totalDown[agent] += 1
                }
            }
            let downNames = agentNames(down)
            let downSites = sitesOf(down)
            let verdict = verdict(up: up.count, down: down.count)
            if verdict == .down {
                conditions.append(FleetCondition(
                    kind: .endpointDown, subject: endpoint,
                    message: "\(endpoint) is down from \(down.count) of \(up.count + down.count) agents (sites \(downSites.joined(separator: ", ")))",
                    sites: downSites, agents: downNames))
            }
            let keys = keyGroups(live, agentNames: agentNames, sitesOf: sitesOf)
            for group in keys where group.interception {
                let majority = keys.first { $0.majority }
                let issuer = group.issuers.joined(separator: "; ")
                var message = "\(group.agents.count) agent\(group.agents.count == 1 ? "" : "s") in site\(group.sites.count == 1 ? "" : "s") \(group.sites.joined(separator: ", ")) \(group.agents.count == 1 ? "is" : "are") served \(group.spki) issued by \(issuer.isEmpty ? "an unknown issuer" : issuer) for \(endpoint)"
                if let majority {
                    message += "; \(majority.agents.count) agent\(majority.agents.count == 1 ? "" : "s") in \(majority.sites.count) site\(majority.sites.count == 1 ? "" : "s") see \(majority.spki)"
                }
                conditions.append(FleetCondition(kind: .pathInterception, subject: endpoint, detail: group.spki,
                                                 message: message, sites: group.sites, agents: group.agents,
                                                 spki: group.spki, issuer: issuer.isEmpty ? nil : issuer))
            }
            let agreed = snapshot.agreedKeys[endpoint]
            // Agreement: every live agent that probed it (skipped results aside) was served this one key.
            if keys.count == 1, let only = keys.first, only.agents.count == live.count(where: { $0.result.outcome != "skipped" }) {
                if agreed?.spki != only.spki {
                    newAgreedKeys[endpoint] = FleetSnapshot.AgreedKey(spki: only.spki, issuer: only.issuers.first, since: now)
                }
                if let agreed, agreed.spki != only.spki {
                    let unpinned = only.pins == .mismatch
                    conditions.append(FleetCondition(
                        kind: .serverKeyChanged, subject: endpoint, detail: only.spki, severity: unpinned ? .page : .info,
                        message: "every agent now sees \(only.spki) for \(endpoint) (was \(agreed.spki) since \(agreed.since.rfc3339))\(unpinned ? "; no configured pin matches the new key" : "")",
                        sites: only.sites, agents: only.agents, spki: only.spki, issuer: only.issuers.first))
                }
            }
            endpoints.append(FleetStatusReport.EndpointStatus(
                endpoint: endpoint, verdict: verdict, up: agentNames(up), down: downNames, skipped: agentNames(skipped),
                silent: agentNames(silent), downSites: downSites, keys: keys,
                agreedKey: newAgreedKeys[endpoint]?.spki ?? agreed?.spki,
                agreedSince: newAgreedKeys[endpoint]?.since ?? agreed?.since))
        }
        endpoints.sort { ($0.verdict, $0.endpoint) < ($1.verdict, $1.endpoint) }

        var agents: [FleetStatusReport.AgentStatus] = snapshot.agents.map { agent in
            let state = states[agent.agent] ?? .ok
            let index = ordinal[agent.agent]!
            return FleetStatusReport.AgentStatus(
                agent: agent.agent, site: agent.site, labels: agent.labels, version: agent.version, lastSeen: agent.lastSeen,
                shippingLagSeconds: agent.shippingLagSeconds, state: state, healthy: state == .ok,
                endpoints: totalEndpoints[index], down: totalDown[index])
        }
        agents.sort { ($0.state, siteOf[ordinal[$0.agent]!], ordinal[$0.agent]!) < ($1.state, siteOf[ordinal[$1.agent]!], ordinal[$1.agent]!) }

        var summary = FleetStatusReport.Summary()
        summary.agents = agents.count
        summary.healthy = agents.count { $0.state == .ok }
        summary.silent = agents.count { $0.state == .silent }
        summary.behind = agents.count { $0.state == .behind }
        summary.endpoints = endpoints.count
        summary.up = endpoints.count { $0.verdict == .up }
        summary.partial = endpoints.count { $0.verdict == .partial }
        summary.down = endpoints.count { $0.verdict == .down }
        summary.unknown = endpoints.count { $0.verdict == .unknown }
        summary.interceptions = endpoints.reduce(0) { $0 + $1.keys.count { $0.interception } }
        let report = FleetStatusReport(
            time: now,
            consensus: .init(downWhen: settings.downWhen, silentAfter: settings.silentAfter.description,
                             behindAfterSeconds: settings.behindAfter.seconds),
            summary: summary, agents: agents, endpoints: endpoints)
        conditions.sort { $0.key < $1.key }
        return Evaluation(report: report, conditions: conditions, newAgreedKeys: newAgreedKeys)
    }

    /// The endpoint a result is of: its URL without credentials, query or fragment; the target's name for rows
    /// shipped without a URL.
    public static func endpoint(of result: FleetSnapshot.Result) -> String {
        result.url.map { ProbeTarget.endpoint(of: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? result.target
    }

    /// `down` when at least `down_when` of the agents with a verdict, and at least two of them unless only one
    /// watches; `partial` for fewer; `up` for none; `unknown` without any.
    func verdict(up: Int, down: Int) -> FleetStatusReport.Verdict {
        let watching = up + down
        guard watching > 0 else { return .unknown }
        guard down > 0 else { return .up }
        let needed = max(Int((settings.downShare * Double(watching) - 1e-9).rounded(.up)), min(2, watching))
        return down >= needed ? .down : .partial
    }

    /// The served keys of one endpoint's live results (by agent ordinal), largest group first, with the majority and
    /// interceptions marked.
    func keyGroups(_ results: [(agent: Int, result: FleetSnapshot.Result)], agentNames: ([Int]) -> [String],
                   sitesOf: ([Int]) -> [String]) -> [FleetStatusReport.KeyGroup] {
        var members: [String: [(agent: Int, result: FleetSnapshot.Result)]] = [:]
        for entry in results {
            guard let spki = entry.result.servedSPKI else { continue }
            members[spki, default: []].append(entry)
        }
        var groups = members.map { spki, entries in
            FleetStatusReport.KeyGroup(
                spki: spki,
                issuers: Set(entries.compactMap(\.result.servedIssuer)).sorted(),
                agents: agentNames(entries.map(\.agent)),
                sites: sitesOf(entries.map(\.agent)),
                pins: Self.pinAgreement(entries.map(\.result.pinVerdict)),
                majority: false, interception: false)
        }
        groups.sort {
            ($1.sites.count, $1.agents.count, $0.spki) < ($0.sites.count, $0.agents.count, $1.spki)
        }
        guard !groups.isEmpty else { return [] }
        groups[0].majority = true
        let top = groups[0]
        for index in groups.indices.dropFirst() {
            let group = groups[index]
            let fewer = group.sites.count < top.sites.count
            // The majority's pins match; this group's key matched none, or its chain failed before pins were looked at.
            let pinsSayIntercepted = (group.pins == .mismatch || group.pins == .notEvaluated) && top.pins == .matched
            let pinsSayRotated = group.pins == .matched && top.pins == .mismatch
            groups[index].interception = (fewer || pinsSayIntercepted) && !pinsSayRotated
        }
        return groups
    }

    static func pinAgreement(_ verdicts: [String?]) -> FleetStatusReport.PinAgreement {
        let pinning = verdicts.filter { $0 != nil && $0 != "not_pinned" }
        if pinning.isEmpty { return .notPinned }
        if pinning.allSatisfy({ $0 == "matched" }) { return .matched }
        if pinning.allSatisfy({ $0 == "mismatch" || $0 == "mismatch_reported" }) { return .mismatch }
        if pinning.allSatisfy({ $0 == "not_evaluated" }) { return .notEvaluated }
        return .mixed
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
