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

    /// The report entries (`report.addresses`) of a pin_mismatch `alert` of an `addresses: all` or multi-path target,
    /// after checking that its message names `naming` and not `notNaming`, and that there is one entry whose served
    /// chain starts with the certificate in `leafPEM`.
    public static func pinMismatchEntries(_ alert: [String: Any], naming: String, notNaming: String, leafPEM: String,
                                          file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        let message = alert["message"] as? String ?? ""
        XCTAssertTrue(message.contains(naming), message, file: file, line: line)
        XCTAssertFalse(message.contains(notNaming), message, file: file, line: line)
        let report = try XCTUnwrap(alert["report"] as? [String: Any], file: file, line: line)
        let entries = try XCTUnwrap(report["addresses"] as? [[String: Any]], "\(report)", file: file, line: line)
        XCTAssertEqual(entries.count, 1, "\(entries)", file: file, line: line)
        let leaf = try String(contentsOfFile: leafPEM, encoding: .utf8)
        XCTAssertEqual((entries.first?["served-certificate-chain"] as? [String])?.first?.trimmingCharacters(in: .whitespacesAndNewlines),
                       leaf.trimmingCharacters(in: .whitespacesAndNewlines), file: file, line: line)
        return entries
    }
}
