import Foundation
import NetVigilConcurrency
import NetVigilProber
import NetVigilStore
import NetVigilTrust

extension WebhookSink {
    /// POSTs the row's payload through netvigil's request stack (system trust roots, no redirects) with
    /// `Content-Type: application/json` and `Idempotency-Key`; acknowledged only by a 2xx status.
    func deliver(_ row: AlertRecord, prober: Prober, trustStore: TrustStore) async throws(AlertDeliveryError) {
        let headers = [("Idempotency-Key", row.idempotencyKey)] + self.headers.map { ($0.name, $0.value) }
        try await AlertHTTPRequest(url: url.absoluteString, headers: headers, body: row.payloadJSON, timeout: timeout,
                                   trustStore: trustStore, receiver: "webhook")
            .send(with: prober)
    }
}

extension ExecSink {
    /// The `NETVIGIL_*` variables an exec sink gets for one row (besides the daemon's own environment).
    static func environment(for row: AlertRecord) -> [String: String] {
        let object = (try? JSONSerialization.jsonObject(with: Data(row.payloadJSON.utf8))) as? [String: Any] ?? [:]
        func field(_ key: String) -> String? { object[key] as? String }
        return [
            "NETVIGIL_KIND": field("kind") ?? row.kind,
            "NETVIGIL_STATE": field("state") ?? "firing",
            "NETVIGIL_TARGET": field("target") ?? row.target,
            "NETVIGIL_URL": field("url") ?? "",
            "NETVIGIL_TIME": field("time") ?? row.time.rfc3339,
            "NETVIGIL_MESSAGE": field("message") ?? "",
            "NETVIGIL_IDEMPOTENCY_KEY": row.idempotencyKey,
        ]
    }

    /// Runs the command with the payload on stdin; acknowledged only by exit status 0 within the timeout.
    func deliver(_ row: AlertRecord) async throws(AlertDeliveryError) {
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("NETVIGIL_") }
            .merging(Self.environment(for: row)) { _, new in new }
        let executable = self.executable
        let arguments = command
        let timeout = self.timeout
        let input = Array(row.payloadJSON.utf8) + [0x0a]
        let outcome = try await BlockingWork.run { () throws(AlertDeliveryError) -> ChildProcess.Outcome in
            try ChildProcess.run(executable: executable, arguments: arguments, environment: environment, input: input,
                                 timeout: timeout)
        }
        if outcome.exitCode == 0 { return }
        var message: String
        if outcome.timedOut {
            message = "\(executable) killed after \(ConfigDuration.format(timeout))"
        } else if let code = outcome.exitCode {
            message = "\(executable) exited with status \(code)"
        } else {
            message = "\(executable) ended by signal \(outcome.signal ?? 0)"
        }
        let output = outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
        if !output.isEmpty { message += ": " + output.split(whereSeparator: \.isNewline).prefix(3).joined(separator: " / ") }
        throw AlertDeliveryError(String(message.prefix(1_000)))
    }
}
