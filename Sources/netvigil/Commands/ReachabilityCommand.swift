import ArgumentParser
import Foundation
import Logging
import NetVigilReachability

/// `netvigil reachability [TARGET...] [--watch] [--json]`: AFNetworking-style reachability from netlink.
struct ReachabilityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reachability",
        abstract: "Show (or watch) the reachability of the default route, addresses or host names.",
        discussion: """
            TARGET is `default` (when none is given), an IPv4/IPv6 address or a host name. Without --watch, \
            prints each target's status, flags, interface, kind and gateway, then exits 0 when all are \
            reachable and 1 otherwise. With --watch, prints one line per change until interrupted.
            """
    )

    @Argument(help: "Targets: default, an IP address or a host name (default: default).")
    var targets: [String] = []

    @Flag(name: .long, help: "Keep running and print one line per status or flags change.")
    var watch = false

    @Flag(name: .long, help: "Print one JSON object per line.")
    var json = false

    @Option(name: .long, help: "Watch the network namespace NAME (/var/run/netns/NAME) instead of the current one.")
    var netns: String?

    func run() async throws {
        try await withCLIFailureHandling {
            let parsed = try parseTargets()
            var options = ReachabilityMonitor.Options()
            if let netns {
                guard !netns.isEmpty, !netns.contains("/") else {
                    throw CLIFailure(.usage, "invalid --netns \"\(netns)\": expected a name from `ip netns list`")
                }
                options.networkNamespacePath = "/var/run/netns/\(netns)"
            }
            var logger = Logger(label: "netvigil.reachability")
            logger.logLevel = .warning
            let monitor = ReachabilityMonitor(targets: parsed, options: options, logger: logger)
            do {
                try await monitor.start()
            } catch let error as ReachabilityError {
                throw CLIFailure(.ioError, error.description)
            }
            if watch {
                let stream = await monitor.changes(for: parsed)
                for await evaluation in stream {
                    do { try emit(evaluation) } catch { await monitor.stop(); throw error }
                }
                await monitor.stop()
                return
            }
            var allReachable = true
            for target in parsed {
                let evaluation = await monitor.current(target) ?? .unknown(target)
                do { try emit(evaluation) } catch { await monitor.stop(); throw error }
                if !evaluation.status.isReachable { allReachable = false }
            }
            await monitor.stop()
            if !allReachable { throw ExitCode(CLIFailure.Code.failure.rawValue) }
        }
    }

    private func parseTargets() throws -> [ReachabilityTarget] {
        if targets.isEmpty { return [.default] }
        var result: [ReachabilityTarget] = []
        for text in targets {
            do {
                let target = try ReachabilityTarget(parsing: text)
                if !result.contains(target) { result.append(target) }
            } catch {
                throw CLIFailure(.usage, error.description)
            }
        }
        return result
    }

    private func emit(_ evaluation: ReachabilityEvaluation) throws {
        let line = json ? evaluation.jsonLine() : Self.humanLine(evaluation)
        try StandardStream.output.emit(line + "\n")
    }

    static func humanLine(_ e: ReachabilityEvaluation) -> String {
        var parts = ["\(e.target)", e.status.name, "flags=\(e.flags)"]
        parts.append("interface=\(e.interface ?? "-")")
        parts.append("kind=\(e.interfaceKind?.rawValue ?? "-")")
        parts.append("gateway=\(e.gateway ?? "-")")
        parts.append("source=\(e.source ?? "-")")
        if let family = e.family { parts.append("family=\(family)") }
        if let table = e.table { parts.append("table=\(table)") }
        if case .host = e.target, let address = e.address { parts.append("address=\(address)") }
        return parts.joined(separator: "  ")
    }
}
