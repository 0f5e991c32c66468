import NetVigilProbeModel

/// How a probe ended.
public enum ProbeOutcome: String, Sendable, Codable, CaseIterable {
    /// Every check passed.
    case ok
    /// A check failed; `errorKind` says which.
    case failed
    /// Not attempted because the target was not reachable (no failure, no alert).
    case skipped
}

/// One probe result as stored in `probe_results` (the store's view; the agent maps the request stack's result here).
/// Its values by column: `ProbeRecord+Columns.swift`.
public struct ProbeRecord: Sendable, Equatable, Codable {
    public var time: Timestamp
    public var target: String
    public var url: String?
    public var outcome: ProbeOutcome
    /// Why it failed (or was skipped); nil when ok.
    public var errorKind: ProbeErrorKind?
    public var errorMessage: String?
    public var httpStatus: Int?
    public var httpVersion: String?
    public var contentType: String?
    public var contentLength: Int64?
    public var timings: PhaseTimings
    public var tlsVersion: String?
    public var tlsCipher: String?
    public var alpn: String?
    /// Trust verdict; nil without TLS.
    public var trustVerdict: TrustSummary?
    /// Pin verdict; nil without TLS.
    public var pinVerdict: PinVerdict?
    /// Reachability status of the target's host at probe time.
    public var reachabilityStatus: String?
    public var resolvedAddress: String?
    public var redirectCount: Int
    /// The chain as the server sent it, leaf first.
    public var servedChain: [CertificateRecord]
    /// The chain as validated, leaf → anchor.
    public var validatedChain: [CertificateRecord]
    /// Baseline Requirements findings of the served chain (warnings; the verdict is unchanged); nil without a trust
    /// verdict (no TLS, or the probe failed before the chain was judged), empty when the chain has none.
    public var findings: [TrustFinding]?
    /// Extra detail as a JSON object text (expectation failures, redirect hops, ...).
    public var detailsJSON: String?
    /// The interface of the result's network path (`source:` targets); nil over the kernel's default route.
    public var interface: String? = nil
    /// That interface's kind (`ethernet`, `wifi`, `wwan`, `vpn`, ...).
    public var interfaceKind: String? = nil

    public init(time: Timestamp, target: String, url: String? = nil, outcome: ProbeOutcome,
                errorKind: ProbeErrorKind? = nil, errorMessage: String? = nil, httpStatus: Int? = nil,
                httpVersion: String? = nil, contentType: String? = nil, contentLength: Int64? = nil,
                timings: PhaseTimings = PhaseTimings(), tlsVersion: String? = nil, tlsCipher: String? = nil,
                alpn: String? = nil, trustVerdict: TrustSummary? = nil, pinVerdict: PinVerdict? = nil,
                reachabilityStatus: String? = nil, resolvedAddress: String? = nil, redirectCount: Int = 0,
                servedChain: [CertificateRecord] = [], validatedChain: [CertificateRecord] = [],
                findings: [TrustFinding]? = nil, detailsJSON: String? = nil) {
        self.time = time
        self.target = target
        self.url = url
        self.outcome = outcome
        self.errorKind = errorKind
        self.errorMessage = errorMessage
        self.httpStatus = httpStatus
        self.httpVersion = httpVersion
        self.contentType = contentType
        self.contentLength = contentLength
        self.timings = timings
        self.tlsVersion = tlsVersion
        self.tlsCipher = tlsCipher
        self.alpn = alpn
        self.trustVerdict = trustVerdict
        self.pinVerdict = pinVerdict
        self.reachabilityStatus = reachabilityStatus
        self.resolvedAddress = resolvedAddress
        self.redirectCount = redirectCount
        self.servedChain = servedChain
        self.validatedChain = validatedChain
        self.findings = findings
        self.detailsJSON = detailsJSON
    }
}
