import Foundation
import NetVigilProbeModel

/// The result of judging one served chain for one host under one policy.
public struct TrustEvaluation: Sendable {
    /// Trusted, or not and why.
    public enum Verdict: Sendable, Hashable {
        case trusted
        case untrusted(ServerTrustFailureReason)

        /// True for `trusted`.
        public var isTrusted: Bool {
            if case .trusted = self { return true }
            return false
        }

        /// The failure reason, nil when trusted.
        public var reason: ServerTrustFailureReason? {
            if case .untrusted(let reason) = self { return reason }
            return nil
        }

        /// The form results keep: `trusted` or `untrusted:<kind>` (e.g. `untrusted:chainInvalid`).
        public var summary: TrustSummary {
            switch self {
            case .trusted: .trusted
            case .untrusted(let reason): .untrusted(reason: reason.kind)
            }
        }
    }

    /// Something the caller should know about a verdict that is not a failure.
    public enum Notice: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Pins expired at this instant and were ignored.
        case pinsExpired(since: Date)
        /// The chain did not validate but `allowInvalidCertificates` accepted it.
        case invalidChainAllowed(ServerTrustFailureReason)

        /// Stable identifier: `pinsExpired`, `invalidChainAllowed`.
        public var kind: String {
            switch self {
            case .pinsExpired: return "pinsExpired"
            case .invalidChainAllowed: return "invalidChainAllowed"
            }
        }

        public var description: String {
            switch self {
            case .pinsExpired(let since):
                return "pins expired at \(since.formatted(.iso8601)) and were ignored; the chain was judged without pinning"
            case .invalidChainAllowed(let reason):
                return "invalid chain accepted because allowInvalidCertificates is set (\(reason.message))"
            }
        }
    }

    /// Public-key pins around this evaluation.
    public struct Pins: Sendable, Hashable, Codable {
        /// The policy's pins (keys of pinned certificates plus explicit pins).
        public let configured: [SPKIPin]
        /// The key pins of the served chain, leaf first.
        public let served: [SPKIPin]
        /// The pins of the certificates that matched.
        public let matched: [SPKIPin]
    }

    /// The verdict.
    public let verdict: Verdict
    /// The pin outcome.
    public let pinVerdict: PinVerdict
    /// True when report-only let a pin mismatch through (alert on it).
    public let pinMismatchReported: Bool
    /// The mismatch that report-only let through.
    public let reportedMismatch: ServerTrustFailureReason?
    /// Notices (expired pins, invalid chain allowed).
    public let notices: [Notice]
    /// The host evaluated (nil: no host check requested).
    public let host: String?
    /// The instant the chain was judged at.
    public let evaluatedAt: Date
    /// The chain as the server sent it.
    public let servedChain: [Certificate]
    /// The chain OpenSSL built, leaf → anchor; empty when no chain validated.
    public let validatedChain: [Certificate]
    /// Pins configured, served and matched.
    public let pins: Pins
    /// Subject of the certificate a `chainInvalid` reason is about, when known.
    public let failedSubject: String?
    /// What the Baseline Requirements forbid but clients accept, in the served chain; never changes the verdict.
    public var findings: [TrustFinding] = []

    /// Shorthand for `verdict.isTrusted`.
    public var isTrusted: Bool { verdict.isTrusted }

    /// One human paragraph: the verdict, the reason or matched pin, and notices.
    public var message: String {
        var parts: [String] = []
        switch verdict {
        case .trusted:
            var line = "trusted"
            if let host { line += " for \(host)" }
            if !validatedChain.isEmpty, let anchor = validatedChain.last {
                line += ": chain validated to \(anchor.subject)"
            } else {
                line += ": chain not validated"
            }
            if !pins.matched.isEmpty {
                line += "; pinned key matched: " + pins.matched.map(\.description).joined(separator: ", ")
            }
            parts.append(line)
            if let reportedMismatch {
                parts.append("report-only pin mismatch:\n" + reportedMismatch.message)
            }
        case .untrusted(let reason):
            var line = "untrusted"
            if let host { line += " for \(host)" }
            line += ": " + reason.message
            if case .chainInvalid = reason, let failedSubject {
                line += " [\(failedSubject)]"
            }
            parts.append(line)
        }
        parts += notices.map(\.description)
        return parts.joined(separator: "\n")
    }
}
