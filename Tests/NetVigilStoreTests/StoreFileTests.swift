import Foundation
@testable import NetVigilStore
import NetVigilTestSupport
import XCTest

/// The store opens only regular files, creates new ones 0600 and never chmods one it did not create.
final class StoreFileTests: XCTestCase {
    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
    }

    func testSymlinkToARegularFileIsFollowedAndItsModeKept() async throws {
        let directory = try TemporaryDirectory()
        let target = directory.path("data.sqlite")
        let first = try Store.open(path: target)
        try await first.write(WriteBatch(probes: [Fixtures.probe(1)]))
        chmod(target, 0o640)
        let link = directory.path("link.sqlite")
        XCTAssertEqual(symlink("data.sqlite", link), 0)

        let store = try Store.open(path: link)
        try await store.write(WriteBatch(probes: [Fixtures.probe(2)]))
        let statistics = try await store.statistics()
        XCTAssertEqual(statistics.probeResults, 2)
        XCTAssertEqual(try mode(target), 0o640, "an existing file's mode is the operator's")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), "data.sqlite")
    }

    func testDanglingSymlinkIsRefusedAndNothingIsCreatedThroughIt() throws {
        let directory = try TemporaryDirectory()
        let link = directory.path("link.sqlite")
        XCTAssertEqual(symlink("elsewhere/n.sqlite", link), 0)
        XCTAssertThrowsError(try Store.open(path: link)) { error in
            let error = error as? StoreError
            XCTAssertEqual(error?.kind, .io)
            XCTAssertTrue(error?.message.contains("symbolic link to a missing file") ?? false, "\(String(describing: error))")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path), ["link.sqlite"])
    }

    func testFIFOAndDirectoryAreRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.path("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let folder = directory.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chmod(folder, 0o755)
        for (path, what, mode) in [(fifo, "a FIFO", 0o644), (folder, "a directory", 0o755)] {
            for open in [Store.open(path:), Store.openReadOnly(path:)] {
                XCTAssertThrowsError(try open(path)) { error in
                    XCTAssertEqual((error as? StoreError)?.kind, .io)
                    XCTAssertEqual("\(error)", "\(path): is \(what), not a regular file; point storage.path at a regular file")
                }
            }
            XCTAssertEqual(try self.mode(path), mode)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted(), ["fifo", "folder"])
    }
}
