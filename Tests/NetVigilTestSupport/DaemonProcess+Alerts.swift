import Foundation
import XCTest

extension DaemonProcess {
    /// Waits up to `timeout` for a firing alert of `kind` in an exec sink's NDJSON file at `path` (written by
    /// `cat >> path`); fails with the tail of the daemon's `log` when none arrives.
    public static func firingAlert(kind: String, in path: String, daemon: Process, log: String,
                                   timeout: TimeInterval = 30) throws -> [String: Any] {
        var firing: [String: Any]?
        let deadline = Date().addingTimeInterval(timeout)
        while firing == nil, Date() < deadline, daemon.isRunning {
            let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
            firing = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["kind"] as? String == kind && $0["state"] as? String == "firing" }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return try XCTUnwrap(firing, "no \(kind) alert; daemon log: \(String(((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(2_000)))")
    }
}
