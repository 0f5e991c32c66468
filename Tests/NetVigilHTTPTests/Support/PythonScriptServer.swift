import Foundation

/// A python3 script that serves on a free 127.0.0.1 port; ready once the port accepts, stopped on `stop()` or deinit.
final class PythonScriptServer {
    let port = freePort()
    private let process = Process()

    /// Runs `python3 -c script ARGS...` where `arguments` gets the port chosen for the script.
    init(script: String, arguments: (_ port: Int) -> [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + arguments(port)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do { try waitForPort(port) } catch { stop(); throw error }
    }

    func stop() { terminate(process) }

    deinit { stop() }
}
