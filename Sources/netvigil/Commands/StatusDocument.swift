/// The parts of a `/v1/status` document that `netvigil status` shows, decoded loosely: a field that is missing or of
/// another type (an older or newer daemon) is nil, never an error. Only a body that is not a JSON object fails.
///
/// Typed decoding skips the fields the table does not show; `JSONSerialization` into `[String: Any]` built all of
/// them (about 40 per target) and was most of the command's remaining time at 10,000 targets.
struct StatusDocument: Decodable {
    var version: String?
    var uptimeSeconds: Double?
    var store: Store?
    var health: Health?
    var targets: [Target]?
    var reachability: [Reachability]?
    var captivePortal: Portal?

    struct Store: Decodable {
        var probeResults: Int?
        var alertsPending: Int?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: LooseKey.self)
            probeResults = fields.loose("probe_results")
            alertsPending = fields.loose("alerts_pending")
        }
    }

    struct Health: Decodable {
        var healthy: Bool?
        var problems: [String]?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: LooseKey.self)
            healthy = fields.loose("healthy")
            problems = fields.loose("problems")
        }
    }

    struct Target: Decodable {
        var name: String?
        var status: String?
        var consecutiveFailures: Int?
        var lastProbeAt: String?
        var lastResult: LastResult?
        var firingAlerts: [Alert]?
        var addresses: [Address]?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: LooseKey.self)
            name = fields.loose("name")
            status = fields.loose("status")
            consecutiveFailures = fields.loose("consecutive_failures")
            lastProbeAt = fields.loose("last_probe_at")
            lastResult = fields.loose("last_result")
            firingAlerts = fields.loose("firing_alerts")
            addresses = fields.loose("addresses")
        }
    }

    struct LastResult: Decodable {
        var time: String?
        var httpStatus: Int?
        var pinVerdict: String?
        var certificateDaysLeft: Int?
        var reachabilityStatus: String?
        var errorKind: String?
        var trustVerdict: String?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: LooseKey.self)
            time = fields.loose("time")
            httpStatus = fields.loose("http_status")
            pinVerdict = fields.loose("pin_verdict")
            certificateDaysLeft = fields.loose("certificate_days_left")
            reachabilityStatus = fields.loose("reachability_status")
            errorKind = fields.loose("error_kind")
            trustVerdict = fields.loose("trust_verdict")
        }
    }

    struct Alert: Decodable {
        var kind: String?

        init(from decoder: any Decoder) throws {
            kind = try decoder.container(keyedBy: LooseKey.self).loose("kind")
        }
    }

    /// One address of an `addresses: all` target.
    struct Address: Decodable {
        var address: String?
        var interface: String?
        var status: String?
        var errorKind: String?
        var pinVerdict: String?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: LooseKey.self)
            address = fields.loose("address")
            interface = fields.loose("interface")
            status = fields.loose("status")
            errorKind = fields.loose("error_kind")
            pinVerdict = fields.loose("pin_verdict")
        }
    }

    struct Reachability: Decodable {
        var target: String?
        var status: String?
        var interface: String?
        var interfaceKind: String?
        var flags: [String]?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: LooseKey.self)
            target = fields.loose("target")
            status = fields.loose("status")
            interface = fields.loose("interface")
            interfaceKind = fields.loose("interface_kind")
            flags = fields.loose("flags")
        }
    }

    struct Portal: Decodable {
        var state: String?
        var httpStatus: Int?
        var message: String?

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: LooseKey.self)
            state = fields.loose("state")
            httpStatus = fields.loose("http_status")
            message = fields.loose("message")
        }
    }

    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: LooseKey.self)
        version = fields.loose("version")
        uptimeSeconds = fields.loose("uptime_seconds")
        store = fields.loose("store")
        health = fields.loose("health")
        targets = fields.loose("targets")
        reachability = fields.loose("reachability")
        captivePortal = fields.loose("captive_portal")
    }
}

/// A JSON object's key by name.
struct LooseKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where Key == LooseKey {
    /// The value under `key`, nil when it is missing, null or not a `T`.
    func loose<T: Decodable>(_ key: String) -> T? {
        try? decodeIfPresent(T.self, forKey: LooseKey(stringValue: key))
    }
}
