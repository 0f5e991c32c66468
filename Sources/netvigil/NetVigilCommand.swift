import ArgumentParser
import CMalloc
import Foundation
import NetVigilAgent
import NetVigilHTTP
import NetVigilStore
import NetVigilSystem

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
            VersionCommand.self,
        ]
    )

    /// Parses and runs; usage errors print one line (`netvigil: ...`) and exit 64, help and version print in full.
    static func main() async {
        if VersionCommand.isWholeInvocation(CommandLine.arguments.dropFirst()) {
            do { try VersionCommand().run() } catch { exit(reporting: error) }
            return
        }
        // The daemon runs without glibc's per-thread malloc caches, which it can only get by executing itself again
        // with `GLIBC_TUNABLES` set: first, before anything is opened or started (MallocThreadCaches).
        // The daemon allocates from one malloc arena: with an arena per thread (NIO loops, Dispatch workers) its
        // idle heap measured ~1 MB more and grew at every retention pass (docs/performance.md, Footprint). Set before
        // the event-loop threads start, so that they share it too. Blocks of 1 MiB and more (a `/v1/status` document
        // of 10,000 targets is 8.7 MB) are mapped and unmapped on their own instead of raising glibc's threshold
        // and staying in the heap: 20 such requests in a row left RSS 31 MB higher until the next trim (Scale).
        // SQLite's connections allocate their page caches as they fill (`Store.configureProcessMemory`).
        if CommandLine.arguments.dropFirst().first == "run" {
            MallocThreadCaches.turnOffByReexecuting()
            _ = mallopt(M_ARENA_MAX, 1)
            _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
            Store.configureProcessMemory()
        }
        OpenSSLPreparation.keepStateUntilExit()
        // `probe` runs on its own one-thread loop (CommandEventLoop), started here so that OpenSSL's set-up on it
        // overlaps the parsing of the arguments.
        if CommandLine.arguments.dropFirst().first == "probe" { CommandEventLoop.prepare() }
        do {
            var command = try parseCommand()
            if let probe = command as? ProbeCommand {
                try await CommandEventLoop.run { await probe.runAndExit() }
            } else {
                // Anything else gets Swift tasks on NIO's shared event loops: no thread switch per await of a
                // probe. Parsing enqueues no task before this.
                EventLoopExecutor.install()
                if var asyncCommand = command as? AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            }
        } catch {
            exit(reporting: error)
        }
    }

    /// The arguments, parsed with the command they name as the root when it has no subcommands of its own (all but
    /// `trust`). Reached from `netvigil`, ArgumentParser builds that command's argument set (a `Mirror` of it and of
    /// its option groups) several times instead of once and first checks for `--generate-completion-script`; a
    /// fresh `netvigil probe` measured ~2 ms slower for it (docs/performance.md, Footprint and start-up). The
    /// commands name `netvigil` as their `_superCommandName`, which spares their own parse that check. Whatever a
    /// command does not accept alone (help, `--version`, completion scripts, every usage error) is parsed again from
    /// the root, so that it reads exactly as before.
    static func parseCommand(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) throws -> any ParsableCommand {
        if let name = arguments.first,
           let leaf = configuration.subcommands.first(where: { $0._commandName == name && $0.configuration.subcommands.isEmpty }),
           let command = try? leaf.parseAsRoot(Array(arguments.dropFirst())), type(of: command) == leaf {
            return command
        }
        return try parseAsRoot(arguments)
    }

    /// Prints what `error` calls for (help and version in full, else one line) and exits with its code.
    static func exit(reporting error: any Error) -> Never {
        let code = exitCode(for: error)
        if code == .success {
            print(fullMessage(for: error))
        } else if !(error is ExitCode) {
            var line = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            if line.hasPrefix("Error: ") { line.removeFirst(7) }
            printError(line + " (see netvigil --help)")
        }
        Foundation.exit(code.rawValue)
    }
}
