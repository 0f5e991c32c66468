import Foundation
import NetVigilProber
import NetVigilStore
import NetVigilTrust
import Synchronization

/// The `tls:` mapping of a target (and the policy part of a `tls_policies:` entry): AFSecurityPolicy's fields
/// plus the trust anchors and the lowest TLS version.
public struct TLSSettings: Sendable {
    /// Policy keys, accepted in a target's `tls:` and in `tls_policies:` entries.
    static let policyKeys = ["pinning", "pins", "pinned_certificates", "allow_invalid_certificates",
                             "validates_domain_name", "report_only", "pins_expire", "validation"] + revocationKeys
    /// Keys that only make sense per target (one trust store and TLS setup per probe).
    static let connectionKeys = ["ca", "system_roots", "min_version"]

    /// The policy when any policy key was given; nil means "the shared policies or the default".
    public var policy: SecurityPolicy?
    /// Trust anchors when `ca` or `system_roots: false` was given; nil means the shared system roots.
    public var trustStore: TrustStore?
    /// Extra CA paths (kept for the summary).
    public var caPaths: [String]
    /// Whether the system roots are trusted (`system_roots`, default true).
    public var systemRoots: Bool
    /// The TLS client settings.
    public var tls: TLSConfiguration
    /// The client certificate (`client_certificate`, `client_key`), nil when none.
    public var clientIdentity: ClientIdentity?
    /// Located warnings (a client key others may read).
    public var warnings: [String] = []

    /// System roots, no pinning, TLS 1.2+.
    public init() {
        policy = nil
        clientIdentity = nil
        trustStore = nil
        caPaths = []
        systemRoots = true
        tls = TLSConfiguration()
    }

    /// Reads a target's `tls:` mapping.
    init(reading value: ConfigValue) throws {
        self.init()
        let mapping = try value.mapping(allowedKeys: Self.policyKeys + Self.connectionKeys + Self.clientCertificateKeys)
        policy = try Self.policy(from: mapping)
        clientIdentity = try Self.clientIdentity(from: mapping, warnings: &warnings)
        try readConnection(mapping, of: value)
    }

    /// Reads a `tls:` mapping with the connection keys only (`ca`, `system_roots`, `min_version`), e.g. an
    /// Alertmanager sink's.
    init(readingConnection value: ConfigValue) throws {
        self.init()
        try readConnection(value.mapping(allowedKeys: Self.connectionKeys), of: value)
    }

    /// The connection keys of `mapping`: trust anchors (built and checked now) and the lowest TLS version.
    private mutating func readConnection(_ mapping: ConfigMapping, of value: ConfigValue) throws {
        if let item = mapping["system_roots"] { systemRoots = try item.bool() }
        if let item = mapping["ca"] {
            caPaths = try item.stringList().map(item.resolvedPath)
            var isDirectory: ObjCBool = false
            for path in caPaths {
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                    throw item.error("CA file \(path) does not exist")
                }
                // A FIFO or device is refused here, by name, without blocking (the trust store's reader would call it
                // "permission denied").
                if !isDirectory.boolValue { try item.requireRegularFile(path, failure: "CA file \(path)") }
            }
        }
        if !systemRoots || !caPaths.isEmpty {
            do {
                trustStore = try TrustStore(systemRoots: systemRoots, caPaths: caPaths)
            } catch {
                throw (mapping["ca"] ?? value).error("\(error)")
            }
        }
        if let item = mapping["min_version"] {
            switch try item.oneOf(["1.2", "1.3", "TLSv1.2", "TLSv1.3"]) {
            case "1.3", "TLSv1.3": tls.minimumVersion = .tls13
            default: tls.minimumVersion = .tls12
            }
        }
    }

    /// A `SecurityPolicy` from the policy keys of `mapping`, nil when none is present.
    static func policy(from mapping: ConfigMapping) throws -> SecurityPolicy? {
        guard policyKeys.contains(where: { mapping.contains($0) }) else { return nil }
        var certificates: [Certificate] = []
        if let item = mapping["pinned_certificates"] {
            for entry in try item.sequenceOrSingle() {
                let path = try entry.filePath()
                do {
                    certificates += try Certificate.load(paths: [path])
                } catch {
                    throw entry.error("\(error)")
                }
            }
        }
        var pins: [SPKIPin] = []
        if let item = mapping["pins"] {
            for entry in try item.sequenceOrSingle() {
                let text = try entry.nonEmptyString()
                do {
                    pins.append(try SPKIPin(parsing: text))
                } catch {
                    throw entry.error("\(error)")
                }
            }
        }
        let mode: SecurityPolicy.PinningMode
        if let item = mapping["pinning"] {
            switch try item.oneOf(["none", "certificate", "publicKey", "public_key"]) {
            case "certificate": mode = .certificate
            case "publicKey", "public_key": mode = .publicKey
            default: mode = .none
            }
        } else {
            mode = certificates.isEmpty && pins.isEmpty ? .none : .publicKey
        }
        var pinsExpire: Date? = nil
        if let item = mapping["pins_expire"] {
            let text = try item.nonEmptyString()
            guard let date = Self.date(text) else {
                throw item.error("expected a date like 2027-06-30 or 2027-06-30T00:00:00Z")
            }
            pinsExpire = date
        }
        var validation = ValidationProfile.default
        if let item = mapping["validation"] {
            validation = ValidationProfile(rawValue: try item.oneOf(ValidationProfile.allCases.map(\.rawValue))) ?? .default
        }
        // Read before the policy is built: their errors are located already, and wrapping them as the policy's
        // would print the location twice.
        let allowInvalidCertificates = try mapping["allow_invalid_certificates"]?.bool() ?? false
        let validatesDomainName = try mapping["validates_domain_name"]?.bool() ?? true
        let reportOnly = try mapping["report_only"]?.bool() ?? false
        let revocation = try Self.revocation(from: mapping)
        do {
            return try SecurityPolicy(
                pinning: mode, allowInvalidCertificates: allowInvalidCertificates, validatesDomainName: validatesDomainName,
                pinnedCertificates: certificates, pins: pins, reportOnly: reportOnly,
                pinsExpire: pinsExpire, validation: validation, revocation: revocation)
        } catch {
            throw mapping.owner.error("\(error)")
        }
    }

    /// `YYYY-MM-DD` (midnight UTC) or RFC 3339.
    static func date(_ text: String) -> Date? {
        if text.count == 10, let day = Timestamp.parse(text + "T00:00:00Z") { return day.date }
        return Timestamp.parse(text)?.date
    }

    /// The anchors to probe with: the configured store, or the system roots (loaded once per process).
    func resolvedTrustStore() throws(TrustStoreError) -> TrustStore {
        if let trustStore { return trustStore }
        return try SystemTrustStoreCache.shared()
    }
}

/// OpenSSL's default trust locations, loaded on first use and shared by every target without `ca:`.
enum SystemTrustStoreCache {
    private static let cached = Mutex<TrustStore?>(nil)

    static func shared() throws(TrustStoreError) -> TrustStore {
        if let store = cached.withLock({ $0 }) { return store }
        let store = try TrustStore.system()
        return cached.withLock { current in
            if let current { return current }
            current = store
            return store
        }
    }
}

extension ConfigValue {
    /// A list, or a single scalar taken as a one-element list.
    func sequenceOrSingle() throws -> [ConfigValue] {
        if case .sequence = node { return try sequence() }
        return [self]
    }
}
