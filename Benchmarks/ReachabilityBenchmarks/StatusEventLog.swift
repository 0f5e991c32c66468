import Foundation

/// netvigil's status events as they arrive (time stamped by the reader), and per toggle the first arrival
/// of the expected status for each target. Signals the harness only when every target has arrived, so the
/// waiting thread does not wake (and compete for the CPU) once per event.
final class StatusEventLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var expectedStatus: String?
    private var expectedCount = 0
    private var firstArrival: [String: Double] = [:]
    /// When the round's first event was made (its evaluation time), if known.
    private var firstMade: Double?
    private var armed = false
    private(set) var total = 0

    /// Starts a round: from now on record the first event with `status` (any status when nil) per target,
    /// until `count` targets have one.
    func arm(status: String?, count: Int) {
        condition.lock()
        expectedStatus = status
        expectedCount = count
        firstArrival = [:]
        firstMade = nil
        armed = true
        condition.unlock()
    }

    /// One event (called by the reader thread or the in-process consumer); `made`: when the evaluation was
    /// made (monotonic), if known.
    func record(target: String, status: String, at time: Double, made: Double? = nil) {
        condition.lock()
        total += 1
        if armed, expectedStatus == nil || expectedStatus == status, firstArrival[target] == nil {
            if firstArrival.isEmpty { firstMade = made }
            firstArrival[target] = time
            if firstArrival.count >= expectedCount {
                armed = false
                condition.broadcast()
            }
        }
        condition.unlock()
    }

    /// Waits until every target of the round has arrived (or `timeout`); returns the arrival times and
    /// when the first event was made.
    func wait(timeout: Double) -> (arrivals: [Double], firstMade: Double?) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer {
            armed = false
            condition.unlock()
        }
        while firstArrival.count < expectedCount {
            if !condition.wait(until: deadline) { break }
        }
        return (Array(firstArrival.values), firstMade)
    }

    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return total
    }

    /// The string value of `"key":"value"` in a JSON line of `netvigil reachability --json`.
    static func jsonString(_ key: String, in line: String) -> String? {
        guard let start = line.range(of: "\"\(key)\":\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}
