import NetVigilAgent

/// Loads `--config FILE`, or the embedded default; config errors become exit 78 with one located line per error.
func loadConfiguration(_ path: String?) throws -> AgentConfiguration {
    try reportingConfigErrors {
        if let path {
            return try AgentConfiguration.load(path: path)
        }
        return try AgentConfiguration(yaml: AgentConfiguration.embeddedYAML, file: "<embedded>")
    }
}

/// Runs `load`; a `ConfigError` becomes exit 78 with one located line per error (the agent's and the hub's files).
func reportingConfigErrors<T>(_ load: () throws -> T) throws -> T {
    do {
        return try load()
    } catch let error as ConfigError {
        var more = error.others.map(\.oneLine)
        if error.omitted > 0 { more.append("(\(error.omitted) more configuration errors not shown)") }
        throw CLIFailure(.config, error.oneLine, more: more)
    }
}
