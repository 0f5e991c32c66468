import Foundation
import Logging
import NetVigilStore
import NetVigilTestSupport
@testable import NetVigilAgent

/// What pipeline and scheduler tests run against: a slow HTTP server on loopback, a store on a temporary SQLite
/// file and its running writer.
final class PipelineHarness {
    let directory: TemporaryDirectory
    let server: SlowHTTPServer
    let store: Store
    let writer: StoreWriter
    private let writerTask: Task<Void, any Error>

    init() throws {
        directory = try TemporaryDirectory()
        server = try SlowHTTPServer(directory: directory)
        store = try Store.open(path: directory.path("state/netvigil.sqlite"))
        let writer = StoreWriter(store: store, logger: Logger(label: "test"))
        self.writer = writer
        writerTask = Task { try await writer.run() }
    }

    /// Stops the writer (after it stored what it was given) and the server.
    func close() {
        writer.close()
        server.stop()
    }
}
