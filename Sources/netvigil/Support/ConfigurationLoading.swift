import NetVigilAgent

/// Loads `--config FILE`, or the embedded default; config errors become exit 78 with the located message.
func loadConfiguration(_ path: String?) throws -> AgentConfiguration {
    do {
        if let path {
            return try AgentConfiguration.load(path: path)
        }
        return try AgentConfiguration(yaml: AgentConfiguration.embeddedYAML, file: "<embedded>")
    } catch let error as ConfigError {
        throw CLIFailure(.config, error.description)
    }
}
