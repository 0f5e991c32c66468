import Foundation
import NetVigilProbeModel
import NetVigilStore

/// How one probe result counts for one rule.
enum AlertObservation: Equatable {
    /// Counts towards firing; `message` says what is wrong, `fingerprint` identifies the report for dedupe.
    case bad(message: String, fingerprint: String)
    /// Counts towards resolving.
    case good
    /// Counts for nothing (skipped probe, or the rule could not be judged).
    case neutral

    /// Trust failure kinds that are pin mismatches (covered by `pin_mismatch`).
    static let pinFailureKinds: Set<String> = ["certificatePinMismatch", "publicKeyPinMismatch"]

    /// Judges `record` for `kind`; `previousLeafKey` is the leaf key of the target's previous result (`key_changed`).
    static func judge(_ record: ProbeRecord, kind: AlertRuleKind, rule: AlertRule, context: AlertContext,
                      now: Timestamp, previousLeafKey: LeafKey? = nil) -> AlertObservation {
        if record.outcome == .skipped { return .neutral }
        let endpoint = "\(context.host):\(context.port)"
        switch kind {
        case .pinMismatch:
            guard let verdict = record.pinVerdict else { return .neutral }
            if verdict.isMismatch {
                let reportOnly = verdict == .mismatchReported
                if context.addresses.contains(where: \.pinMismatch) {
                    let message = addressPinMismatchMessage(reportOnly: reportOnly, endpoint: endpoint, context: context)
                    return .bad(message: message, fingerprint: fingerprint(record, context: context))
                }
                let served = record.servedChain.map(\.spkiPin)
                var message = "\(reportOnly ? "report-only " : "")pin mismatch on \(endpoint)"
                message += ": served " + (served.isEmpty ? "no keys" : served.joined(separator: ", "))
                message += "; known pins " + (context.knownPins.isEmpty ? "none" : context.knownPins.joined(separator: ", "))
                return .bad(message: message, fingerprint: fingerprint(record, context: context))
            }
            // The chain failed before pins were looked at: trust_failure covers it.
            return verdict == .notEvaluated ? .neutral : .good
        case .trustFailure:
            if let kind = record.errorKind, kind == .insecureRedirect || kind == .starttlsUnavailable {
                // An https:// target sent to http://, or a STARTTLS target left in plaintext (not offered, refused,
                // perhaps stripped on the way): a trust problem even though no certificate was wrong.
                var message = "\(kind == .insecureRedirect ? "insecure redirect" : "STARTTLS unavailable") on \(endpoint)"
                if let detail = firstLine(record.errorMessage) { message += ": \(detail)" }
                return .bad(message: message, fingerprint: "\(kind.rawValue)|" + fingerprint(record, context: context))
            }
            let reason: String
            switch record.trustVerdict {
            case nil: return .neutral
            case .trusted: return .good
            case .untrusted(let kind): reason = kind
            }
            if pinFailureKinds.contains(reason) { return .good }
            var message = "untrusted certificate on \(endpoint)\(addressSuffix(context, where: \.untrusted)) (\(reason))"
            if let detail = firstLine(record.errorMessage) { message += ": \(detail)" }
            return .bad(message: message, fingerprint: fingerprint(record, context: context))
        case .certExpiring:
            return certificateExpiry(record, rule: rule, context: context, now: now)
        case .pinsExpiring:
            return pinsExpiring(rule: rule, context: context, now: now)
        case .pinsExpired:
            return pinsExpired(context: context, now: now)
        case .keyChanged:
            return keyChange(record, previous: previousLeafKey, context: context)
        case .targetDown:
            switch record.outcome {
            case .ok: return .good
            case .skipped: return .neutral
            case .failed:
                var message = "\(context.target) is down"
                if let kind = record.errorKind { message += " (\(kind.rawValue))" }
                if let detail = firstLine(record.errorMessage) { message += ": \(detail)" }
                return .bad(message: message, fingerprint: "down")
            }
        }
    }

    /// The rule that explains why `record` failed more precisely than `target_down`: a pin mismatch, another trust
    /// failure (an insecure redirect included), or a leaf closer to expiry than the target's `min_cert_validity`.
    /// Nil for results that did not fail or failed for another reason.
    static func failureCause(_ record: ProbeRecord, context: AlertContext, now: Timestamp) -> AlertRuleKind? {
        guard record.outcome == .failed, let kind = record.errorKind else { return nil }
        switch kind {
        case .insecureRedirect, .starttlsUnavailable:
            return .trustFailure
        case .trust:
            if record.pinVerdict?.isMismatch == true { return .pinMismatch }
            if let reason = record.trustVerdict?.reason, pinFailureKinds.contains(reason) { return .pinMismatch }
            return .trustFailure
        case .expectation:
            guard let minimum = context.minCertificateValidity, let leaf = record.servedChain.first else { return nil }
            let left = leaf.notAfter.milliseconds - now.milliseconds
            return left < ConfigDuration.milliseconds(minimum) ? .certExpiring : nil
        default:
            return nil
        }
    }

    /// Served chain, known pins and verdicts: what makes two reports identical (TrustKit's dedupe key).
    static func fingerprint(_ record: ProbeRecord, context: AlertContext) -> String {
        [record.servedChain.map(\.sha256).joined(separator: ","), context.knownPins.joined(separator: ","),
         record.trustVerdict?.description ?? "", record.pinVerdict?.rawValue ?? ""].joined(separator: "|")
            + (context.addresses.isEmpty ? "" : "|" + addressFingerprint(context))
    }

    static func firstLine(_ text: String?) -> String? {
        guard let line = text?.split(whereSeparator: \.isNewline).first else { return nil }
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : String(trimmed.prefix(300))
    }
}
