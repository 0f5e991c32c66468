import Foundation

/// A hub's configuration (`netvigil fleet serve --config hub.yml`): `fleet:` (required), and `feed:`, `alerts:` and
/// `log:` with the agent's keys and validation. The hub's feed listens on 127.0.0.1:9338 unless configured, so that it
/// runs beside an agent on one host.
public struct HubConfiguration: Sendable {
    public var fleet: FleetHubSection
    public var feed: FeedSection
    public var alerts: AlertsSection
    public var log: LogSection

    static let sectionKeys = [FleetHubSection.key, FeedSection.key, AlertsSection.key, LogSection.key]
    /// The hub feed's default address.
    public static let defaultListen = ListenAddress(host: "127.0.0.1", port: 9338)

    public init(fleet: FleetHubSection, feed: FeedSection? = nil, alerts: AlertsSection = AlertsSection(),
                log: LogSection = LogSection()) {
        self.fleet = fleet
        self.feed = feed ?? FeedSection(listen: Self.defaultListen, token: nil)
        self.alerts = alerts
        self.log = log
    }

    /// Parses a hub document; every section's errors are reported together, located as the agent's are.
    public init(yaml: String, file: String) throws {
        var totals = ConfigTotals(bytes: yaml.utf8.count)
        guard let node = try ConfigDocumentScan.compose(yaml, file: file, totals: &totals) else {
            throw ConfigError(file: file, keyPath: FleetHubSection.key, message: "required key is missing")
        }
        let root = try ConfigValue(node: node, path: "", file: file).mapping(allowedKeys: Self.sectionKeys)
        var collector = ConfigErrorCollector()
        let fleet = try collector.attempt {
            try FleetHubSection(reading: root.required(FleetHubSection.key).mapping(allowedKeys: FleetHubSection.allowedKeys))
        }
        var feed = FeedSection(listen: Self.defaultListen, token: nil)
        if let value = root[FeedSection.key] {
            feed = try collector.attempt {
                let mapping = try value.mapping(allowedKeys: FeedSection.allowedKeys)
                var section = try FeedSection(reading: mapping)
                if !mapping.contains("listen") { section.listen = Self.defaultListen }
                return section
            } ?? feed
        }
        let log = try collector.attempt { try LogSection.read(from: root) } ?? LogSection()
        let alerts = try AlertsSection(value: root[AlertsSection.key], includedSinkLists: [], collector: &collector)
        try collector.finish()
        guard let fleet else { throw ConfigError(file: file, keyPath: FleetHubSection.key, message: "invalid") }
        self.init(fleet: fleet, feed: feed, alerts: alerts, log: log)
    }

    /// Loads and validates a hub configuration file.
    public static func load(path: String) throws -> HubConfiguration {
        try HubConfiguration(yaml: ConfigFileReader.read(path: path), file: path)
    }
}
