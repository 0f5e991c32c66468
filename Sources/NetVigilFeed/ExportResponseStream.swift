import Dispatch
import Hummingbird
import NetVigilConcurrency
import NetVigilStore
import Synchronization

/// Runs `HistoryExporter.export` (synchronous, through ``BlockingWork``) and writes each chunk it produces to a
/// response body as it comes: one chunk in flight, so a slow client slows the export instead of filling memory.
/// The exporter reads in short transactions between chunks, so a slow client pins no database snapshot.
enum ExportResponseStream {
    /// Streams the export into `writer`; throws when the export fails, the client goes away or `timeLimit` passes
    /// (the exporter stops at once then, even while a chunk waits for a client that does not read).
    static func write(_ exporter: HistoryExporter, query: ExportQuery, format: ExportFormat, timeLimit: Duration,
                      to writer: inout any ResponseBodyWriter) async throws {
        let deadline = ContinuousClock.now + timeLimit
        let (chunks, continuation) = AsyncThrowingStream<ByteBuffer, Error>.makeStream()
        let output = ChunkHandoff(continuation, deadline: deadline, timeLimit: timeLimit)
        continuation.onTermination = { _ in output.cancel() }
        BlockingWork.submit {
            _ = try exporter.export(query, format: format, to: output, deadline: deadline)
        } completion: { outcome in
            switch outcome {
            case .success: continuation.finish()
            case .failure(let error): continuation.finish(throwing: error)
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
    private let deadline: ContinuousClock.Instant
    private let timeLimit: Duration

    init(_ continuation: AsyncThrowingStream<ByteBuffer, Error>.Continuation, deadline: ContinuousClock.Instant,
         timeLimit: Duration) {
        self.continuation = continuation
        self.deadline = deadline
        self.timeLimit = timeLimit
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try checkCancelled()
        continuation.yield(ByteBuffer(bytes: bytes))
        let remaining = max(.zero, deadline - ContinuousClock.now)
        let nanoseconds = Int(clamping: remaining.inNanoseconds)
        if handedOver.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
            cancelled.store(true, ordering: .releasing)
            throw ExportError.timeLimit("export stopped at its time limit (\(timeLimit)) with the client still reading")
        }
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
