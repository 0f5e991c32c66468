import Foundation
import Logging
import NetVigilProber
import NetVigilStore
import NetVigilTestSupport
import Synchronization
import XCTest
@testable import NetVigilAgent

/// A reload that removes or changes a target resolves its firing alerts ("target removed", "target changed") through
/// the store writer, so each of its sinks gets a resolved notice instead of an alert that fires forever.
final class RemovedTargetAlertTests: XCTestCase {
    private static let yaml = """
        alerts:
          sinks:
            - { name: hook, webhook: { url: "http://127.0.0.1:9/hook" } }
            - { name: script, exec: { command: [/bin/true] } }
          rules:
            target_down: { threshold: 1 }
        targets:
          - { name: api, url: "https://192.0.2.10/health", interval: 60s, alerts: [hook, script] }
          - { name: db, url: "https://192.0.2.11/health", interval: 60s, alerts: [hook, script] }
        """

    /// A scheduler (not running) over a real store and writer; `committed` counts the pipeline's commit callbacks.
    /// How often the pipeline said alert rows were committed.
    private final class CommitCounter: Sendable {
        let count = Mutex(0)
    }

    private final class Harness {
        let directory: TemporaryDirectory
        let store: Store
        let writer: StoreWriter
        let writerTask: Task<Void, any Error>
        let engine: AlertEngine
        let scheduler: ProbeScheduler
        let targets: [ProbeTarget]
        let committed: CommitCounter

        init(directory: TemporaryDirectory, store: Store, writer: StoreWriter, writerTask: Task<Void, any Error>,
             engine: AlertEngine, scheduler: ProbeScheduler, targets: [ProbeTarget], committed: CommitCounter) {
            self.directory = directory
            self.store = store
            self.writer = writer
            self.writerTask = writerTask
            self.engine = engine
            self.scheduler = scheduler
            self.targets = targets
            self.committed = committed
        }
    }

    private func harness() throws -> Harness {
        let directory = try TemporaryDirectory()
        let configuration = try AgentConfiguration(yaml: Self.yaml, file: "test.yml")
        let store = try Store.open(path: directory.path("n.sqlite"))
        let writer = StoreWriter(store: store, logger: Logger(label: "test"))
        let writerTask = Task { try await writer.run() }
        let engine = AlertEngine(rules: configuration.alerts.rules, logger: Logger(label: "test"))
        let counter = CommitCounter()
        let pipeline = ProbePipeline(prober: Prober(), writer: writer, states: TargetStates(), events: EventHub(),
                                     alerts: engine, alertsCommitted: { counter.count.withLock { $0 += 1 } },
                                     logger: Logger(label: "test"))
        let targets = configuration.targets.targets
        let scheduler = ProbeScheduler(targets: targets, concurrency: 1, pipeline: pipeline, logger: Logger(label: "test"))
        return Harness(directory: directory, store: store, writer: writer, writerTask: writerTask, engine: engine,
                       scheduler: scheduler, targets: targets, committed: counter)
    }

    private func down(_ target: String) -> ProbeRecord {
        ProbeRecord(time: .now(), target: target, url: "https://192.0.2.10/health", outcome: .failed,
                    errorKind: .connectRefused, errorMessage: "connection to 192.0.2.10:443 refused")
    }

    /// Rows that reached the store, after the writer committed everything queued.
    private func storedAlerts(_ harness: Harness) async throws -> [AlertRecord] {
        try await harness.writer.write(WriteBatch())
        return try await harness.store.alerts()
    }

