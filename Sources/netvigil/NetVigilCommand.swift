import ArgumentParser
import Foundation
import NetVigilAgent

/// The `netvigil` command line: the daemon and the operator tools around it.
@main
struct NetVigilCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "netvigil",
        abstract: "Watches network reachability and TLS trust, stores history, serves a status feed.",
        version: NetVigilVersion.current,
        subcommands: [
            RunCommand.self,
            CheckConfigCommand.self,
            ExportCommand.self,
            ReachabilityCommand.self,
            PinCommand.self,
            TrustCommand.self,
            VersionCommand.self,
        ]
    )
}
