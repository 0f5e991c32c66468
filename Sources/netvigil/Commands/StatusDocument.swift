/// The parts of a `/v1/status` document that `netvigil status` shows, decoded loosely: a field that is missing or of
/// another type (an older or newer daemon) is nil, never an error (``Loose``). Only a body that is not a JSON object
/// fails. The targets come as objects (the full and brief views) or, with `target_columns`, as arrays (the rows
/// view, ``targets(rows:columns:)``).
///
/// Typed decoding skips the fields the table does not show; `JSONSerialization` into `[String: Any]` built all of
/// them (about 40 per target) and was most of the command's remaining time at 10,000 targets.
struct StatusDocument: Decodable {
    @Loose var version: String?
    @Loose var uptimeSeconds: Double?
    @Loose var store: Store?
    @Loose var health: Health?
    @Loose var targets: [Target]?
    @Loose var reachability: [Reachability]?
    @Loose var captivePortal: Portal?

    enum CodingKeys: String, CodingKey {
        case version, store, health, targets, reachability
        case uptimeSeconds = "uptime_seconds", captivePortal = "captive_portal", targetColumns = "target_columns"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _version = try container.decode(Loose<String>.self, forKey: .version)
        _uptimeSeconds = try container.decode(Loose<Double>.self, forKey: .uptimeSeconds)
        _store = try container.decode(Loose<Store>.self, forKey: .store)
        _health = try container.decode(Loose<Health>.self, forKey: .health)
        _reachability = try container.decode(Loose<[Reachability]>.self, forKey: .reachability)
        _captivePortal = try container.decode(Loose<Portal>.self, forKey: .captivePortal)
        if let columns = try container.decode(Loose<[String]>.self, forKey: .targetColumns).wrappedValue {
            targets = Self.targets(rows: container, columns: columns)
        } else {
            _targets = try container.decode(Loose<[Target]>.self, forKey: .targets)
        }
    }

    struct Store: Decodable {
        @Loose var probeResults: Int?
        @Loose var alertsPending: Int?

        enum CodingKeys: String, CodingKey {
            case probeResults = "probe_results", alertsPending = "alerts_pending"
        }
    }

    struct Health: Decodable {
        @Loose var healthy: Bool?
        @Loose var problems: [String]?
    }

    struct Target: Decodable {
        @Loose var name: String?
        @Loose var status: String?
        @Loose var consecutiveFailures: Int?
        @Loose var lastProbeAt: String?
        @Loose var lastResult: LastResult?
        @Loose var firingAlerts: [Alert]?
        @Loose var addresses: [Address]?

        enum CodingKeys: String, CodingKey {
            case name, status, addresses
            case consecutiveFailures = "consecutive_failures", lastProbeAt = "last_probe_at"
            case lastResult = "last_result", firingAlerts = "firing_alerts"
        }
    }

    struct LastResult: Decodable {
        @Loose var time: String?
        @Loose var httpStatus: Int?
        @Loose var pinVerdict: String?
        @Loose var certificateDaysLeft: Int?
        @Loose var reachabilityStatus: String?
        @Loose var errorKind: String?
        @Loose var trustVerdict: String?

        enum CodingKeys: String, CodingKey {
            case time
            case httpStatus = "http_status", pinVerdict = "pin_verdict", certificateDaysLeft = "certificate_days_left"
            case reachabilityStatus = "reachability_status", errorKind = "error_kind", trustVerdict = "trust_verdict"
        }
    }

    struct Alert: Decodable {
        @Loose var kind: String?
    }

    /// One address of an `addresses: all` target.
    struct Address: Decodable {
        @Loose var address: String?
        @Loose var interface: String?
        @Loose var status: String?
        @Loose var errorKind: String?
        @Loose var pinVerdict: String?

        enum CodingKeys: String, CodingKey {
            case address, interface, status
            case errorKind = "error_kind", pinVerdict = "pin_verdict"
        }
    }

    struct Reachability: Decodable {
        @Loose var target: String?
        @Loose var status: String?
        @Loose var interface: String?
        @Loose var interfaceKind: String?
        @Loose var flags: [String]?

        enum CodingKeys: String, CodingKey {
            case target, status, interface, flags
            case interfaceKind = "interface_kind"
        }
    }

    struct Portal: Decodable {
        @Loose var state: String?
        @Loose var httpStatus: Int?
        @Loose var message: String?

        enum CodingKeys: String, CodingKey {
            case state, message
            case httpStatus = "http_status"
        }
    }
}

/// A field read loosely: nil when it is missing, null or not a `Value`, where plain decoding would fail the document.
@propertyWrapper
struct Loose<Value: Decodable>: Decodable {
    var wrappedValue: Value?

    init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    /// Nil: a type whose fields are all ``Loose`` gets an `init()` that leaves them nil (a target read from a row).
    init() { wrappedValue = nil }

    init(from decoder: any Decoder) throws {
        wrappedValue = try? decoder.singleValueContainer().decode(Value.self)
    }
}

extension KeyedDecodingContainer {
    /// What synthesized decoding calls for a ``Loose`` field: a missing key, null or a value of another type is nil
    /// instead of an error. The value is decoded straight from this container: through `Loose.init(from:)` every
    /// nested object (a target's last result, its alerts) cost a single-value container and a generic metadata
    /// look-up more.
    func decode<Value>(_ type: Loose<Value>.Type, forKey key: Key) throws -> Loose<Value> {
        Loose(wrappedValue: (try? decodeIfPresent(Value.self, forKey: key)) ?? nil)
    }

    // The scalar fields (most of a 10,000-target document) go straight to the decoder's typed entry points: through
    // the generic wrapper above each one cost a metadata lookup and a single-value container (decoding took
    // about a quarter longer).
    func decode(_ type: Loose<String>.Type, forKey key: Key) throws -> Loose<String> {
        Loose(wrappedValue: (try? decodeIfPresent(String.self, forKey: key)) ?? nil)
    }

    func decode(_ type: Loose<Int>.Type, forKey key: Key) throws -> Loose<Int> {
        Loose(wrappedValue: (try? decodeIfPresent(Int.self, forKey: key)) ?? nil)
    }

    func decode(_ type: Loose<Double>.Type, forKey key: Key) throws -> Loose<Double> {
        Loose(wrappedValue: (try? decodeIfPresent(Double.self, forKey: key)) ?? nil)
    }

    func decode(_ type: Loose<Bool>.Type, forKey key: Key) throws -> Loose<Bool> {
        Loose(wrappedValue: (try? decodeIfPresent(Bool.self, forKey: key)) ?? nil)
    }
}
