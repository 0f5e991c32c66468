import NetVigilAgent
import NetVigilStore

/// One target of `GET /v1/status?view=brief`: the fields `netvigil status` shows, under the names the full
/// ``TargetSnapshot`` gives them, so a reader of the full document reads this one too.
///
/// The full document carries URLs, labels, timings, uptime and findings for every target; the brief one is a fraction
/// of it, which the daemon encodes and the CLI decodes in less time.
struct BriefTargetSnapshot: Sendable, Encodable, Equatable {
    struct LastResult: Sendable, Encodable, Equatable {
        var time: Timestamp
        var outcome: ProbeOutcome
        var errorKind: String?
        var httpStatus: Int?
        var trustVerdict: String?
        var pinVerdict: String?
        var reachabilityStatus: String?
        var certificateDaysLeft: Int?

        enum CodingKeys: String, CodingKey {
            case time, outcome
            case errorKind = "error_kind", httpStatus = "http_status", trustVerdict = "trust_verdict"
            case pinVerdict = "pin_verdict", reachabilityStatus = "reachability_status"
            case certificateDaysLeft = "certificate_days_left"
        }
    }

    struct Alert: Sendable, Encodable, Equatable {
        var kind: String
    }

    struct Address: Sendable, Encodable, Equatable {
        var address: String
        var interface: String?
        var status: TargetSnapshot.Status
        var errorKind: String?
        var pinVerdict: String?

        enum CodingKeys: String, CodingKey {
            case address, interface, status
            case errorKind = "error_kind", pinVerdict = "pin_verdict"
        }
    }

    var name: String
    var status: TargetSnapshot.Status
    var lastResult: LastResult?
    var lastProbeAt: Timestamp?
    var consecutiveFailures: Int
    var firingAlerts: [Alert]
    var addresses: [Address]?

    enum CodingKeys: String, CodingKey {
        case name, status, addresses
        case lastResult = "last_result", lastProbeAt = "last_probe_at"
        case consecutiveFailures = "consecutive_failures", firingAlerts = "firing_alerts"
    }

    init(_ snapshot: TargetSnapshot) {
        name = snapshot.name
        status = snapshot.status
        lastResult = snapshot.lastResult.map {
            LastResult(time: $0.time, outcome: $0.outcome, errorKind: $0.errorKind, httpStatus: $0.httpStatus,
                       trustVerdict: $0.trustVerdict, pinVerdict: $0.pinVerdict,
                       reachabilityStatus: $0.reachabilityStatus, certificateDaysLeft: $0.certificateDaysLeft)
        }
        lastProbeAt = snapshot.lastProbeAt
        consecutiveFailures = snapshot.consecutiveFailures
        firingAlerts = snapshot.firingAlerts.map { Alert(kind: $0.kind) }
        addresses = snapshot.addresses?.map {
            Address(address: $0.address, interface: $0.interface, status: $0.status, errorKind: $0.errorKind,
                    pinVerdict: $0.pinVerdict)
        }
    }
}
