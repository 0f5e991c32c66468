import ArgumentParser
import Foundation
import NetVigilAgent
import NetVigilConcurrency
import NetVigilStore

/// `netvigil export`: streams history as JSON or NDJSON with constant memory.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export history (probes, reachability events, alerts) as JSON or NDJSON.",
        discussion: """
            TIME is RFC 3339 (2026-11-22T10:00:00Z) or relative to now (-24h, -30m, -7d, now).
            Safe while the daemon is writing: rows are read in pages of short transactions (never one snapshot for \
            the whole export), rows written after the export began are left out, none appears twice. --db must be a \
            regular file (a link to one is followed). Exit codes: 64 bad arguments or unknown target, \
            66 missing/not-a-database/corrupt database, 74 I/O error (unreadable or not a regular database file, \
            output error).
            """)

    enum KindOption: String, RawValueArgument {
        case probes, reachability, alerts, all

        /// The plural names, and the singular ones (`probe`, `alert`) as export rows name their kind.
        init?(argument: String) {
            switch argument.lowercased() {
            case "probe", "probes": self = .probes
            case "reachability": self = .reachability
            case "alert", "alerts": self = .alerts
            case "all": self = .all
            default: return nil
            }
        }
    }

    @Option(name: .long, help: "Database file (default: storage.path of --config, or the built-in configuration).")
    var db: String?

    @Option(name: .long, help: "Configuration file whose storage.path is exported.")
    var config: String?

    @Option(name: .long, parsing: .unconditional, help: "Only rows at or after TIME.")
    var since: String?

    @Option(name: .long, parsing: .unconditional, help: "Only rows before TIME.")
    var until: String?

    @Option(name: .long, help: "Only this target (repeatable).")
    var target: [String] = []

    @Option(name: .long, help: "Which history: probes, reachability, alerts or all (probe and alert also work).")
    var kind: KindOption = .all

    @Option(name: .long, help: "json (one document) or ndjson (one object per line).")
    var format: String = "json"

    @Option(name: .long, help: ArgumentHelp(
        "Write to FILE instead of stdout (- for stdout).",
        discussion: """
            The export goes to a temporary file beside FILE (mode 0600), is fsynced and renamed over FILE only when \
            complete: a failure leaves FILE as it was and no temporary file. A symbolic link to a regular file keeps \
            the link and replaces its target. An existing FIFO or character device is written straight into and \
            never removed; a directory, block device, socket or dangling link is refused (exit 74).
            """, valueName: "FILE"))
    var output: String?

    func run() async throws {
        try await withCLIFailureHandling {
            let query = try makeQuery()
            guard let format = ExportFormat(rawValue: format) else {
                throw CLIFailure(.usage, "--format: expected json or ndjson, got \"\(self.format)\"")
            }
            if db != nil && config != nil {
                throw CLIFailure(.usage, "give either --db or --config, not both")
            }
            // Without --db the configuration names the store; its targets' labels go into their probe rows.
            let path: String
            var labels: [String: [String: String]] = [:]
            if let db {
                path = db
            } else {
                let configuration = try loadConfiguration(config)
                path = configuration.storage.path
                for target in configuration.targets.targets { labels[target.name] = target.labels.dictionary }
            }
            let store: Store
            do {
                store = try Store.openReadOnly(path: path)
                if !query.targets.isEmpty {
                    let known = try store.knownTargets()
                    if let unknown = query.targets.first(where: { !known.contains($0) }) {
                        throw CLIFailure(.usage, "--target: no history for target \"\(unknown)\" in \(path)")
                    }
                }
            } catch let error as StoreError {
                throw CLIFailure(error.kind == .io ? .ioError : .noInput, "\(error)")
            }
            try exportRows(store: store, query: query, format: format, labels: labels)
        }
    }

    private func makeQuery() throws -> ExportQuery {
        let now = Timestamp.now()
        func time(_ text: String?, _ name: String) throws -> Timestamp? {
            guard let text else { return nil }
            guard let value = Timestamp.parse(text, now: now) else {
                throw CLIFailure(.usage, "--\(name): cannot parse time \"\(text)\" (use RFC 3339 like 2026-11-22T10:00:00Z, or -24h)")
            }
            return value
        }
        let since = try time(self.since, "since")
        let until = try time(self.until, "until")
        if let since, let until, until <= since {
            throw CLIFailure(.usage, "--until (\(until)) must be after --since (\(since))")
        }
        let kinds: [ExportQuery.Kind] = switch kind {
        case .all: ExportQuery.Kind.allCases
        case .probes: [.probes]
        case .reachability: [.reachability]
        case .alerts: [.alerts]
        }
        return ExportQuery(since: since, until: until, targets: target, kinds: kinds)
    }

    private func exportRows(store: Store, query: ExportQuery, format: ExportFormat, labels: [String: [String: String]]) throws {
        let destination = try ExportDestination.open(output)
        let toFile = destination.fd != STDOUT_FILENO
        let sink = FileDescriptorOutput(fd: destination.fd, name: destination.name)
        let progress = toFile && isatty(STDERR_FILENO) == 1 ? ExportProgress() : nil
        do {
            let summary = try HistoryExporter(store: store, version: NetVigilVersion.current, targetLabels: labels)
                .export(query, format: format, to: sink, progress: progress.map { p in { p.report(rows: $0) } })
            try destination.commit()
            progress?.finish(rows: summary.total)
        } catch {
            destination.abandon()
            if progress != nil { writeStandardError("\n") }
            switch error {
            case let error as ExportError:
                throw CLIFailure(.ioError, error.description)
            case let error as StoreError:
                throw CLIFailure(error.kind == .io ? .ioError : .noInput, "\(error)")
            default:
                throw error
            }
        }
    }
}

/// Rows and rate on stderr, rewritten in place (only on a terminal).
final class ExportProgress {
    private let start = ContinuousClock.now

    func report(rows: Int) {
        writeStandardError("\rexported \(rows) rows (\(rate(rows)) rows/s)")
    }

    func finish(rows: Int) {
        writeStandardError("\rexported \(rows) rows (\(rate(rows)) rows/s)\n")
    }

    private func rate(_ rows: Int) -> Int {
        let elapsed = ContinuousClock.now - start
        let seconds = elapsed.inSeconds
        return seconds > 0 ? Int(Double(rows) / seconds) : rows
    }
}
