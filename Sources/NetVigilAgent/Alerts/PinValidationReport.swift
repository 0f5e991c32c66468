import Foundation
import NetVigilStore

/// The `report` of an alert: the fields of an RFC 7469 §3 pin validation failure report.
public struct PinValidationReport: Sendable, Codable, Equatable {
    /// When the chain was seen (the probe's start).
    public var dateTime: Timestamp
    public var hostname: String
    public var port: Int
    /// When the pins stop being enforced; null when they do not expire.
    public var effectiveExpirationDate: Timestamp?
    public var includeSubdomains: Bool
    /// The policy's host pattern (or the host).
    public var notedHostname: String
    /// The chain the server sent, leaf first, as PEM.
    public var servedCertificateChain: [String]
    /// The chain as validated, leaf → anchor, as PEM; empty when none validated.
    public var validatedCertificateChain: [String]
    /// The known pins in RFC 7469 form: `pin-sha256="BASE64"`.
    public var knownPins: [String]
    /// `addresses: all`: each address whose chain failed (pin mismatch or untrusted) with the chains it served
    /// and validated; absent for one-address targets.
    public var addresses: [AddressChains]? = nil

    enum CodingKeys: String, CodingKey {
        case dateTime = "date-time"
        case hostname, port
        case effectiveExpirationDate = "effective-expiration-date"
        case includeSubdomains = "include-subdomains"
        case notedHostname = "noted-hostname"
        case servedCertificateChain = "served-certificate-chain"
        case validatedCertificateChain = "validated-certificate-chain"
        case knownPins = "known-pins"
        case addresses
    }

    public init(dateTime: Timestamp, hostname: String, port: Int, effectiveExpirationDate: Timestamp?,
                includeSubdomains: Bool, notedHostname: String, servedCertificateChain: [String],
                validatedCertificateChain: [String], knownPins: [String]) {
        self.dateTime = dateTime
        self.hostname = hostname
        self.port = port
        self.effectiveExpirationDate = effectiveExpirationDate
        self.includeSubdomains = includeSubdomains
        self.notedHostname = notedHostname
        self.servedCertificateChain = servedCertificateChain
        self.validatedCertificateChain = validatedCertificateChain
        self.knownPins = knownPins
    }

    /// The report for one probe result of a target.
    public init(record: ProbeRecord, context: AlertContext) {
        self.init(dateTime: record.time, hostname: context.host, port: context.port,
                  effectiveExpirationDate: context.pinsExpire.map(Timestamp.init), includeSubdomains: context.includeSubdomains,
                  notedHostname: context.notedHostname, servedCertificateChain: record.servedChain.map(\.pem),
                  validatedCertificateChain: record.validatedChain.map(\.pem),
                  knownPins: context.knownPins.map(Self.rfc7469Pin))
        let failing = context.addresses.filter { $0.pinMismatch || $0.untrusted }
        if !failing.isEmpty { addresses = failing.map(AddressChains.init) }
    }

    /// `sha256/BASE64` → `pin-sha256="BASE64"` (other text is kept, quoted the same way).
    public static func rfc7469Pin(_ pin: String) -> String {
        let base64 = pin.hasPrefix("sha256/") ? String(pin.dropFirst("sha256/".count)) : pin
        return "pin-sha256=\"\(base64)\""
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(dateTime, forKey: .dateTime)
        try container.encode(hostname, forKey: .hostname)
        try container.encode(port, forKey: .port)
        try container.encode(effectiveExpirationDate, forKey: .effectiveExpirationDate)  // null when absent
        try container.encode(includeSubdomains, forKey: .includeSubdomains)
        try container.encode(notedHostname, forKey: .notedHostname)
        try container.encode(servedCertificateChain, forKey: .servedCertificateChain)
        try container.encode(validatedCertificateChain, forKey: .validatedCertificateChain)
        try container.encode(knownPins, forKey: .knownPins)
        try container.encodeIfPresent(addresses, forKey: .addresses)
    }
}
