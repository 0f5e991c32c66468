import Foundation

/// Why a served chain is not trusted, in the spirit of Alamofire's `ServerTrustFailureReason`.
public enum ServerTrustFailureReason: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server sent no certificate.
    case noCertificates
    /// OpenSSL refused the chain: verify error code (`X509_V_ERR_*`), depth (0 = leaf) and OpenSSL's text,
    /// e.g. "certificate has expired".
    case chainInvalid(code: Int32, depth: Int32, text: String)
    /// A certificate of the validated chain is revoked (CRL or OCSP): which one, serial, reason code and time.
    case revoked(CertificateRevocation)
    /// `revocation: hard`: the revocation status of a certificate could not be learned (source unreachable, stale,
    /// oversized or badly signed).
    case revocationUnknown(String)
    /// The leaf is not valid for the host: the expected host and the names the leaf presents.
    case hostnameMismatch(expected: String, presented: [String])
    /// Certificate pinning: no certificate of the validated chain is a pinned certificate.
    case certificatePinMismatch(PinMismatch)
    /// Public-key pinning: no eligible certificate carries a pinned key.
    case publicKeyPinMismatch(PinMismatch)
    /// `webpki`: a subjectAltName the leaf presents is not a valid server name (wildcard placement, wildcard over a
    /// public suffix, underscore, empty label, malformed IP address).
    case invalidServerName(ChainRuleViolation)
    /// `webpki`: a name of the chain lies outside a CA's permitted subtrees or inside its excluded subtrees.
    case nameConstraintViolation(ChainRuleViolation)
    /// `webpki`: basicConstraints, keyUsage or version make a certificate unfit for its place (an issuer that is
    /// not a CA, a leaf that is a CA, pathLen exceeded, keyCertSign missing or on the leaf, a v1 CA).
    case caConstraintViolation(ChainRuleViolation)
    /// `webpki`: extendedKeyUsage does not allow TLS server authentication.
    case extendedKeyUsageViolation(ChainRuleViolation)
    /// `webpki`: a key browsers refuse (RSA under 2048 bits, curves other than P-256/P-384, DSA).
    case weakKey(ChainRuleViolation)
    /// `webpki`: a signature browsers refuse (MD5, SHA-1, unknown algorithm).
    case weakSignature(ChainRuleViolation)
    /// `webpki`: a certificate's encoding breaks RFC 5280 (serial number, duplicate or malformed extension,
    /// missing key identifier).
    case malformedCertificate(ChainRuleViolation)

    /// Stable identifier for storage and JSON: `noCertificates`, `chainInvalid`, `hostnameMismatch`,
    /// `certificatePinMismatch`, `publicKeyPinMismatch`.
    public var kind: String {
        switch self {
        case .noCertificates: return "noCertificates"
        case .chainInvalid: return "chainInvalid"
        case .hostnameMismatch: return "hostnameMismatch"
        case .certificatePinMismatch: return "certificatePinMismatch"
        case .publicKeyPinMismatch: return "publicKeyPinMismatch"
        case .invalidServerName: return "invalidServerName"
        case .nameConstraintViolation: return "nameConstraintViolation"
        case .caConstraintViolation: return "caConstraintViolation"
        case .extendedKeyUsageViolation: return "extendedKeyUsageViolation"
        case .weakKey: return "weakKey"
        case .weakSignature: return "weakSignature"
        case .malformedCertificate: return "malformedCertificate"
        case .revoked: return "revoked"
        case .revocationUnknown: return "revocationUnknown"
        }
    }

    /// The broken `webpki` rule, for the reasons of that profile.
    public var ruleViolation: ChainRuleViolation? {
        switch self {
        case .invalidServerName(let violation), .nameConstraintViolation(let violation),
             .caConstraintViolation(let violation), .extendedKeyUsageViolation(let violation),
             .weakKey(let violation), .weakSignature(let violation), .malformedCertificate(let violation):
            return violation
        case .noCertificates, .chainInvalid, .hostnameMismatch, .certificatePinMismatch, .publicKeyPinMismatch,
             .revoked, .revocationUnknown:
            return nil
        }
    }

    /// Builds the reason of `kind` (one of the `webpki` kinds) around `violation`; nil for other kinds.
    static func ruleViolation(kind: String, _ violation: ChainRuleViolation) -> ServerTrustFailureReason? {
        switch kind {
        case "invalidServerName": return .invalidServerName(violation)
        case "nameConstraintViolation": return .nameConstraintViolation(violation)
        case "caConstraintViolation": return .caConstraintViolation(violation)
        case "extendedKeyUsageViolation": return .extendedKeyUsageViolation(violation)
        case "weakKey": return .weakKey(violation)
        case "weakSignature": return .weakSignature(violation)
        case "malformedCertificate": return .malformedCertificate(violation)
        default: return nil
        }
    }

    /// True for the two pin mismatches.
    public var isPinMismatch: Bool {
        switch self {
        case .certificatePinMismatch, .publicKeyPinMismatch: return true
        default: return false
        }
    }

    /// Human text; for pin mismatches the OkHttp-style listing of served and configured pins (what alerts carry).
    public var message: String {
        switch self {
        case .noCertificates:
            return "the server sent no certificate"
        case .chainInvalid(let code, let depth, let text):
            return "certificate chain invalid: \(text) (OpenSSL verify error \(code) at depth \(depth))"
        case .hostnameMismatch(let expected, let presented):
            guard !presented.isEmpty else {
                // A commonName alone: browsers, Go and rustls match only subjectAltNames (RFC 6125 6.4.4).
                return "host name mismatch: certificate is not valid for \(expected) (it has no subjectAltName, and TLS clients no longer match a host against the commonName: reissue it with \(expected) in its subjectAltName)"
            }
            return "host name mismatch: certificate is not valid for \(expected) (it presents \(presented.joined(separator: ", ")))"
        case .certificatePinMismatch(let mismatch), .publicKeyPinMismatch(let mismatch):
            return mismatch.message
        case .invalidServerName(let violation), .nameConstraintViolation(let violation),
             .caConstraintViolation(let violation), .extendedKeyUsageViolation(let violation),
             .weakKey(let violation), .weakSignature(let violation), .malformedCertificate(let violation):
            return "certificate refused by the webpki profile: \(violation)"
        case .revoked(let revocation):
            return revocation.message
        case .revocationUnknown(let why):
            return "revocation status unknown (revocation: hard): \(why)"
        }
    }

    public var description: String { message }
}

