import ArgumentParser

/// `netvigil fleet`: the central PostgreSQL of a fleet (docs/fleet.md).
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Set up the fleet's central PostgreSQL: schema, partitions, roles, agents.",
        subcommands: [FleetMigrateCommand.self, FleetAddAgentCommand.self])
}
