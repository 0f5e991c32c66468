import Foundation
import NetVigilTestSupport
import NetVigilReachability
import XCTest

struct TimeoutError: Error, CustomStringConvertible {
    var description: String
}

/// Waits until `target`'s evaluation satisfies `predicate` (via `changes(for:)`), or fails after `timeout`.
func awaitEvaluation(
    _ monitor: ReachabilityMonitor, _ target: ReachabilityTarget, timeout: Duration = .seconds(5),
    _ what: String, where predicate: @escaping @Sendable (ReachabilityEvaluation) -> Bool
) async throws -> ReachabilityEvaluation {
    let stream = await monitor.changes(for: target)
    return try await withThrowingTaskGroup(of: ReachabilityEvaluation?.self) { group in
        group.addTask {
            for await evaluation in stream where predicate(evaluation) { return evaluation }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        guard let first else {
            let last = await monitor.current(target).map { "\($0.status) flags=\($0.flags)" } ?? "none"
            throw TimeoutError(description: "timed out waiting for \(target): \(what) (last: \(last))")
        }
        return first
    }
}

extension ReachabilityMonitor {
    /// A monitor watching `namespace` from this process (its thread setns(2)es into it), started.
    static func started(in namespace: NetworkNamespace, targets: [ReachabilityTarget], options: Options = Options())
        async throws -> ReachabilityMonitor
    {
        var options = options
        options.networkNamespacePath = namespace.path
        let monitor = ReachabilityMonitor(targets: targets, options: options)
        try await monitor.start()
        return monitor
    }
}

/// The current evaluation, failing the test when there is none.
func evaluationNow(_ monitor: ReachabilityMonitor, _ target: ReachabilityTarget, file: StaticString = #filePath,
                   line: UInt = #line) async throws -> ReachabilityEvaluation {
    let evaluation = await monitor.current(target)
    return try XCTUnwrap(evaluation, "no evaluation for \(target)", file: file, line: line)
}
