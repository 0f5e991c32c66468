import NetVigilAgent
import NetVigilProbeModel
import NetVigilStore

/// The body of `GET /v1/public/status` (public mode): what the status page shows, without anything an outsider
/// should not read.
///
/// Kept: names, status, uptime, timings, verdicts, days left on the chain, alert kinds, findings' codes, severities
/// and certificate indexes, the 24 h buckets.
/// Dropped: URL credentials, query and fragment (the URL is the `endpoint`), labels, error messages (they can carry
/// server text), findings' messages (they quote the certificates), resolved addresses (per-address rows are numbered
/// `address 1`, `address 2`, ... instead, without their served pin or interface name), the untrusted verdict's reason,
/// alert messages, the store, reachability
/// (interfaces, gateways, addresses) and the captive-portal check. No certificates, no headers.
struct PublicStatusReport: Encodable, Sendable {
    var version: String
    var startedAt: Timestamp
    var uptimeSeconds: Double
    /// Always true: tells the page (and a reader) this is the redacted document.
    var redacted = true
    var targets: [TargetSnapshot]
    var health: StatusReport.Health?
    /// Every target's 24 h in 30 min buckets, as `/v1/overview` serves it.
    var overview: SeriesDocument<OverviewTargetEntry>

    enum CodingKeys: String, CodingKey {
        case version, redacted, targets, health, overview
        case startedAt = "started_at"
        case uptimeSeconds = "uptime_seconds"
    }

    init(version: String, startedAt: Timestamp, uptimeSeconds: Double, targets: [TargetSnapshot],
         health: StatusReport.Health?, overview: SeriesDocument<OverviewTargetEntry>) {
        self.version = version
        self.startedAt = startedAt
        self.uptimeSeconds = uptimeSeconds
        self.targets = targets.map(Self.redacted)
        self.health = health
        self.overview = overview
    }

    /// `snapshot` with only what the public may read.
    static func redacted(_ snapshot: TargetSnapshot) -> TargetSnapshot {
        var copy = snapshot
        copy.url = snapshot.endpoint ?? ProbeTarget.endpoint(of: snapshot.url)
        copy.endpoint = nil
        copy.labels = nil
        copy.firingAlerts = snapshot.firingAlerts.map { FiringAlert(target: $0.target, kind: $0.kind, since: $0.since, message: "") }
        if var last = copy.lastResult {
            last.errorMessage = nil
            last.resolvedAddress = nil
            if let verdict = last.trustVerdict, verdict != "trusted" { last.trustVerdict = "untrusted" }
            last.findings = last.findings?.map { TrustFinding(code: $0.code, certificate: $0.certificate, message: "", severity: $0.severity) }
            copy.lastResult = last
        }
        copy.addresses = snapshot.addresses.map(redacted)
        return copy
    }

    /// Per-address rows with only what the public may read: status, verdicts, timings; no address, message or pin.
    static func redacted(_ addresses: [TargetSnapshot.AddressStatus]) -> [TargetSnapshot.AddressStatus] {
        addresses.enumerated().map { index, row in
            var copy = row
            copy.address = "address \(index + 1)"
            copy.errorMessage = nil
            copy.servedPin = nil
            copy.interface = nil
            if let verdict = row.trustVerdict, verdict != "trusted" { copy.trustVerdict = "untrusted" }
            return copy
        }
    }
}
