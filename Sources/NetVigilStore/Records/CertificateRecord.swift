/// A certificate as the store keeps it: deduplicated by the SHA-256 of its DER encoding.
public struct CertificateRecord: Sendable, Hashable, Codable {
    /// Lower-case hex SHA-256 of the DER encoding (the dedup key).
    public var sha256: String
    /// PEM encoding.
    public var pem: String
    public var subject: String
    public var issuer: String
    /// Serial number in hex.
    public var serial: String
    public var notBefore: Timestamp
    public var notAfter: Timestamp
    /// SPKI pin, `sha256/BASE64`.
    public var spkiPin: String

    public init(sha256: String, pem: String, subject: String, issuer: String, serial: String,
                notBefore: Timestamp, notAfter: Timestamp, spkiPin: String) {
        self.sha256 = sha256
        self.pem = pem
        self.subject = subject
        self.issuer = issuer
        self.serial = serial
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.spkiPin = spkiPin
    }
}
