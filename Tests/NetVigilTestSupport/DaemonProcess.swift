import Foundation

/// The real `netvigil run` as a child process, its stdout and stderr in a log file.
public enum DaemonProcess {
    /// Starts `netvigil run --config config` in `directory`; returns the process and the path of its log.
    /// `environment` replaces the inherited one when given; `launcher` (a program and its arguments, e.g. `setpriv`'s)
    /// runs `binary` when given, instead of it being run directly.
    public static func start(config: String, in directory: TemporaryDirectory, environment: [String: String]? = nil,
                             binary: String = ProcessRunner.binary.path, launcher: [String] = []) throws -> (Process, String) {
        let log = directory.path("daemon.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let command = launcher + [binary, "run", "--config", config]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = directory.url
        if let environment { process.environment = environment }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        return (process, log)
    }
}