    func testRemovingAFiringTargetStoresAResolvedRowForEachSink() async throws {
        let harness = try harness()
        defer { harness.writer.close() }
        let api = try XCTUnwrap(harness.targets.first { $0.name == "api" })
        let fired = harness.engine.evaluate(down("api"), context: api.alertContext(), now: .now())
        XCTAssertEqual(fired.rows.map(\.sink), ["hook", "script"])
        try await harness.writer.write(WriteBatch(alerts: fired.rows))

        let change = await harness.scheduler.update(targets: harness.targets.filter { $0.name != "api" })
        XCTAssertEqual(change.removed, ["api"])

        let resolved = try await storedAlerts(harness).filter { try AlertPayload.decode($0.payloadJSON).state == .resolved }
        XCTAssertEqual(resolved.map(\.sink).sorted(), ["hook", "script"])
        for row in resolved {
            XCTAssertEqual(row.target, "api")
            XCTAssertEqual(row.kind, "target_down")
            XCTAssertEqual(row.state, .pending, "the dispatcher delivers it like any other row")
            let payload = try AlertPayload.decode(row.payloadJSON)
            XCTAssertEqual(payload.url, "https://192.0.2.10/health")
            XCTAssertEqual(payload.idempotencyKey, row.idempotencyKey)
            XCTAssertNil(payload.since)
            XCTAssertTrue(payload.message.contains("target removed"), payload.message)
            XCTAssertTrue(payload.message.contains("connection to 192.0.2.10:443 refused"), payload.message)
        }
        XCTAssertEqual(harness.committed.count.withLock { $0 }, 1, "the dispatcher is woken once the rows are committed")
        XCTAssertTrue(harness.engine.firing().isEmpty)
        // A restarted daemon finds the pair resolved: nothing comes back as firing.
        let restored = AlertEngine(rules: AlertRules(), logger: Logger(label: "test"))
        let restoredCount = try await restored.restore(from: harness.store)
        XCTAssertEqual(restoredCount, 0)

        // A probe of the removed target still in flight raises nothing; once the name is configured again, it does.
        XCTAssertTrue(harness.engine.evaluate(down("api"), context: api.alertContext(), now: .now()).isEmpty)
        await harness.scheduler.update(targets: harness.targets)
        XCTAssertEqual(harness.engine.evaluate(down("api"), context: api.alertContext(), now: .now()).events.map(\.state),
                       [.firing])
    }

    func testChangingAFiringTargetResolvesItsAlertsWhichThenStartAnew() async throws {
        let harness = try harness()
        defer { harness.writer.close() }
        let api = try XCTUnwrap(harness.targets.first { $0.name == "api" })
        let fired = harness.engine.evaluate(down("api"), context: api.alertContext(), now: .now())
        try await harness.writer.write(WriteBatch(alerts: fired.rows))

        // The operator edits api's timeout and reloads.
        let yaml = Self.yaml.replacingOccurrences(of: "interval: 60s, alerts: [hook, script] }\n  - { name: db",
                                                  with: "interval: 60s, timeout: 7s, alerts: [hook, script] }\n  - { name: db")
        XCTAssertNotEqual(yaml, Self.yaml)
        let edited = try AgentConfiguration(yaml: yaml, file: "test.yml").targets.targets
        let index = try XCTUnwrap(edited.firstIndex { $0.name == "api" })
        let change = await harness.scheduler.update(targets: edited)
        XCTAssertEqual(change.changed, ["api"])

        let resolved = try await storedAlerts(harness).filter { try AlertPayload.decode($0.payloadJSON).state == .resolved }
        XCTAssertEqual(resolved.map(\.sink).sorted(), ["hook", "script"])
        for row in resolved {
            let payload = try AlertPayload.decode(row.payloadJSON)
            XCTAssertTrue(payload.message.contains("target changed in the configuration"), payload.message)
        }
        XCTAssertTrue(harness.engine.firing().isEmpty, "nothing is left firing under settings that no longer exist")
        // The changed target is admitted at once: its next failure fires anew under the new settings.
        XCTAssertEqual(harness.engine.evaluate(down("api"), context: edited[index].alertContext(), now: .now()).events.map(\.state),
                       [.firing])
    }

    func testRemovingATargetWithNothingFiringStoresNothing() async throws {
        let harness = try harness()
        defer { harness.writer.close() }
        let db = try XCTUnwrap(harness.targets.first { $0.name == "db" })
        // db fires and resolves again; api never fired.
        _ = harness.engine.evaluate(down("db"), context: db.alertContext(), now: .now())
        var good = down("db")
        (good.outcome, good.errorKind, good.errorMessage, good.httpStatus) = (.ok, nil, nil, 200)
        _ = harness.engine.evaluate(good, context: db.alertContext(), now: .now())
        _ = harness.engine.evaluate(good, context: db.alertContext(), now: .now())
        XCTAssertTrue(harness.engine.firing().isEmpty)

        let change = await harness.scheduler.update(targets: [])
        XCTAssertEqual(change.removed.sorted(), ["api", "db"])
        let stored = try await storedAlerts(harness)
        XCTAssertEqual(stored, [])
        XCTAssertEqual(harness.committed.count.withLock { $0 }, 0)
    }
}
