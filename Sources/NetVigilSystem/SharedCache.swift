import Synchronization

/// Values made once per key and shared across threads: the lookup and the insert each take the lock briefly, the
/// value is made outside it, and when two callers race the first value stored wins. With a capacity, the cache
/// starts over once it holds that many values (the keys are few in practice; the bound keeps a stray caller from
/// growing it without end). Inlinable, so that each user's look-up is specialised for its key.
public final class SharedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let values = Mutex<[Key: Value]>([:])
    @usableFromInline let capacity: Int

    public init(capacity: Int = .max) {
        self.capacity = capacity
    }

    /// The value for `key`, made by `make` on first use.
    @inlinable
    public func value<Failure: Error>(for key: Key, make: () throws(Failure) -> Value) throws(Failure) -> Value {
        if let known = values.withLock({ $0[key] }) { return known }
        let made = try make()
        return values.withLock { values in
            if let raced = values[key] { return raced }
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[key] = made
            return made
        }
    }

    /// The values held now.
    public var count: Int { values.withLock { $0.count } }
}
