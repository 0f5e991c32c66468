import Foundation
import NetVigilProbeModel
import NetVigilTrust

/// Everything one probe found out. Its JSON form (`netvigil probe --json`, see `ProbeResult+JSON.swift`) uses the
/// keys of a probe row in the history export; `deploy/schemas/probe-result.schema.json` describes it.
public struct ProbeResult: Sendable {
    /// ok or failed.
    public enum Outcome: String, Sendable, Codable {
        case ok, failed
    }

    /// One followed redirect.
    public struct Redirect: Sendable, Codable, Equatable {
        /// The URL that answered with a redirect.
        public var url: String
        /// Its status.
        public var status: Int
        /// The Location it pointed to (resolved).
        public var location: String

        /// Makes a hop.
        public init(url: String, status: Int, location: String) {
            self.url = url
            self.status = status
            self.location = location
        }
    }

    /// The negotiated TLS parameters.
    public struct TLS: Sendable, Equatable {
        public var version: String
        public var cipher: String
        public var alpn: String?

        /// Makes TLS parameters.
        public init(version: String, cipher: String, alpn: String?) {
            self.version = version
            self.cipher = cipher
            self.alpn = alpn
        }
    }

    /// A certificate as results show it.
    public struct ChainCertificate: Sendable, Equatable {
        public var subject: String
        public var issuer: String
        public var serial: String
        public var notBefore: Date
        public var notAfter: Date
        /// SHA-256 of the DER, lower-case hex.
        public var sha256: String
        /// `sha256/BASE64`.
        public var spkiPin: String
        public var pem: String

        /// Summarises a certificate.
        public init(_ certificate: Certificate) {
            subject = certificate.subject
            issuer = certificate.issuer
            serial = certificate.serialNumber
            notBefore = certificate.notBefore
            notAfter = certificate.notAfter
            sha256 = certificate.sha256Fingerprint
            spkiPin = certificate.spkiPin.description
            pem = certificate.pem
        }
    }

    /// The URL probed (before redirects).
    public var url: String
    /// The final URL (after redirects).
    public var finalURL: String
    /// Wall-clock start.
    public var startedAt: Date
    public var outcome: Outcome
    /// Why it failed, nil when ok.
    public var error: ProbeError?
    /// Every failed expectation (the first is also in `error`).
    public var expectationFailures: [String]
    public var timings: PhaseTimings
    /// The address connected to (last hop).
    public var resolvedAddress: String?
    /// The interface the connections were bound to (`source: { interface: }`), or the path's interface as the
    /// agent's reachability check found it; nil for the kernel's default route.
    public var interface: String?
    /// That interface's kind (`ethernet`, `wifi`, `wwan`, `vpn`, ...), when known.
    public var interfaceKind: String?
    public var httpVersion: String?
    public var status: Int?
    public var contentType: String?
    /// Body bytes received (last hop).
    public var contentLength: Int?
    public var redirects: [Redirect]
    public var tls: TLS?
    /// As served, leaf first (last TLS hop).
    public var servedChain: [ChainCertificate]
    /// As validated, leaf → anchor.
    public var validatedChain: [ChainCertificate]
    /// `trusted` or `untrusted:<kind>`; nil without TLS.
    public var trustVerdict: TrustSummary?
    /// What happened to the pins; nil without TLS.
    public var pinVerdict: PinVerdict?
    /// The trust evaluation's explanation; nil without TLS.
    public var trustMessage: String?
    /// The configured pins (`sha256/BASE64`) that matched a certificate of the chain, when the pin verdict is
    /// `matched`; empty otherwise.
    public var matchedPins: [String] = []
    /// Baseline Requirements findings of the served chain (never change the verdict); empty without TLS.
    public var findings: [TrustFinding] = []

    /// An empty result for `url`, started now.
    public init(url: String, startedAt: Date = Date()) {
        self.url = url
        self.finalURL = url
        self.startedAt = startedAt
        self.outcome = .ok
        self.error = nil
        self.expectationFailures = []
        self.timings = PhaseTimings()
        self.redirects = []
        self.servedChain = []
        self.validatedChain = []
    }

    /// True when ok.
    public var isOK: Bool { outcome == .ok }
}
