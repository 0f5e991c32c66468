import ArgumentParser
import CMalloc
import Foundation
import NetVigilAgent
import NetVigilProber
import NetVigilStore

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
            StatusCommand.self,
            ReachabilityCommand.self,
            ProbeCommand.self,
            PinCommand.self,
            TrustCommand.self,
            FleetCommand.self,
            VersionCommand.self,
        ]
    )

    /// Parses and runs; usage errors print one line (`netvigil: ...`) and exit 64, help and version print in full.
    static func main() async {
        // The daemon allocates from one malloc arena: with an arena per thread (NIO loops, Dispatch workers) its idle
        // heap grew at every retention pass. Set before the event-loop threads start, so that they share it too.
        // Blocks of 1 MiB and more (a `/v1/status` document of thousands of targets) are mapped and unmapped on
        // their own instead of raising glibc's threshold and staying in the heap. SQLite's connections allocate their
        // page caches as they fill (`Store.configureProcessMemory`). glibc's per-thread caches are the systemd unit's
        // business (`GLIBC_TUNABLES`, docs/fleet.md).
        if CommandLine.arguments.dropFirst().first == "run" {
            _ = mallopt(M_ARENA_MAX, 1)
            _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
            Store.configureProcessMemory()
        }
        OpenSSLPreparation.keepStateUntilExit()
        do {
            var command = try parseAsRoot()
            if let probe = command as? ProbeCommand {
                try await CommandEventLoop.run { await probe.runAndExit() }
            } else if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(reporting: error)
        }
    }

    /// Prints what `error` calls for (help and version in full, else one line) and exits with its code.
    static func exit(reporting error: any Error) -> Never {
        let code = exitCode(for: error)
        if code == .success {
            // Help and version: a closed or full standard output is an error, as for every command's output.
            do {
                try StandardStream.output.emit(fullMessage(for: error) + "\n")
            } catch let failure as CLIFailure {
                printError(failure.message)
                Foundation.exit(failure.code.rawValue)
            } catch {
                Foundation.exit(CLIFailure.Code.ioError.rawValue)
            }
        } else if !(error is ExitCode) {
            var line = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            if line.hasPrefix("Error: ") { line.removeFirst(7) }
            printError(line + " (see netvigil --help)")
        }
        Foundation.exit(code.rawValue)
    }
}
