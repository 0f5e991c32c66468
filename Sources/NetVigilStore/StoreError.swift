/// Why the store could not be opened, read or written.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The broad class of failure, so callers can pick an exit code.
    public enum Kind: String, Sendable {
        /// The database file does not exist (read-only open).
        case missing
        /// The file exists but is not an SQLite database.
        case notADatabase
        /// SQLite reports corruption.
        case corrupt
        /// An SQLite database without netvigil's schema.
        case notNetvigil
        /// Written by a newer netvigil (unknown migrations).
        case newerSchema
        /// The file or its directory cannot be created, opened or written.
        case io
    }

    public var kind: Kind
    public var path: String
    public var message: String

    public init(_ kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
