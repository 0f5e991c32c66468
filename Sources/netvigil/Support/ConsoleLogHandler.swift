import Foundation
import Logging
import Synchronization

/// One line per event on stderr: `TIME LEVEL [label] message key=value`, no colours.
///
/// Under systemd (`JOURNAL_STREAM` set) the time is left to journald and the line starts with a
/// `<N>` syslog priority prefix so `journalctl -p` filters work.
struct ConsoleLogHandler: LogHandler {
    let label: String
    /// Set only when code changes one logger's level; otherwise the process-wide level (changed by a reload).
    private var levelOverride: Logger.Level?
    var logLevel: Logger.Level {
        get { levelOverride ?? LogBootstrap.level }
        set { levelOverride = newValue }
    }
    var metadata: Logger.Metadata = [:]
    let journald: Bool

    init(label: String, level: Logger.Level?, journald: Bool = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] != nil) {
        self.label = label
        self.levelOverride = level
        self.journald = journald
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = ""
        if journald {
            line += "<\(Self.syslogPriority(event.level))>"
        } else {
            line += Self.timestamp() + " "
        }
        line += "\(event.level.rawValue) [\(label)] \(event.message)"
        var merged = self.metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        for key in merged.keys.sorted() {
            let value = "\(merged[key]!)"
            let needsQuotes = value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" })
            line += " \(key)=" + (needsQuotes ? "\"\(value.replacingOccurrences(of: "\"", with: "\\\""))\"" : value)
        }
        line = line.replacingOccurrences(of: "\n", with: " ") + "\n"
        // A line stderr cannot take (journald restarting, a full disk under a redirected log) is lost; the
        // daemon goes on.
        StandardStream.error.write(line)
    }

    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let ms = Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
        var tm = tm()
        var seconds = time_t(now.tv_sec)
        gmtime_r(&seconds, &tm)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(tm.tm_year) + 1900, Int(tm.tm_mon) + 1,
                      Int(tm.tm_mday), Int(tm.tm_hour), Int(tm.tm_min), Int(tm.tm_sec), Int(ms % 1_000))
    }
}

/// Installs the console handler once per process and holds the process-wide level (a reload may change it).
enum LogBootstrap {
    nonisolated(unsafe) private static var bootstrapped = false
    private static let current = Mutex(Logger.Level.info)

    /// The level of every logger made by the console handler.
    static var level: Logger.Level {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    static func bootstrap(level: Logger.Level) {
        self.level = level
        guard !bootstrapped else { return }
        bootstrapped = true
        LoggingSystem.bootstrap { label in ConsoleLogHandler(label: label, level: nil) }
    }
}
