import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilStore
import NetVigilTestSupport
import Synchronization
import XCTest
@testable import NetVigilFeed

final class ExportRouteTests: XCTestCase {
    /// The export without its `exported_at` value (the only field that differs between two runs).
    private static func withoutExportTime(_ text: String) -> String {
        text.replacingOccurrences(of: #""exported_at":"[^"]*""#, with: "\"exported_at\":\"-\"", options: .regularExpression)
    }

    private static func localExport(_ store: Store, _ query: ExportQuery, _ format: ExportFormat) throws -> String {
        let output = MemoryOutput()
        _ = try HistoryExporter(store: store, version: NetVigilVersion.current).export(query, format: format, to: output)
        return output.string
    }

    func testExportOverHTTPIsTheExportersDocumentAndValidates() async throws {
        let directory = try TemporaryDirectory()
        let store = try await FeedFixtures.seededStore(directory)
        let app = FeedFixtures.makeApp(store)
        try await app.test(.live) { client in
            try await client.execute(uri: "/v1/export", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "application/json")
                let text = String(buffer: response.body)
                XCTAssertEqual(Self.withoutExportTime(text), Self.withoutExportTime(try Self.localExport(store, ExportQuery(), .json)))
                try SchemaValidator.assertValid(text: text, ndjson: false)
            }
            let query = "format=ndjson&target=api&kind=probes&since=2026-11-18T11:06:44Z&until=-1s"
            try await client.execute(uri: "/v1/export?\(query)", method: .get) { response in
                XCTAssertEqual(response.status, .ok)
                XCTAssertEqual(response.headers[.contentType], "application/x-ndjson")
                let text = String(buffer: response.body)
                let lines = text.split(separator: "\n")
                XCTAssertEqual(lines.count, 1 + 11, "header + api probes at seconds 4, 6, ..., 24")
                XCTAssertTrue(lines.dropFirst().allSatisfy { $0.contains("\"target\":\"api\"") })
                try SchemaValidator.assertValid(text: text, ndjson: true)
            }
            try await client.execute(uri: "/v1/export?format=xml", method: .get) { response in
                XCTAssertEqual(response.status, .badRequest)
                XCTAssertTrue(String(buffer: response.body).contains("format: expected json or ndjson"))
            }
            try await client.execute(uri: "/v1/export?limit=3", method: .get) { response in
                XCTAssertEqual(response.status, .badRequest)
                XCTAssertTrue(String(buffer: response.body).contains("unknown parameter \\\"limit\\\""), String(buffer: response.body))
            }
        }
        withExtendedLifetime(directory) {}
    }

    func testLargeExportIsStreamedInChunks() async throws {
        let directory = try TemporaryDirectory()
        let store = try await FeedFixtures.seededStore(directory, probes: 3_000)
        let app = FeedFixtures.makeApp(store)
        let body = directory.path("body.ndjson")
        try await app.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let result = try ProcessRunner.run(["-s", "-m", "30", "-D", "-", "-o", body, "--raw",
                                                "http://127.0.0.1:\(port)/v1/export?format=ndjson"],
                                               executable: URL(fileURLWithPath: "/usr/bin/curl"), timeout: 40)
            XCTAssertEqual(result.status, 0, result.stderr)
            let headers = result.stdout.lowercased()
            XCTAssertTrue(headers.contains("transfer-encoding: chunked"), headers)
            XCTAssertFalse(headers.contains("content-length"), headers)
            // --raw keeps the chunk framing: a streamed body of ~1 MB arrives as many chunks, not one.
            let raw = try String(contentsOfFile: body, encoding: .utf8)
            let chunkHeaders = raw.components(separatedBy: "\r\n").filter { line in
                !line.isEmpty && line.count <= 8 && line.allSatisfy(\.isHexDigit)
            }
            XCTAssertGreaterThan(chunkHeaders.count, 5, "chunks: \(chunkHeaders.prefix(10))")
            XCTAssertGreaterThan(raw.utf8.count, 1_000_000)
        }
        withExtendedLifetime(directory) {}
    }

    /// A writer whose client went away after the first chunk.
    private struct FailingWriter: ResponseBodyWriter {
        let chunks: Counter

        mutating func write(_ buffer: ByteBuffer) async throws {
            if chunks.increment() > 1 { throw CancellationError() }
        }

        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    private final class Counter: Sendable {
        private let value = Mutex(0)

        func increment() -> Int {
            value.withLock { value in
                value += 1
                return value
            }
        }
        var count: Int { value.withLock { $0 } }
    }

    func testExportStopsWhenTheClientGoesAway() async throws {
        let directory = try TemporaryDirectory()
        let store = try await FeedFixtures.seededStore(directory, probes: 3_000)
        let exporter = HistoryExporter(store: store, version: "t")
        let counter = Counter()
        var writer: any ResponseBodyWriter = FailingWriter(chunks: counter)
        let start = ContinuousClock.now
        do {
            try await ExportResponseStream.write(exporter, query: ExportQuery(), format: .ndjson, timeLimit: .seconds(600),
                                                   to: &writer)
            XCTFail("the export must fail when the writer does")
        } catch is CancellationError {
        }
        XCTAssertEqual(counter.count, 2, "no chunk after the failing one")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(5))
        // The exporter thread stopped and released its read snapshot: the store still exports.
        let output = MemoryOutput()
        XCTAssertEqual(try exporter.export(ExportQuery(kinds: [.alerts]), format: .json, to: output).alerts, 2)
    }
}
