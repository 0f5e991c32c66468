import Foundation
import NetVigilProber
import Yams

/// The whole netvigil configuration, one property per YAML section.
public struct AgentConfiguration: Sendable {
    public var storage: StorageSection
    public var feed: FeedSection
    public var log: LogSection
    public var reachability: ReachabilitySection
    public var scheduler: SchedulerSection
    public var tlsPolicies: TLSPoliciesSection
    public var targets: TargetsSection
    public var alerts: AlertsSection
    /// Top-level `labels:`, on every target (a target's own labels override them).
    public var labels: TargetLabels
    /// Top-level `proxy:`, every target's default (a target's own `proxy:` overrides it; `none` goes direct).
    public var proxy: ProxyConfiguration? = nil
    /// `fleet:`, the central PostgreSQL this agent ships its history to; nil: none.
    public var fleet: FleetSection? = nil
    /// The files `include:` read, in the order they were merged.
    public var includedFiles: [String] = []

    /// Top-level keys accepted in the document.
    static let sectionKeys = [StorageSection.key, FeedSection.key, LogSection.key, ReachabilitySection.key, SchedulerSection.key,
                             TLSPoliciesSection.key, TargetsSection.key, AlertsSection.key, labelsKey, ConfigInclude.key,
                             ProxySettings.key, FleetSection.key]
    /// The key of the top-level labels.
    static let labelsKey = "labels"

    /// The defaults (also what the embedded configuration yields).
    public init() {
        storage = StorageSection()
        feed = FeedSection()
        log = LogSection()
        reachability = ReachabilitySection()
        scheduler = SchedulerSection()
        tlsPolicies = TLSPoliciesSection()
        targets = TargetsSection()
        alerts = AlertsSection()
        labels = TargetLabels()
    }

    /// Parses a YAML document; `file` is used in error messages and to resolve relative paths and `include:`.
    /// The document is checked against `ConfigLimits` (alias expansion, depth, size) before it is composed, and the
    /// included files count towards the whole-configuration limits with it.
    ///
    /// Sections, targets, sinks, policies and included files are read independently, so one load reports every
    /// problem it finds (up to ``ConfigErrorCollector/limit``): the first error carries the others.
    public init(yaml: String, file: String) throws {
        var totals = ConfigTotals(bytes: yaml.utf8.count)
        let node = try ConfigDocumentScan.compose(yaml, file: file, totals: &totals)
        self.init()
        guard let node else { return }
        let root = try ConfigValue(node: node, path: "", file: file).mapping(allowedKeys: Self.sectionKeys)
        var collector = ConfigErrorCollector()
        var fragments: [ConfigInclude.Fragment] = []
        if let value = root[ConfigInclude.key] {
            do {
                fragments = try ConfigInclude.fragments(from: value, mainFile: file, totals: totals, collector: &collector)
            } catch let error as ConfigError {
                collector.record(error)
            }
        }
        includedFiles = fragments.map(\.file)
        storage = try collector.attempt { try StorageSection.read(from: root) } ?? storage
        feed = try collector.attempt { try FeedSection.read(from: root) } ?? feed
        log = try collector.attempt { try LogSection.read(from: root) } ?? log
        reachability = try collector.attempt { try ReachabilitySection.read(from: root) } ?? reachability
        scheduler = try collector.attempt { try SchedulerSection.read(from: root) } ?? scheduler
        fleet = try collector.attempt { try FleetSection.read(from: root) } ?? nil

        let policyLists = [root[TLSPoliciesSection.key]] + fragments.map { $0.root[TLSPoliciesSection.key] }
        tlsPolicies = try TLSPoliciesSection(lists: policyLists.compactMap { $0 }, collector: &collector)
        var sinkLists: [ConfigValue] = []
        for fragment in fragments {
            if let list = try collector.attempt({ try fragment.sinks() }) ?? nil { sinkLists.append(list) }
        }
        let alertsValue = root[AlertsSection.key]
        alerts = try AlertsSection(value: alertsValue, includedSinkLists: sinkLists, collector: &collector)
        let labelValues = [root[Self.labelsKey]] + fragments.map { $0.root[Self.labelsKey] }
        labels = try TargetLabels(merging: labelValues.compactMap { $0 }, collector: &collector)
        if let value = root[ProxySettings.key] {
            proxy = try collector.attempt { try ProxySettings(reading: value).configuration } ?? nil
        }
        let targetLists = [root[TargetsSection.key]] + fragments.map { $0.root[TargetsSection.key] }
        targets = try TargetsSection(lists: targetLists.compactMap { $0 }, policies: tlsPolicies,
                                     sinkNames: alerts.sinkNames + alerts.failedSinkNames, labels: labels, proxy: proxy,
                                     collector: &collector)
        targets.avoidOwnListeners(of: feed)
        try collector.finish()
    }

    /// Loads and validates a configuration file and the files it includes.
    /// Errors name the file as given (`etc/typos/retension.yml:4:3`), and relative paths inside it (CA, pinned
    /// certificate, token and password files, `${file:…}`, `include:`) resolve against its directory.
    public static func load(path: String) throws -> AgentConfiguration {
        try AgentConfiguration(yaml: ConfigFileReader.read(path: path), file: path)
    }

    /// The built-in configuration used by `netvigil run` without `--config`.
    public static let embeddedYAML = """
        # netvigil built-in configuration (used when no --config is given).
        storage:
          path: .netvigil/netvigil.sqlite
          retention: 30d
        feed:
          listen: 127.0.0.1:9337
        log:
          level: info
        reachability:
          targets: [default]
        """
}

extension ConfigError {
    /// Converts a Yams error into a located configuration error. Yams's own descriptions quote the document (its
    /// "Context:"), so only the position and a fixed phrase are kept.
    static func fromYams(_ error: YamlError, file: String) -> ConfigError {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _):
            return ConfigError(file: file, line: mark.line, column: mark.column, keyPath: "", message: "YAML syntax error")
        case .composer(_, _, let mark, _):
            return ConfigError(file: file, line: mark.line, column: mark.column, keyPath: "", message: "invalid YAML document")
        case .duplicatedKeysInMapping(_, let context):
            return ConfigError(file: file, line: context.mark.line, column: context.mark.column, keyPath: "", message: "duplicate key")
        default:
            return ConfigError(file: file, keyPath: "", message: "invalid YAML document")
        }
    }
}
