import ArgumentParser
import NetVigilAgent

/// `--config FILE --target NAME` of `probe` and `trust evaluate`: a target of the daemon's configuration.
struct ConfiguredTargetOptions: ParsableArguments {
    @Option(name: .long, help: "The daemon's YAML configuration file, for --target.")
    var config: String?

    @Option(name: .long, help: "Use this target of --config: its URL, request, TLS policy, anchors and expectations.")
    var target: String?

    /// Whether either option was given.
    var isGiven: Bool { config != nil || target != nil }

    /// The named target; usage errors when either option is missing or the name is unknown, 78 for a bad file.
    func find() throws -> ProbeTarget {
        guard let target else { throw CLIFailure(.usage, "--config needs --target NAME") }
        guard let config else { throw CLIFailure(.usage, "--target needs --config FILE (the daemon's configuration)") }
        let targets = try loadConfiguration(config).targets.targets
        guard let found = targets.first(where: { $0.name == target }) else {
            let names = targets.map(\.name)
            throw CLIFailure(.usage, "--target: \(config) has no target \"\(target)\""
                             + (names.isEmpty ? " (it has no targets)" : " (targets: \(names.joined(separator: ", ")))"))
        }
        return found
    }
}
