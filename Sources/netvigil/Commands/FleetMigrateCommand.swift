import ArgumentParser
import Logging
import NetVigilFleet

/// `netvigil fleet migrate --postgres URL`.
struct FleetMigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Create or upgrade the fleet schema, make day partitions ahead and drop those past the retention.",
        discussion: """
            Idempotent and safe to run from two hosts at once (one transaction under an advisory lock). Creates the \
            group roles netvigil_agent and netvigil_reader. Run it daily (a timer) to keep partitions ahead and drop \
            expired ones. Exit codes: 0 done, 64 usage, 74 the database refused or could not be reached.
            """)

    @OptionGroup var connection: FleetConnectionOptions

    @Option(name: .long, help: "Keep history this many days, e.g. 400d (stored in the database; default: the stored value, else 400d).")
    var retention: String?

    func run() async throws {
        try await withCLIFailureHandling {
            var days: Int?
            if let retention {
                guard retention.hasSuffix("d"), let value = Int(retention.dropLast()), value >= 1, value <= 36_500 else {
                    throw CLIFailure(.usage, "--retention: expected a number of days such as 400d")
                }
                days = value
            }
            let connector = try connection.connector()
            let logger = Logger(label: "netvigil.fleet")
            do {
                let postgres = try await connector.connect(logger: logger)
                defer { Task { try? await postgres.close() } }
                let summary = try await FleetMigrator.migrate(connection: postgres, retentionDays: days, logger: logger)
                let applied = summary.applied.isEmpty ? "schema current (version \(FleetSchema.currentVersion))"
                    : "applied version\(summary.applied.count == 1 ? "" : "s") \(summary.applied.map(String.init).joined(separator: ", "))"
                print("\(applied); \(summary.createdPartitions) partitions created, \(summary.droppedPartitions.count) dropped; "
                      + "retention \(summary.retentionDays)d")
            } catch {
                throw FleetConnectionOptions.failure(FleetError.classify(error))
            }
        }
    }
}
