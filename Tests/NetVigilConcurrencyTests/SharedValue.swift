import Synchronization

/// A value the test and its tasks share (a `Mutex` cannot be captured by an escaping closure by itself).
final class SharedValue<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    var value: Value { mutex.withLock { $0 } }

    @discardableResult
    func update<R: Sendable>(_ change: (inout Value) -> R) -> R { mutex.withLock { change(&$0) } }
}
