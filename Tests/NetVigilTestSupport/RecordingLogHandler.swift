import Logging
import Synchronization

/// Collects log entries so tests can check what was logged (and what was not).
public final class LogRecorder: Sendable {
    public init() {}

    public struct Entry: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    private let entries = Mutex<[Entry]>([])

    public var all: [Entry] { entries.withLock { $0 } }

    public func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    /// A logger writing into this recorder.
    public func logger(label: String = "test") -> Logger {
        Logger(label: label) { _ in RecordingLogHandler(recorder: self) }
    }
}

public struct RecordingLogHandler: LogHandler {
    public let recorder: LogRecorder
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public init(recorder: LogRecorder) { self.recorder = recorder }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { _, new in new } }
        recorder.append(.init(level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" }))
    }
}
