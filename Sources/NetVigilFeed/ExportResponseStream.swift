import Dispatch
import Hummingbird
import NetVigilStore
import Synchronization

/// Runs `HistoryExporter.export` (synchronous, on a Dispatch thread) and writes each chunk it produces to a
/// response body as it comes: one chunk in flight, so a slow client slows the export instead of filling memory.
enum ExportResponseStream {
    /// Streams the export into `writer`; throws when the export fails or the client goes away.
    static func write(_ exporter: HistoryExporter, query: ExportQuery, format: ExportFormat,
                      to writer: inout any ResponseBodyWriter) async throws {
        let (chunks, continuation) = AsyncThrowingStream<ByteBuffer, Error>.makeStream()
        let output = ChunkHandoff(continuation)
        continuation.onTermination = { _ in output.cancel() }
        DispatchQueue.global(qos: .userInitiated).async {
            do {
                _ = try exporter.export(query, format: format, to: output)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        do {
            for try await chunk in chunks {
                try await writer.write(chunk)
                output.taken()
            }
        } catch {
            output.cancel()
            throw error
        }
    }
}

/// The exporter's output: yields a chunk, then waits until the response writer took it (or gave up).
private final class ChunkHandoff: ExportOutput, Sendable {
    private let continuation: AsyncThrowingStream<ByteBuffer, Error>.Continuation
    private let handedOver = DispatchSemaphore(value: 0)
    private let cancelled = Atomic<Bool>(false)

    init(_ continuation: AsyncThrowingStream<ByteBuffer, Error>.Continuation) {
        self.continuation = continuation
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try checkCancelled()
        continuation.yield(ByteBuffer(bytes: bytes))
        handedOver.wait()
        try checkCancelled()
    }

    /// The writer sent the last chunk: the exporter may produce the next.
    func taken() { handedOver.signal() }

    /// The client went away or the writer failed: the exporter stops at its next write.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        handedOver.signal()
    }

    private func checkCancelled() throws {
        if cancelled.load(ordering: .acquiring) {
            throw ExportError.output("export stopped: the client went away")
        }
    }
}
