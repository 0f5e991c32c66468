import NetVigilAgent

/// Finds `--target NAME` in `--config FILE` for `probe` and `trust evaluate`.
enum ConfiguredTarget {
    /// The named target; usage errors when either option is missing or the name is unknown, 78 for a bad file.
    static func find(_ name: String?, config: String?) throws -> ProbeTarget {
        guard let name else { throw CLIFailure(.usage, "--config needs --target NAME") }
        guard let config else { throw CLIFailure(.usage, "--target needs --config FILE (the daemon's configuration)") }
        let targets = try loadConfiguration(config).targets.targets
        guard let found = targets.first(where: { $0.name == name }) else {
            let names = targets.map(\.name)
            throw CLIFailure(.usage, "--target: \(config) has no target \"\(name)\""
                             + (names.isEmpty ? " (it has no targets)" : " (targets: \(names.joined(separator: ", ")))"))
        }
        return found
    }
}
