/// A security policy that cannot be used: reported when the policy is loaded, never at evaluation time.
public enum PolicyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `allowInvalidCertificates` with `validatesDomainName` but nothing that enforces trust (no pinning, no pins,
    /// or report-only pins). AFNetworking only logged this and then failed every request.
    case domainValidationOfInvalidCertificatesRequiresPinning
    /// A pinning mode without any pinned certificate or pin.
    case pinningWithoutPins(SecurityPolicy.PinningMode)
    /// `certificate` pinning needs pinned certificates; SPKI hashes alone cannot serve as anchors.
    case certificatePinningRequiresCertificates
    /// Pins, pinned certificates or a pin expiry were given while pinning is `none`: they would be ignored silently.
    case pinsIgnoredWithoutPinningMode
    /// A pinned certificate could not be loaded.
    case pinnedCertificate(CertificateError)
    /// A pin string is malformed.
    case invalidPin(PinParseError)

    public var description: String {
        switch self {
        case .domainValidationOfInvalidCertificatesRequiresPinning:
            return "allowInvalidCertificates with validatesDomainName requires enforcing pins: validating the domain "
                + "of a self-signed or otherwise invalid certificate is meaningless without pinning "
                + "(set pinning to certificate or publicKey with pins and without reportOnly, or turn off validatesDomainName)"
        case .pinningWithoutPins(let mode):
            return "pinning mode \(mode.rawValue) has no pins: add pinned certificates or sha256/ pins, or set pinning to none"
        case .certificatePinningRequiresCertificates:
            return "certificate pinning needs pinned certificate files; sha256/ pins alone only work with publicKey pinning"
        case .pinsIgnoredWithoutPinningMode:
            return "pins, pinned certificates or pinsExpire are set but pinning is none, so they would be ignored: "
                + "set pinning to certificate or publicKey, or remove them"
        case .pinnedCertificate(let error):
            return "pinned certificate: \(error)"
        case .invalidPin(let error):
            return error.description
        }
    }
}

/// Something legal but risky in a policy; reported, not refused.
public enum PolicyWarning: Sendable, Hashable, Codable, CustomStringConvertible {
    /// An enforcing policy with fewer than two distinct pins: a key rotation will lock the client out.
    case noBackupPin(count: Int)

    public var description: String {
        switch self {
        case .noBackupPin(let count):
            return "enforcing policy has \(count) pin\(count == 1 ? "" : "s"): configure a backup pin (a key not yet in use; "
                + "`netvigil pin KEY-or-CSR` prints its pin) so that a key rotation does not fail every connection"
        }
    }
}
