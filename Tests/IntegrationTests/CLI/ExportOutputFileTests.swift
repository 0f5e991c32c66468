import Foundation
import NetVigilTestSupport
import XCTest

/// `export --output` and `storage.path` never delete, truncate or chmod a file netvigil did not create.
final class ExportOutputFileTests: XCTestCase {
    /// Makes a character device node (major, minor) at `path`, or skips where device nodes cannot be made or used.
    static func makeDevice(_ path: String, major: UInt32, minor: UInt32) throws -> stat {
        guard mknod(path, S_IFCHR | 0o666, dev_t(major << 8 | minor)) == 0 else {
            throw XCTSkip("mknod is not possible here (\(String(cString: strerror(errno))); needs root or CAP_MKNOD)")
        }
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw XCTSkip("a device node made here cannot be opened (\(String(cString: strerror(errno))); nodev mount?)")
        }
        close(fd)
        return try status(path)
    }

    static func status(_ path: String, follow: Bool = false) throws -> stat {
        var info = stat()
        let result = follow ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else { throw XCTSkip("cannot stat \(path): \(String(cString: strerror(errno)))") }
        return info
    }

    /// Runs `netvigil ARGUMENTS` with a file-size limit of `kib` KiB (SIGXFSZ ignored, so writes fail with EFBIG).
    private func runWithFileSizeLimit(kib: Int, _ arguments: [String]) throws -> ProcessRunner.Result {
        try ProcessRunner.run(["-c", "trap '' XFSZ; ulimit -f \(kib); exec \"$0\" \"$@\"", ProcessRunner.binary.path] + arguments,
                              executable: URL(fileURLWithPath: "/bin/bash"))
    }

    private func entries(_ directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    func testOwnFullDeviceIsWrittenInPlaceAndKept() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("n.sqlite")
        try await ExportCommandTests.seed(db, probes: 2_000)
        let full = directory.path("full")
        let before = try Self.makeDevice(full, major: 1, minor: 7)
        let result = try ProcessRunner.run(["export", "--db", db, "--output", full])
        XCTAssertEqual(result.status, 74, result.stderr)
        XCTAssertTrue(result.stderr.contains("No space left on device"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        let after = try Self.status(full)
        XCTAssertEqual(after.st_mode, before.st_mode, "still the same character device, same mode")
        XCTAssertEqual(after.st_rdev, before.st_rdev)
        XCTAssertEqual(after.st_ino, before.st_ino)
        XCTAssertEqual(try entries(directory).filter { !$0.hasPrefix("n.sqlite") }, ["full"], "no temporary file beside the device")
    }

    func testFailureLeavesTheExistingFileAndNoTemporaryFile() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("n.sqlite")
        try await ExportCommandTests.seed(db, probes: 2_000)
        let output = try directory.write("out.json", "previous export\n")
        chmod(output, 0o644)
        let result = try runWithFileSizeLimit(kib: 256, ["export", "--db", db, "--output", output])
        XCTAssertEqual(result.status, 74, result.stderr)
        XCTAssertTrue(result.stderr.contains("File too large"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertEqual(try String(contentsOfFile: output, encoding: .utf8), "previous export\n")
        XCTAssertEqual(try Self.status(output).st_mode & 0o777, 0o644, "mode of the existing file untouched")
        XCTAssertEqual(try entries(directory).filter { !$0.hasPrefix("n.sqlite") }, ["out.json"], "no temporary file left")

        // A new output that fails leaves nothing at all.
        let fresh = directory.path("fresh.json")
        XCTAssertEqual(try runWithFileSizeLimit(kib: 256, ["export", "--db", db, "--output", fresh]).status, 74)
        XCTAssertEqual(try entries(directory).filter { !$0.hasPrefix("n.sqlite") }, ["out.json"])

        // On success the file is replaced whole, mode 0600 (history is private).
        let ok = try ProcessRunner.run(["export", "--db", db, "--output", output])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        try SchemaValidator.assertValid(output)
        XCTAssertEqual(try Self.status(output).st_mode & 0o777, 0o600)
        XCTAssertEqual(try entries(directory).filter { !$0.hasPrefix("n.sqlite") }, ["out.json"])
    }

    func testSymlinkKeepsTheLinkAndReplacesItsTargetOnlyOnSuccess() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("n.sqlite")
        try await ExportCommandTests.seed(db, probes: 2_000)
        try FileManager.default.createDirectory(atPath: directory.path("exports"), withIntermediateDirectories: false)
        let target = try directory.write("exports/target.json", "previous export\n")
        let link = directory.path("latest.json")
        XCTAssertEqual(symlink("exports/target.json", link), 0)

        let failed = try runWithFileSizeLimit(kib: 256, ["export", "--db", db, "--output", link])
        XCTAssertEqual(failed.status, 74, failed.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "exports/target.json")
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "previous export\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path("exports")), ["target.json"])

        let ok = try ProcessRunner.run(["export", "--db", db, "--output", link])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "exports/target.json", "the link stays")
        try SchemaValidator.assertValid(target)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path("exports")), ["target.json"])

        let dangling = directory.path("dangling.json")
        XCTAssertEqual(symlink("missing/file.json", dangling), 0)
        let refused = try ProcessRunner.run(["export", "--db", db, "--output", dangling])
        XCTAssertEqual(refused.status, 74, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("symbolic link to a missing file"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path("missing")), "nothing created through the link")
    }

    func testDashWritesToStdout() async throws {
        let directory = try TemporaryDirectory()
        let db = directory.path("n.sqlite")
        try await ExportCommandTests.seed(db)
        let result = try ProcessRunner.run(["export", "--db", db, "--format", "ndjson", "--output", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        try SchemaValidator.assertValid(text: result.stdout, ndjson: true)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "-"))
        XCTAssertEqual(try entries(directory).filter { !$0.hasPrefix("n.sqlite") }, [])
    }

    func testStoragePathThatIsNotARegularFileIsRefusedAndLeftAlone() async throws {
        let directory = try TemporaryDirectory()
        let device = directory.path("device")
        _ = try Self.makeDevice(device, major: 1, minor: 3)
        let fifo = directory.path("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let folder = directory.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chmod(folder, 0o755)
        let linkToDevice = directory.path("link")
        XCTAssertEqual(symlink("device", linkToDevice), 0)

        for (path, what) in [(device, "a character device"), (fifo, "a FIFO"), (folder, "a directory"),
                             (linkToDevice, "a symbolic link to a character device")] {
            let before = try Self.status(path)
            let port = ProcessRunner.freePort()
            let config = try directory.write("n.yml", "storage: { path: \(path) }\nfeed: { listen: 127.0.0.1:\(port) }\n")
            let run = try ProcessRunner.run(["run", "--config", config], timeout: 20)
            XCTAssertEqual(run.status, 74, "\(path): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("is \(what), not a regular file"), run.stderr)
            XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)

            let export = try ProcessRunner.run(["export", "--db", path], timeout: 20)
            XCTAssertEqual(export.status, 74, "\(path): \(export.stderr)")
            XCTAssertTrue(export.stderr.contains("is \(what), not a regular file"), export.stderr)
            XCTAssertEqual(export.stderr.split(separator: "\n").count, 1, export.stderr)

            let after = try Self.status(path)
            XCTAssertEqual(after.st_mode, before.st_mode, "\(path): type and mode unchanged")
            XCTAssertEqual(after.st_ino, before.st_ino)
            for suffix in ["-journal", "-wal", "-shm"] {
                XCTAssertFalse(FileManager.default.fileExists(atPath: path + suffix), "\(path)\(suffix) created")
            }
        }
        XCTAssertEqual(try entries(directory), ["device", "fifo", "folder", "link", "n.yml"])
    }
}
