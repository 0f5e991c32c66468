import NetVigilReachability
import NetVigilStore

/// The per-target series' values (probe, per-address and reachability series), one compact entry per target,
/// rendered as Prometheus text at scrape time (`TargetSeriesTable+Exposition.swift`).
///
/// With thousands of targets these are nearly all of the daemon's series (about 17 per probe target). Keeping them as
/// swift-prometheus objects cost far more per target and a registration per new series that copies the family's
/// whole label dictionary (quadratic over the first cycle); here a probe updates its target's entry in O(1), a scrape
/// walks the entries once, and removing a target removes its entry. `AgentMetrics` keeps the table under its lock.
struct TargetSeriesTable: Sendable {
    /// The series of one probe target.
    struct ProbeEntry: Sendable {
        /// `,endpoint="…",site="…"`: the labels after the series' own, rendered (escaped) once.
        var labelSuffix: [UInt8]
        /// `netvigil_probes_total` by outcome, in `ProbeOutcome.allCases` order.
        var outcomes = [Int](repeating: 0, count: ProbeOutcome.allCases.count)
        /// `netvigil_probe_skipped`.
        var skipped = 0.0
        /// What the last probe that ran left; nil while every probe so far was skipped.
        var lastRun: LastRun?
    }

    /// The values of a target's last probe that ran; nil values have no series.
    struct LastRun: Sendable {
        var success: Double
        /// Seconds per phase in `phaseNames` order: the six of `AgentMetrics.phases` always, then `starttls`,
        /// `proxy` and `revocation` only for probes that had that phase.
        var durations: [Double?]
        var httpStatus: Double
        var httpVersion: Double
        var trusted: Double?
        var pinMatch: Double?
        var earliestExpiry: Double?
        /// The `pin` label of `netvigil_tls_served_key_info` (the leaf key served).
        var servedPin: String?
        var findings: Double?
    }

    /// The series of one address (and path) of an `addresses: all` or multi-path target.
    struct AddressEntry: Sendable, Equatable {
        var address: String
        var interface: String?
        var success: Double
        var trusted: Double?
        var pinMatch: Double?
    }

    /// One reachability target's status and flags.
    struct ReachabilityEntry: Sendable {
        var status: Double
        var flags: ReachabilityFlags
    }

    /// The `phase` label values of `LastRun.durations`.
    static let phaseNames = AgentMetrics.phases + ["starttls", "proxy", "revocation"]

    private(set) var probes: [String: ProbeEntry] = [:]
    private(set) var addresses: [String: [AddressEntry]] = [:]
    private(set) var reachability: [String: ReachabilityEntry] = [:]

    /// Records one finished probe of `target`; `labels` are the labels after the series' own. When they differ from the
    /// previous probe's (a reload changed them), the target's series start over (counters from 0, per-address
    /// series removed), as new series with the new labels would.
    mutating func recordProbe(target: String, labels: [(String, String)], outcome: ProbeOutcome, lastRun: LastRun?) {
        var suffix: [UInt8] = []
        for (name, value) in labels { suffix.appendLabel(name, value, first: false) }
        if let previous = probes[target]?.labelSuffix, previous != suffix {
            probes[target] = nil
            addresses[target] = nil
        }
        let index = ProbeOutcome.allCases.firstIndex(of: outcome) ?? 0
        probes[target, default: ProbeEntry(labelSuffix: suffix)].outcomes[index] += 1
        if let lastRun {
            probes[target]?.skipped = 0
            probes[target]?.lastRun = lastRun
        } else {
            probes[target]?.skipped = 1
        }
    }

    /// Replaces the per-address series of `target` (an empty list removes them). A repeated address and path keeps
    /// its last row.
    mutating func recordAddresses(target: String, rows: [AddressEntry]) {
        guard !rows.isEmpty else {
            addresses[target] = nil
            return
        }
        var unique: [AddressEntry] = []
        for row in rows {
            if let index = unique.firstIndex(where: { $0.address == row.address && $0.interface == row.interface }) {
                unique[index] = row
            } else {
                unique.append(row)
            }
        }
        addresses[target] = unique
    }

    mutating func recordReachability(target: String, status: Double, flags: ReachabilityFlags) {
        reachability[target] = ReachabilityEntry(status: status, flags: flags)
    }

    /// Drops every probe and per-address series of `target`.
    mutating func removeProbeTarget(_ target: String) {
        probes[target] = nil
        addresses[target] = nil
    }

    mutating func removeReachabilityTarget(_ target: String) {
        reachability[target] = nil
    }
}
