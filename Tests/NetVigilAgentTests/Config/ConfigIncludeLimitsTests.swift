import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// `include:` cannot get around the limits or wedge a load: bytes, nodes and targets bound the whole configuration,
/// and a FIFO (or any other non-regular file) matched by a glob is refused at once.
final class ConfigIncludeLimitsTests: XCTestCase {
    private func loadError(_ path: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try AgentConfiguration.load(path: path)
            XCTFail("loaded", file: file, line: line)
            return ""
        } catch {
            XCTAssertTrue(error is ConfigError, "\(error)", file: file, line: line)
            return "\(error)"
        }
    }

    /// Loads on another thread: a load blocked in `open(2)` fails the test instead of hanging it.
    private func loadErrorWithin(_ seconds: TimeInterval, _ path: String) -> String? {
        let finished = expectation(description: "load finished")
        let box = ResultBox()
        Thread.detachNewThread {
            do {
                _ = try AgentConfiguration.load(path: path)
                box.set("loaded")
            } catch {
                box.set("\(error)")
            }
            finished.fulfill()
        }
        wait(for: [finished], timeout: seconds)
        return box.get()
    }

    private final class ResultBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: String?
        func set(_ value: String) { lock.withLock { self.value = value } }
        func get() -> String? { lock.withLock { value } }
    }

    func testAFIFOInAnIncludeGlobIsRefusedWithoutBlocking() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("conf.d"), withIntermediateDirectories: true)
        let main = try directory.write("netvigil.yml", "include: [conf.d/*.yml]\n")
        _ = try directory.write("conf.d/10-a.yml", "targets: [{ name: a, url: \"https://a.example/\" }]\n")
        XCTAssertEqual(mkfifo(directory.path("conf.d/50-x.yml"), 0o600), 0)
        XCTAssertEqual(loadErrorWithin(5, main), "\(directory.path("conf.d/50-x.yml")): is a FIFO (named pipe), not a regular file")
    }

    func testAFIFOAsATokenFileOrFileSubstitutionIsRefusedWithoutBlocking() throws {
        let directory = try TemporaryDirectory()
        XCTAssertEqual(mkfifo(directory.path("token"), 0o600), 0)
        let viaKey = try directory.write("key.yml", "feed: { token_file: token }\n")
        XCTAssertEqual(loadErrorWithin(5, viaKey),
                       "\(viaKey):1:21: feed.token_file: cannot read token file \(directory.path("token")): is a FIFO (named pipe), not a regular file")
        let viaSubstitution = try directory.write("substitution.yml", "feed: { token: \"${file:token}\" }\n")
        XCTAssertEqual(loadErrorWithin(5, viaSubstitution),
                       "\(viaSubstitution):1:16: feed.token: cannot read \(directory.path("token")) named in ${file:token}: "
                       + "is a FIFO (named pipe), not a regular file")
    }

    func testIncludedFilesTogetherMayNotPassTheWholeConfigurationsBytes() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("conf.d"), withIntermediateDirectories: true)
        let main = try directory.write("netvigil.yml", "include: [conf.d/*.yml]\n")
        // Each file is 1 MiB of comments, far within the per-file limits; twenty of them pass 16 MiB.
        let mebibyte = String(repeating: "# padding\n", count: 104_857) + "#\n#\n#\n"
        XCTAssertEqual(mebibyte.utf8.count, 1024 * 1024)
        for index in 0..<20 { _ = try directory.write("conf.d/\(index + 10).yml", mebibyte) }
        let start = ContinuousClock.now
        XCTAssertEqual(loadError(main), "\(main):1:10: include: this file and the 20 included files hold 20.0 MiB together; "
                       + "a whole configuration may hold at most 16 MiB (the limit)")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2))
    }

    func testNodesAndTargetsAreCountedAcrossTheFiles() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("conf.d"), withIntermediateDirectories: true)
        func targets(_ prefix: String, _ count: Int) -> String {
            "targets:\n" + (0..<count).map { "  - { name: \(prefix)\($0), url: 'http://h\($0).test/' }" }.joined(separator: "\n") + "\n"
        }
        let main = try directory.write("netvigil.yml", "include: [conf.d/*.yml]\n" + targets("m", 6_000))
        _ = try directory.write("conf.d/a.yml", targets("a", 5_000))
        XCTAssertEqual(loadError(main), "\(directory.path("conf.d/a.yml")):4002:5: targets[4000]: at most 10000 targets in the "
                       + "whole configuration, counting the 6000 of the files read before this one (the limit)")

        // 600,000 nodes in each of two files: each within the limit, together past it.
        let nodes = "targets:\n  - [" + String(repeating: "1,", count: 599_998) + "1]\n"
        try nodes.write(toFile: directory.path("conf.d/a.yml"), atomically: true, encoding: .utf8)
        try nodes.write(toFile: directory.path("conf.d/b.yml"), atomically: true, encoding: .utf8)
        try "include: [conf.d/*.yml]\n".write(toFile: main, atomically: true, encoding: .utf8)
        let error = loadError(main)
        XCTAssertTrue(error.hasPrefix("\(directory.path("conf.d/b.yml")):2:"), error)
        XCTAssertTrue(error.hasSuffix("the configuration has more than 1000000 nodes, counting the 600007 of the files read "
                                      + "before this one (the limit for the whole configuration)"), error)
        XCTAssertEqual(error.split(separator: "\n").count, 1, error)
    }
}
