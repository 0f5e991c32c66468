import Foundation

/// The real `netvigil run` as a child process, its stdout and stderr in a log file.
public enum DaemonProcess {
    /// Starts `netvigil run --config config` in `directory`; returns the process and the path of its log.
    /// `environment` replaces the inherited one when given.
    public static func start(config: String, in directory: TemporaryDirectory,
                             environment: [String: String]? = nil) throws -> (Process, String) {
        let log = directory.path("daemon.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = ProcessRunner.binary
        process.arguments = ["run", "--config", config]
        process.currentDirectoryURL = directory.url
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        return (process, log)
    }
}
