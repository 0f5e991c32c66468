import Foundation

extension ProbeResult: Encodable {
    /// What a result keeps beyond the columns of a probe row: the store writes it as the row's `details` JSON and the
    /// export emits it as `details`, so `netvigil probe --json` and the export agree key for key.
    public struct Details: Sendable, Encodable, Equatable {
        /// The URL after redirects, when it differs from `url`.
        public var finalURL: String?
        /// Followed redirect hops.
        public var redirects: [Redirect]?
        /// Every failed expectation.
        public var expectationFailures: [String]?
        /// The TLS alert of a `tlsHandshake` error.
        public var alert: String?
        /// The phase of a `timeout` error.
        public var phase: String?
        /// The trust evaluation's explanation.
        public var trustMessage: String?
        /// The configured pins that matched (pin verdict `matched`): what the target page marks in the chain.
        public var matchedPins: [String]?
        /// The `ServiceScheme` of a non-HTTP target (`smtp`, `ldaps`, `tls`, ...).
        public var scheme: String?
        /// The `starttls` phase (greeting and negotiation before TLS) in milliseconds.
        public var starttlsMilliseconds: Double?

        enum CodingKeys: String, CodingKey {
            case finalURL = "final_url", redirects, expectationFailures = "expectation_failures", alert, phase
            case trustMessage = "trust_message", matchedPins = "matched_pins", scheme, starttlsMilliseconds = "starttls_ms"
        }

        /// True when there is nothing to keep.
        public var isEmpty: Bool { self == Details() }
    }

    /// The details of this result (see `Details`).
    public var details: Details {
        Details(finalURL: finalURL == url ? nil : finalURL, redirects: redirects.isEmpty ? nil : redirects,
                expectationFailures: expectationFailures.isEmpty ? nil : expectationFailures,
                alert: error?.alert, phase: error?.phase, trustMessage: trustMessage,
                matchedPins: matchedPins.isEmpty ? nil : matchedPins,
                scheme: URL(string: url).flatMap(ServiceScheme.init(url:))?.rawValue, starttlsMilliseconds: timings.starttls)
    }

    /// `details` as a compact JSON object with sorted keys; nil when empty.
    public var detailsJSON: String? {
        let details = details
        guard !details.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(details) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    private enum CodingKeys: String, CodingKey {
        case time, url, finalURL = "final_url", outcome, error, http, timings = "timings_ms", tls
        case trustVerdict = "trust_verdict", pinVerdict = "pin_verdict", resolvedAddress = "resolved_address"
        case redirectCount = "redirect_count", servedChain = "served_chain", validatedChain = "validated_chain", details
        case findings, interface, interfaceKind = "interface_kind"
    }

    private enum HTTPKeys: String, CodingKey {
        case status, version, contentType = "content_type", contentLength = "content_length"
    }

    private enum TimingKeys: String, CodingKey {
        case resolve, connect, proxy, tls, revocation, processing, transfer, total
    }

    /// Every key is present (null when the probe did not get that far), as in an export probe row.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.rfc3339(startedAt), forKey: .time)
        try container.encode(url, forKey: .url)
        try container.encode(finalURL, forKey: .finalURL)
        try container.encode(outcome.rawValue, forKey: .outcome)
        try container.encode(error, forKey: .error)
        if let status {
            var http = container.nestedContainer(keyedBy: HTTPKeys.self, forKey: .http)
            try http.encode(status, forKey: .status)
            try http.encode(httpVersion, forKey: .version)
            try http.encode(contentType, forKey: .contentType)
            try http.encode(contentLength, forKey: .contentLength)
        } else {
            try container.encodeNil(forKey: .http)
        }
        // Every phase, null when a phase did not run (`PhaseTimings`' own coding leaves those out).
        var phases = container.nestedContainer(keyedBy: TimingKeys.self, forKey: .timings)
        try phases.encode(timings.resolve, forKey: .resolve)
        try phases.encode(timings.connect, forKey: .connect)
        try phases.encode(timings.proxy, forKey: .proxy)
        try phases.encode(timings.tls, forKey: .tls)
        try phases.encode(timings.revocation, forKey: .revocation)
        try phases.encode(timings.processing, forKey: .processing)
        try phases.encode(timings.transfer, forKey: .transfer)
        try phases.encode(timings.total, forKey: .total)
        try container.encode(tls, forKey: .tls)
        try container.encode(trustVerdict, forKey: .trustVerdict)
        try container.encode(pinVerdict, forKey: .pinVerdict)
        try container.encode(resolvedAddress, forKey: .resolvedAddress)
        try container.encode(interface, forKey: .interface)
        try container.encode(interfaceKind, forKey: .interfaceKind)
        try container.encode(redirects.count, forKey: .redirectCount)
        try container.encode(servedChain, forKey: .servedChain)
        try container.encode(validatedChain, forKey: .validatedChain)
        try container.encode(findings, forKey: .findings)
        let details = details
        if details.isEmpty { try container.encodeNil(forKey: .details) } else { try container.encode(details, forKey: .details) }
    }

    /// RFC 3339, UTC, milliseconds: the export's time format.
    static func rfc3339(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension ProbeResult.TLS: Encodable {
    private enum CodingKeys: String, CodingKey { case version, cipher, alpn }

    /// `alpn` is null when none was negotiated.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(cipher, forKey: .cipher)
        try container.encode(alpn, forKey: .alpn)
    }
}

extension ProbeResult.ChainCertificate: Encodable {
    private enum CodingKeys: String, CodingKey {
        case subject, issuer, serial, notBefore = "not_before", notAfter = "not_after", sha256, spkiPin = "spki_pin", pem
    }

    /// The export's certificate keys plus `serial`, `not_before` and `pem`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(subject, forKey: .subject)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(serial, forKey: .serial)
        try container.encode(ProbeResult.rfc3339(notBefore), forKey: .notBefore)
        try container.encode(ProbeResult.rfc3339(notAfter), forKey: .notAfter)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(spkiPin, forKey: .spkiPin)
        try container.encode(pem, forKey: .pem)
    }
}
