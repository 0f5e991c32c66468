import Foundation

/// Waiting for something a real server does after the client is done (a log line written when the server finalizes
/// a request or transaction).
public enum Poll {
    /// Checks `condition` every 50 ms until it holds or `timeout` has passed; says whether it held.
    @discardableResult
    public static func until(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return true
    }
}
