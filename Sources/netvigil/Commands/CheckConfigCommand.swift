import ArgumentParser
import NetVigilAgent

/// `netvigil check-config FILE`: validates a configuration file and prints a short summary.
struct CheckConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a configuration file and print a summary.",
        discussion: "Exits 0 when the file is valid, 78 with one located error line otherwise.")

    @Argument(help: "YAML configuration file.")
    var file: String

    func run() async throws {
        try await withCLIFailureHandling {
            let configuration = try loadConfiguration(file)
            print("\(file): ok")
            print("  storage: \(configuration.storage.path) (retention \(ConfigDuration.format(configuration.storage.retention)))")
            print("  feed: \(configuration.feed.listen) (token: \(configuration.feed.token == nil ? "none" : "set"))")
            print("  log: \(configuration.log.level.rawValue)")
            print("  reachability: \(configuration.reachability.targets.map(\.description).joined(separator: ", "))")
        }
    }
}
