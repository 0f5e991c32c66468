import Synchronization

/// Values made once per key and shared across threads: the lookup and the insert each take the lock briefly, the
/// value is made outside it, and when two callers race the first value stored wins. With a capacity, the cache
/// starts over once it holds that many values (the keys are few in practice; the bound keeps a stray caller from
/// growing it without end).
final class SharedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Mutex<[Key: Value]>([:])
    private let capacity: Int

    init(capacity: Int = .max) {
        self.capacity = capacity
    }

    /// The value for `key`, made by `make` on first use.
    func value<Failure: Error>(for key: Key, make: () throws(Failure) -> Value) throws(Failure) -> Value {
        if let known = values.withLock({ $0[key] }) { return known }
        let made = try make()
        return values.withLock { values in
            if let raced = values[key] { return raced }
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[key] = made
            return made
        }
    }
}
