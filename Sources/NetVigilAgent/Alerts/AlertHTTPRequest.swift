import Foundation
import NetVigilProber
import NetVigilTrust

/// One JSON POST of an HTTP sink (webhook, Alertmanager) through netvigil's request stack: no redirects, the
/// given trust anchors, acknowledged only by a 2xx status.
struct AlertHTTPRequest {
    var url: String
    /// Extra headers; `Content-Type: application/json` is always sent.
    var headers: [(name: String, value: String)]
    var body: String
    var timeout: Duration
    var trustStore: TrustStore
    var tls = TLSConfiguration()
    /// Names the receiver in errors: `webhook`, `Alertmanager`.
    var receiver: String

    func send(with prober: Prober) async throws(AlertDeliveryError) {
        let request: ProbeRequest
        do {
            request = try RequestSerializer(version: NetVigilVersion.current)
                .request(method: .POST, url: url, headers: [("Content-Type", "application/json")] + headers, jsonBody: body)
        } catch {
            throw AlertDeliveryError("cannot build the \(receiver) request: \(error)")
        }
        let seconds = Double(ConfigDuration.milliseconds(timeout)) / 1_000
        let configuration = ProbeConfiguration(trustStore: trustStore, timeout: seconds, connectTimeout: min(5, seconds),
                                               maxBodyBytes: 1 << 20, maxRedirects: 0, tls: tls)
        let result = await prober.probe(request, configuration: configuration)
        guard result.outcome != .ok else { return }
        if let status = result.status, result.error?.kind == .status {
            throw AlertDeliveryError("\(receiver) answered HTTP \(status)")
        }
        throw AlertDeliveryError("\(receiver) failed: \(result.error?.message ?? "unknown error")")
    }
}
