import Foundation

/// How a served chain is judged: AFSecurityPolicy's semantics with its holes fixed (see docs/trust.md).
///
/// A value is always usable: every inconsistent combination is refused by `init` with a `PolicyError`.
public struct SecurityPolicy: Sendable, Hashable {
    /// AFSSLPinningMode.
    public enum PinningMode: String, Sendable, Hashable, Codable, CaseIterable {
        /// Only the chain (and host) decide.
        case none
        /// The pinned certificates are the anchors; the validated chain must contain one of them (DER equality).
        case certificate
        /// The validated chain (only the leaf when invalid certificates are allowed) must contain a pinned key.
        case publicKey
    }

    /// The pinning mode.
    public let pinning: PinningMode
    /// Accept chains that do not validate (untrusted root, expired, ...). Default false.
    public let allowInvalidCertificates: Bool
    /// Check the host name against the leaf. Default true.
    public let validatesDomainName: Bool
    /// Pinned certificates (anchors for `certificate`, key sources for `publicKey`).
    public let pinnedCertificates: [Certificate]
    /// Extra public-key pins (`sha256/BASE64`).
    public let pins: [SPKIPin]
    /// Record a pin mismatch without failing the evaluation. An invalid chain still fails.
    public let reportOnly: Bool
    /// After this instant pins are ignored and the chain is judged as with `none`.
    public let pinsExpire: Date?
    /// How strictly chains are validated (`webpki` unless configured).
    public let validation: ValidationProfile
    /// Revocation checking (`soft` with no CRL files unless configured).
    public let revocation: RevocationPolicy
    /// Legal but risky choices, e.g. no backup pin.
    public let warnings: [PolicyWarning]

    /// Validates and builds a policy.
    public init(
        pinning: PinningMode = .none,
        allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true,
        pinnedCertificates: [Certificate] = [],
        pins: [SPKIPin] = [],
        reportOnly: Bool = false,
        pinsExpire: Date? = nil,
        validation: ValidationProfile = .default,
        revocation: RevocationPolicy = .default
    ) throws(PolicyError) {
        var uniqueCertificates: [Certificate] = []
        for certificate in pinnedCertificates where !uniqueCertificates.contains(certificate) {
            uniqueCertificates.append(certificate)
        }
        var uniquePins: [SPKIPin] = []
        for pin in pins where !uniquePins.contains(pin) {
            uniquePins.append(pin)
        }
        let hasPins = !uniqueCertificates.isEmpty || !uniquePins.isEmpty
        switch pinning {
        case .none:
            if hasPins || pinsExpire != nil { throw .pinsIgnoredWithoutPinningMode }
        case .certificate:
            if !hasPins { throw .pinningWithoutPins(pinning) }
            if uniqueCertificates.isEmpty { throw .certificatePinningRequiresCertificates }
        case .publicKey:
            if !hasPins { throw .pinningWithoutPins(pinning) }
        }
        if allowInvalidCertificates && validatesDomainName && (pinning == .none || reportOnly) {
            throw .domainValidationOfInvalidCertificatesRequiresPinning
        }
        self.pinning = pinning
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.pinnedCertificates = uniqueCertificates
        self.pins = uniquePins
        self.reportOnly = reportOnly
        self.pinsExpire = pinsExpire
        self.validation = validation
        self.revocation = revocation

        var warnings: [PolicyWarning] = []
        if pinning != .none && !reportOnly {
            let count = pinning == .certificate ? uniqueCertificates.count : Set(uniqueCertificates.map(\.spkiPin) + uniquePins).count
            if count < 2 { warnings.append(.noBackupPin(count: count)) }
        }
        self.warnings = warnings
    }

    /// Builds a policy from configuration text: pinned certificate files or directories and pin strings.
    public init(
        pinning: PinningMode = .none,
        allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true,
        pinnedCertificatePaths: [String],
        pinStrings: [String] = [],
        reportOnly: Bool = false,
        pinsExpire: Date? = nil,
        validation: ValidationProfile = .default
    ) throws(PolicyError) {
        let certificates: [Certificate]
        do {
            certificates = try Certificate.load(paths: pinnedCertificatePaths)
        } catch {
            throw .pinnedCertificate(error)
        }
        var pins: [SPKIPin] = []
        for text in pinStrings {
            do {
                pins.append(try SPKIPin(parsing: text))
            } catch {
                throw .invalidPin(error)
            }
        }
        try self.init(pinning: pinning, allowInvalidCertificates: allowInvalidCertificates,
                      validatesDomainName: validatesDomainName, pinnedCertificates: certificates, pins: pins,
                      reportOnly: reportOnly, pinsExpire: pinsExpire, validation: validation)
    }

    /// AFSecurityPolicy.defaultPolicy: no pinning, invalid certificates refused, domain names validated.
    public static let `default`: SecurityPolicy = try! SecurityPolicy()

    /// Every configured public-key pin: the keys of the pinned certificates, then `pins`, without duplicates.
    public var configuredPins: [SPKIPin] {
        var result: [SPKIPin] = []
        for pin in pinnedCertificates.map(\.spkiPin) + pins where !result.contains(pin) {
            result.append(pin)
        }
        return result
    }

    /// True when pins exist and `date` is at or after `pinsExpire`.
    public func pinsHaveExpired(at date: Date) -> Bool {
        guard let pinsExpire else { return false }
        return date >= pinsExpire
    }
}

extension SecurityPolicy: Codable {
    enum CodingKeys: String, CodingKey {
        case pinning
        case allowInvalidCertificates = "allow_invalid_certificates"
        case validatesDomainName = "validates_domain_name"
        case pinnedCertificates = "pinned_certificates"
        case pins
        case reportOnly = "report_only"
        case pinsExpire = "pins_expire"
        case validation
    }

    /// Decodes and validates; an inconsistent policy fails decoding with the `PolicyError` message.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let pinning = try container.decodeIfPresent(PinningMode.self, forKey: .pinning) ?? .none
        let allowInvalid = try container.decodeIfPresent(Bool.self, forKey: .allowInvalidCertificates) ?? false
        let validates = try container.decodeIfPresent(Bool.self, forKey: .validatesDomainName) ?? true
        let certificates = try container.decodeIfPresent([Certificate].self, forKey: .pinnedCertificates) ?? []
        let pins = try container.decodeIfPresent([SPKIPin].self, forKey: .pins) ?? []
        let reportOnly = try container.decodeIfPresent(Bool.self, forKey: .reportOnly) ?? false
        let expire = try container.decodeIfPresent(Date.self, forKey: .pinsExpire)
        let validation = try container.decodeIfPresent(ValidationProfile.self, forKey: .validation) ?? .default
        do {
            try self.init(pinning: pinning, allowInvalidCertificates: allowInvalid, validatesDomainName: validates,
                          pinnedCertificates: certificates, pins: pins, reportOnly: reportOnly, pinsExpire: expire,
                          validation: validation)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pinning, forKey: .pinning)
        try container.encode(allowInvalidCertificates, forKey: .allowInvalidCertificates)
        try container.encode(validatesDomainName, forKey: .validatesDomainName)
        try container.encode(pinnedCertificates, forKey: .pinnedCertificates)
        try container.encode(pins, forKey: .pins)
        try container.encode(reportOnly, forKey: .reportOnly)
        try container.encodeIfPresent(pinsExpire, forKey: .pinsExpire)
        try container.encode(validation, forKey: .validation)
    }
}
