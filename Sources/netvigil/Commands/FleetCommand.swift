import ArgumentParser

/// `netvigil fleet`: the central PostgreSQL of a fleet and its hub (docs/fleet.md).
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Set up the fleet's central PostgreSQL (schema, partitions, roles, agents, hubs) and run its hub.",
        subcommands: [FleetMigrateCommand.self, FleetAddAgentCommand.self, FleetAddHubCommand.self, FleetServeCommand.self])
}
