import Foundation
import NetVigilTestSupport
import XCTest

/// One real `netvigil fleet serve` process for a test: its configuration, log and feed.
final class HubUnderTest {
    let directory: TemporaryDirectory
    let feedPort = ProcessRunner.freePort()
    private(set) var process: Process?

    init() throws {
        directory = try TemporaryDirectory()
    }

    var logPath: String { directory.path("hub.log") }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    var feed: String { "http://127.0.0.1:\(feedPort)" }

    /// Writes `hub.yml` (with `feed.listen` on this hub's port) and starts the hub; waits until `/healthz` answers 200
    /// (its first evaluation succeeded).
    func start(config: String) throws {
        let path = try directory.write("hub.yml", config + "\nfeed: { listen: 127.0.0.1:\(feedPort) }\n")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = ProcessRunner.binary
        process.arguments = ["fleet", "serve", "--config", path]
        process.currentDirectoryURL = directory.url
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitUntil("the hub answers /healthz with 200", timeout: 30) {
            (try? ProcessRunner.curl("\(self.feed)/healthz"))?.0 == 200
        }
    }

    /// `GET /v1/fleet/status` as JSON.
    func status() throws -> [String: Any] {
        let (code, body) = try ProcessRunner.curl("\(feed)/v1/fleet/status")
        guard code == 200, let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            throw HubTestError(message: "GET /v1/fleet/status answered \(code): \(body.prefix(500))")
        }
        return object
    }

    /// The status's entry for `endpoint`.
    func endpoint(_ endpoint: String) throws -> [String: Any]? {
        (try status()["endpoints"] as? [[String: Any]])?.first { $0["endpoint"] as? String == endpoint }
    }

    func stop(signal: Int32 = SIGTERM) {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    /// Polls `condition` every 250 ms; fails with the hub's log tail and `context` (other logs) after `timeout`.
    func waitUntil(_ what: String, timeout: TimeInterval, context: () -> String = { "" }, file: StaticString = #filePath,
                   line: UInt = #line, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let process, !process.isRunning { break }
            if (try? condition()) == true { return }
            Thread.sleep(forTimeInterval: 0.25)
        }
        if try condition() { return }
        XCTFail("timed out waiting until \(what); hub log:\n\(log.suffix(3000))\n\(context())", file: file, line: line)
        throw HubTestError(message: "timed out waiting until \(what)")
    }

    deinit {
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

struct HubTestError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
