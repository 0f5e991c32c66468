import Foundation
import NetVigilTestSupport

/// `openssl s_server` that writes every application byte it receives to a file.
final class RecordingTLSServer {
    let port = freePort()
    let outputPath: String
    private let process = Process()
    private let input = Pipe()

    init(certificate: String, key: String, extraArguments: [String] = []) throws {
        outputPath = NSTemporaryDirectory() + "netvigil-sserver-\(UUID().uuidString).out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key,
                             "-quiet"] + extraArguments
        process.standardInput = input  // kept open: s_server stops at EOF on stdin
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle.nullDevice
        try process.run()
        do { try waitForPort(port) } catch { stop(); throw error }
    }

    /// Stops the server and returns what it received.
    func stopAndCollect() -> String {
        stop()
        let data = FileManager.default.contents(atPath: outputPath) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        terminate(process)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: outputPath)
    }
}
