import Foundation
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

    /// Top-level keys accepted in the document.
    static let sectionKeys = [StorageSection.key, FeedSection.key, LogSection.key, ReachabilitySection.key, SchedulerSection.key,
                             TLSPoliciesSection.key, TargetsSection.key, AlertsSection.key, labelsKey]
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

    /// Parses a YAML document; `file` is used in error messages. The document is checked against `ConfigLimits`
    /// (alias expansion, depth, size) before it is composed.
    public init(yaml: String, file: String) throws {
        try ConfigDocumentScan.check(yaml, file: file)
        let node: Node?
        do {
            node = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw ConfigError.fromYams(error, file: file)
        }
        self.init()
        guard let node else { return }
        let root = try ConfigValue(node: node, path: "", file: file).mapping(allowedKeys: Self.sectionKeys)
        storage = try .read(from: root)
        feed = try .read(from: root)
        log = try .read(from: root)
        reachability = try .read(from: root)
        scheduler = try .read(from: root)
        if let value = root[TLSPoliciesSection.key] { tlsPolicies = try TLSPoliciesSection(reading: value) }
        alerts = try .read(from: root)
        if let value = root[Self.labelsKey] { labels = try TargetLabels(reading: value) }
        if let value = root[TargetsSection.key] {
            targets = try TargetsSection(reading: value, policies: tlsPolicies, sinkNames: alerts.sinkNames, labels: labels)
        }
    }

    /// Loads and validates a configuration file; a file over `ConfigLimits.maxFileBytes` is refused after reading
    /// one byte more than the limit.
    /// Errors name the file as given (`etc/typos/retension.yml:4:3`), and relative paths inside it (CA, pinned
    /// certificate, token and password files, `${file:…}`) resolve against its directory.
    public static func load(path: String) throws -> AgentConfiguration {
        let name = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw ConfigError(file: path, keyPath: "", message: "no such file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ConfigError(file: path, keyPath: "", message: "cannot read file (permission denied?)")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: ConfigLimits.maxFileBytes + 1) ?? Data()
        } catch {
            throw ConfigError(file: path, keyPath: "", message: "cannot read file (a directory?)")
        }
        guard data.count <= ConfigLimits.maxFileBytes else {
            throw ConfigError(file: name, keyPath: "",
                              message: "file is larger than \(ConfigLimits.describe(bytes: ConfigLimits.maxFileBytes)) (the limit)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: name, keyPath: "", message: "file is not UTF-8 text")
        }
        return try AgentConfiguration(yaml: text, file: name)
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
