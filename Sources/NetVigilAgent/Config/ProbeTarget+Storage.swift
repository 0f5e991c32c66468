import NetVigilProber
import NetVigilReachability
import Synchronization

/// The fields behind ``ProbeTarget`` and the box that holds them.
extension ProbeTarget {
    /// What a target is made of (each field is documented on ``ProbeTarget``'s property of the same name).
    struct Fields: Sendable {
        var name: String
        var url: String
        var host: String
        var port: Int
        var interval: Duration
        var timeout: Duration
        var request: ProbeRequest
        var configuration: ProbeConfiguration
        var alertSinks: [String]
        var alertSinksExplicit: Bool
        var labels: TargetLabels = TargetLabels()
        var alertRules: AlertRuleOverrides = AlertRuleOverrides()
        var endpoint: String = ""
        var fingerprint: String
        var warnings: [String] = []
        var probesEachAddress: Bool = false
        var sources: [ProbeSource] = []
    }

    /// The immutable box of one target's fields, shared by its copies.
    final class Storage: Sendable {
        let fields: Fields
        /// ``ProbeTarget/reachabilityTarget``, parsed at its first use: the scheduler asks for it for every target
        /// on each reload and the pipeline on every probe (and parsing goes through Foundation's trimming).
        private let reachability = Mutex<ReachabilityTarget??>(nil)

        init(_ fields: Fields) { self.fields = fields }

        var reachabilityTarget: ReachabilityTarget? {
            reachability.withLock { cached in
                if let cached { return cached }
                let parsed = try? ReachabilityTarget(parsing: fields.configuration.connectTo?.addresses.first ?? fields.host)
                cached = .some(parsed)
                return parsed
            }
        }
    }

    /// A target read from the configuration.
    init(name: String, url: String, host: String, port: Int, interval: Duration, timeout: Duration, request: ProbeRequest,
         configuration: ProbeConfiguration, alertSinks: [String], alertSinksExplicit: Bool, labels: TargetLabels,
         endpoint: String, fingerprint: String) {
        storage = Storage(Fields(
            name: name, url: url, host: host, port: port, interval: interval, timeout: timeout, request: request,
            configuration: configuration, alertSinks: alertSinks, alertSinksExplicit: alertSinksExplicit, labels: labels,
            endpoint: endpoint, fingerprint: fingerprint))
    }

    /// Sets one field: the fields copied into a new box (copies made before keep the old one).
    mutating func setField<Value>(_ field: WritableKeyPath<Fields, Value>, _ value: Value) {
        var fields = storage.fields
        fields[keyPath: field] = value
        storage = Storage(fields)
    }
}
