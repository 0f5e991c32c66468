import NetVigilAgent
import NetVigilStore

/// One target of `GET /v1/status?view=rows`: the brief view's fields (``BriefTargetSnapshot``) as a JSON array, in
/// the order of ``columns``, which the document sends as `target_columns`.
///
/// An object names every field of every target, and a reader indexes each name: at 10,000 targets decoding the brief
/// view's objects was most of `netvigil status`'s time. The same values as arrays decode in about a third of it.
struct TargetRow: Sendable, Encodable, Equatable {
    /// What each position holds: the brief view's names, `last_result`'s members as `last_result.NAME`.
    /// `firing_alerts` is the alerts' kinds; `addresses` the brief view's address objects. A missing value is `null`.
    /// New columns are only ever added at the end, so a reader may stop at the ones it knows.
    static let columns = [
        "name", "status", "consecutive_failures", "last_probe_at",
        "last_result.time", "last_result.outcome", "last_result.error_kind", "last_result.http_status",
        "last_result.trust_verdict", "last_result.pin_verdict", "last_result.reachability_status",
        "last_result.certificate_days_left", "firing_alerts", "addresses",
    ]

    var target: BriefTargetSnapshot

    init(_ snapshot: TargetSnapshot) {
        target = BriefTargetSnapshot(snapshot)
    }

    func encode(to encoder: any Encoder) throws {
        var row = encoder.unkeyedContainer()
        try row.encode(target.name)
        try row.encode(target.status)
        try row.encode(target.consecutiveFailures)
        try row.encode(target.lastProbeAt)
        let last = target.lastResult
        try row.encode(last?.time)
        try row.encode(last?.outcome)
        try row.encode(last?.errorKind)
        try row.encode(last?.httpStatus)
        try row.encode(last?.trustVerdict)
        try row.encode(last?.pinVerdict)
        try row.encode(last?.reachabilityStatus)
        try row.encode(last?.certificateDaysLeft)
        try row.encode(target.firingAlerts.map(\.kind))
        try row.encode(target.addresses)
    }
}
