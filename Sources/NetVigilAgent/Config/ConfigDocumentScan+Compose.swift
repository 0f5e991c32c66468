import Yams

extension ConfigDocumentScan {
    /// Checks `yaml` against `ConfigLimits` (counting it into `totals`), then composes it; nil for an empty document.
    /// Yams's errors become located `ConfigError`s. The agent's and the hub's configurations both start here.
    static func compose(_ yaml: String, file: String, totals: inout ConfigTotals) throws -> Node? {
        try check(yaml, file: file, totals: &totals)
        do {
            return try Yams.compose(yaml: yaml, ConfigValue.resolver)
        } catch let error as YamlError {
            throw ConfigError.fromYams(error, file: file)
        }
    }
}
