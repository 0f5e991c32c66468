import Foundation
import NetVigilTestSupport
import Synchronization
@testable import NetVigilStore
import XCTest

/// A slow export must not pin a snapshot: the WAL stays bounded while the daemon keeps writing.
final class ExportWALTests: XCTestCase {
    /// An export consumer that stalls on its first write until `release()` (at most `limit`), then takes everything.
    private final class StallingOutput: ExportOutput, Sendable {
        private let released = DispatchSemaphore(value: 0)
        private let limit: DispatchTime
        /// Whether the first write has stalled, and everything written.
        private let state = Mutex<(stalled: Bool, data: [UInt8])>((false, []))

        init(limit: TimeInterval) {
            self.limit = .now() + limit
        }

        func write(_ bytes: UnsafeRawBufferPointer) throws {
            let first = state.withLock { state -> Bool in
                defer { state.stalled = true }
                return !state.stalled
            }
            if first { _ = released.wait(timeout: limit) }
            state.withLock { $0.data.append(contentsOf: bytes) }
        }

        func release() { released.signal() }

        var bytes: [UInt8] { state.withLock { $0.data } }
    }

    private static func walSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.intValue ?? 0
    }

    func testSlowExportWhileWritingKeepsTheWALBoundedAndTheDocumentExact() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("n.sqlite")
        let store = try Store.open(path: path)
        // 3,000 rows over only 10 distinct times: page boundaries fall among rows with equal times.
        let seeded = (0..<3_000).map { Fixtures.probe($0, at: Fixtures.base.adding(.seconds(Int64($0 % 10)))) }
        try await store.write(WriteBatch(probes: seeded))

        let output = StallingOutput(limit: 60)
        let exporter = HistoryExporter(store: store, version: "t")
        let export = Task.detached { try exporter.export(ExportQuery(kinds: [.probes]), format: .json, to: output) }

        // Meanwhile the writer adds ~100 MB of results (3 KB of details each), written after the export began.
        let details = "{\"note\":\"" + String(repeating: "x", count: 3_000) + "\"}"
        var maximum = 0
        for batch in 0..<15 {
            let probes = (0..<2_000).map { index -> ProbeRecord in
                var probe = Fixtures.probe(batch * 2_000 + index, target: "late", at: Fixtures.base.adding(.seconds(-60)))
                probe.detailsJSON = details
                return probe
            }
            try await store.write(WriteBatch(probes: probes))
            maximum = max(maximum, Self.walSize(path))
        }
        output.release()
        let summary = try await export.value
        let after = Self.walSize(path)

        print("WAL: largest \(maximum) bytes while a stalled export was open; \(after) bytes after it ended")
        XCTAssertLessThan(maximum, Store.journalSizeLimit, "the WAL grew past journal_size_limit: a snapshot was pinned")
        XCTAssertEqual(after, 0, "the export's end checkpoints and truncates the WAL")

        // The document is valid and holds exactly the rows that existed when it began, each once.
        XCTAssertEqual(summary.probes, 3_000)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output.bytes)) as? [String: Any])
        let rows = try XCTUnwrap(document["probes"] as? [[String: Any]])
        let ids = rows.compactMap { ($0["id"] as? NSNumber)?.int64Value }
        XCTAssertEqual(ids.count, 3_000)
        XCTAssertEqual(Set(ids).count, 3_000, "no row twice")
        XCTAssertFalse(rows.contains { $0["target"] as? String == "late" }, "rows written after the start are left out")
        let times = rows.compactMap { $0["time"] as? String }
        XCTAssertEqual(times, times.sorted(), "time order across pages")
    }

    func testExportStopsAtItsDeadlineBetweenPages() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        try await store.write(WriteBatch(probes: (0..<2_500).map { Fixtures.probe($0) }))
        let output = MemoryOutput()
        let exporter = HistoryExporter(store: store, version: "t")
        XCTAssertThrowsError(try exporter.export(ExportQuery(), format: .json, to: output, deadline: .now - .seconds(1))) { error in
            guard case ExportError.timeLimit(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("time limit"), message)
        }
        XCTAssertNil(try? JSONSerialization.jsonObject(with: Data(output.bytes)), "a cut export is not a valid document")
        XCTAssertEqual(try exporter.export(ExportQuery(), format: .json, to: MemoryOutput()).probes, 2_500)
    }
}
