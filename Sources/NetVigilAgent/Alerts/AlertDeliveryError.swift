/// Why one delivery attempt failed; the message is stored as the row's `last_error` and logged (never secrets).
public struct AlertDeliveryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