/// The details of a pin mismatch: what was served and what was pinned.
public struct PinMismatch: Sendable, Hashable, Codable {
    /// One served certificate as a mismatch report lists it.
    public struct Entry: Sendable, Hashable, Codable {
        /// `sha256/BASE64` of the certificate's public key.
        public let pin: SPKIPin
        /// Subject, one line.
        public let subject: String
    }

    /// The pinning mode that failed.
    public let mode: SecurityPolicy.PinningMode
    /// The host evaluated, if any.
    public let host: String?
    /// The served chain, leaf first.
    public let servedChain: [Entry]
    /// Pinned certificates (for certificate pinning) with their key pins.
    public let pinnedCertificates: [Entry]
    /// The configured public-key pins (keys of pinned certificates plus explicit pins).
    public let configuredPins: [SPKIPin]
    /// For public-key pinning with invalid certificates allowed: only the leaf key was eligible.
    public let leafOnly: Bool

    /// OkHttp's format:
    /// ```
    /// Certificate pinning failure!
    ///   Peer certificate chain:
    ///     sha256/...: CN=...
    ///   Pinned certificates for host:
    ///     sha256/...
    /// ```
    public var message: String {
        let target = host ?? "this server"
        var lines = [mode == .certificate
            ? "Certificate pinning failure for \(target): no certificate of the validated chain is pinned"
            : "Public-key pinning failure for \(target): no \(leafOnly ? "leaf key (invalid certificates are allowed, so only the leaf key counts)" : "key of the validated chain") is pinned"]
        lines.append("  Peer certificate chain:")
        lines += servedChain.map { "    \($0.pin): \($0.subject)" }
        lines.append("  Pinned certificates for \(target):")
        if mode == .certificate {
            lines += pinnedCertificates.map { "    \($0.pin): \($0.subject)" }
        } else {
            lines += configuredPins.map { "    \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}

extension ServerTrustFailureReason: Codable {
    enum CodingKeys: String, CodingKey {
        case kind, message, code, depth, text, expected, presented, mismatch, violation, revocation, detail
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        switch kind {
        case "noCertificates":
            self = .noCertificates
        case "chainInvalid":
            self = .chainInvalid(code: try container.decode(Int32.self, forKey: .code),
                                 depth: try container.decode(Int32.self, forKey: .depth),
                                 text: try container.decode(String.self, forKey: .text))
        case "hostnameMismatch":
            self = .hostnameMismatch(expected: try container.decode(String.self, forKey: .expected),
                                     presented: try container.decode([String].self, forKey: .presented))
        case "certificatePinMismatch":
            self = .certificatePinMismatch(try container.decode(PinMismatch.self, forKey: .mismatch))
        case "publicKeyPinMismatch":
            self = .publicKeyPinMismatch(try container.decode(PinMismatch.self, forKey: .mismatch))
        case "revoked":
            self = .revoked(try container.decode(CertificateRevocation.self, forKey: .revocation))
        case "revocationUnknown":
            self = .revocationUnknown(try container.decode(String.self, forKey: .detail))
        default:
            if let violation = try container.decodeIfPresent(ChainRuleViolation.self, forKey: .violation),
               let reason = Self.ruleViolation(kind: kind, violation) {
                self = reason
                return
            }
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "unknown reason kind \(kind)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(message, forKey: .message)
        switch self {
        case .noCertificates:
            break
        case .chainInvalid(let code, let depth, let text):
            try container.encode(code, forKey: .code)
            try container.encode(depth, forKey: .depth)
            try container.encode(text, forKey: .text)
        case .hostnameMismatch(let expected, let presented):
            try container.encode(expected, forKey: .expected)
            try container.encode(presented, forKey: .presented)
        case .certificatePinMismatch(let mismatch), .publicKeyPinMismatch(let mismatch):
            try container.encode(mismatch, forKey: .mismatch)
        case .invalidServerName(let violation), .nameConstraintViolation(let violation),
             .caConstraintViolation(let violation), .extendedKeyUsageViolation(let violation),
             .weakKey(let violation), .weakSignature(let violation), .malformedCertificate(let violation):
            try container.encode(violation, forKey: .violation)
        case .revoked(let revocation):
            try container.encode(revocation, forKey: .revocation)
        case .revocationUnknown(let detail):
            try container.encode(detail, forKey: .detail)
        }
    }
}
