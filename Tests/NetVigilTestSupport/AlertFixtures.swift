import Foundation
import NetVigilProber
import NetVigilProbeModel
import NetVigilStore
import NetVigilTrust
@testable import NetVigilAgent

/// Real certificates (made in process with libcrypto) and probe records for the alert tests.
public enum AlertFixtures {
    public static let base = Timestamp(milliseconds: 1_795_000_000_000)  // 2026-11-18T11:06:40Z

    /// Two self-signed certificates with different keys, valid for 90 days from now: the pinned one and an impostor.
    public static let certificates: (pinned: CertificateRecord, other: CertificateRecord, shortLived: CertificateRecord) = {
        do {
            let directory = try TemporaryDirectory()
            func make(_ name: String, days: Int) throws -> CertificateRecord {
                try TestCertificateFactory.selfSigned(subject: "/CN=\(name).example", days: days,
                                                      certificatePath: directory.path("\(name).crt"),
                                                      keyPath: directory.path("\(name).key"))
                let text = try String(contentsOfFile: directory.path("\(name).crt"), encoding: .utf8)
                let parsed = try Certificate.parsePEM(text)[0]
                return ProbeResult.ChainCertificate(parsed).record
            }
            return (try make("pinned", days: 90), try make("other", days: 90), try make("short", days: 5))
        } catch {
            fatalError("cannot make test certificates: \(error)")
        }
    }()

    public static func context(target: String = "api", sinks: [String] = ["pager", "script"], pins: [String]? = nil) -> AlertContext {
        AlertContext(target: target, url: "https://api.example.com:8443/health", host: "api.example.com", port: 8443,
                     sinks: sinks, knownPins: pins ?? [certificates.pinned.spkiPin], includeSubdomains: true,
                     notedHostname: "*.example.com", pinsExpire: Date(timeIntervalSince1970: 1_800_000_000))
    }

    public static func at(_ seconds: Int64) -> Timestamp { base.adding(.seconds(seconds)) }

    /// A probe of `api` at `time`: ok with the pinned chain unless told otherwise.
    public static func record(at time: Timestamp, outcome: ProbeOutcome = .ok, chain: [CertificateRecord]? = nil,
                       trust: TrustSummary? = .trusted, pin: PinVerdict? = .matched, errorKind: ProbeErrorKind? = nil,
                       errorMessage: String? = nil) -> ProbeRecord {
        let served = outcome == .skipped ? [] : (chain ?? [certificates.pinned])
        return ProbeRecord(time: time, target: "api", url: "https://api.example.com:8443/health", outcome: outcome,
                           errorKind: errorKind, errorMessage: errorMessage, httpStatus: outcome == .ok ? 200 : nil,
                           trustVerdict: outcome == .skipped ? nil : trust, pinVerdict: outcome == .skipped ? nil : pin,
                           servedChain: served, validatedChain: trust == .trusted ? served : [])
    }

    public static func down(at time: Timestamp) -> ProbeRecord {
        ProbeRecord(time: time, target: "api", url: "https://api.example.com:8443/health", outcome: .failed,
                    errorKind: .connectRefused, errorMessage: "connection to 127.0.0.1:8443 refused")
    }

    public static func skipped(at time: Timestamp) -> ProbeRecord {
        ProbeRecord(time: time, target: "api", url: "https://api.example.com:8443/health", outcome: .skipped,
                    reachabilityStatus: "NotReachable")
    }

    public static func mismatch(at time: Timestamp, chain: [CertificateRecord]? = nil, reportOnly: Bool = false) -> ProbeRecord {
        record(at: time, outcome: reportOnly ? .ok : .failed, chain: chain ?? [certificates.other],
               trust: reportOnly ? .trusted : .untrusted(reason: "publicKeyPinMismatch"), pin: reportOnly ? .mismatchReported : .mismatch,
               errorKind: reportOnly ? nil : .trust, errorMessage: reportOnly ? nil : "Public-key pinning failure for api.example.com")
    }

    /// Only the rows of one kind.
    public static func rows(_ decision: AlertDecision, _ kind: AlertRuleKind) -> [AlertRecord] {
        decision.rows.filter { $0.kind == kind.rawValue }
    }

    public static func events(_ decision: AlertDecision, _ kind: AlertRuleKind) -> [AlertEvent] {
        decision.events.filter { $0.kind == kind.rawValue }
    }

    public static func payload(_ row: AlertRecord) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(row.payloadJSON.utf8)) as! [String: Any]
    }
}
