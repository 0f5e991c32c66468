import Foundation
import NetVigilProber
import NetVigilStore
import NetVigilTrust

extension AlertmanagerSink {
    /// POSTs `payloads` in one request to `/api/v2/alerts`; firing alerts stay active until `now` + ``validity``.
    /// - Parameter systemTrustStore: the shared system roots, used unless the sink's `tls:` names its own anchors.
    func deliver(_ payloads: [AlertPayload], now: Timestamp, prober: Prober,
                 systemTrustStore: () throws(AlertDeliveryError) -> TrustStore) async throws(AlertDeliveryError) {
        let validUntil = now.adding(validity)
        let alerts = payloads.map {
            AlertmanagerAlert(payload: $0, instance: AlertmanagerAlert.hostName, labels: labels, validUntil: validUntil)
        }
        try await post(alerts, prober: prober, systemTrustStore: systemTrustStore)
    }

    /// POSTs `alerts` in one request to `/api/v2/alerts`.
    func post(_ alerts: [AlertmanagerAlert], prober: Prober,
              systemTrustStore: () throws(AlertDeliveryError) -> TrustStore) async throws(AlertDeliveryError) {
        let body: String
        do {
            body = try AlertmanagerAlert.body(alerts)
        } catch {
            throw AlertDeliveryError("cannot encode the Alertmanager alerts: \(error)")
        }
        let anchors: TrustStore
        if let configured = tls.trustStore { anchors = configured } else { anchors = try systemTrustStore() }
        try await AlertHTTPRequest(url: alertsEndpoint, headers: headers.map { ($0.name, $0.value) }, body: body,
                                   timeout: timeout, trustStore: anchors, tls: tls.tls, receiver: "Alertmanager")
            .send(with: prober)
    }

    /// Delivers one outbox row.
    func deliver(_ row: AlertRecord, prober: Prober,
                 systemTrustStore: () throws(AlertDeliveryError) -> TrustStore) async throws(AlertDeliveryError) {
        let payload: AlertPayload
        do {
            payload = try AlertPayload.decode(row.payloadJSON)
        } catch {
            throw AlertDeliveryError("the stored payload is not an alert: \(error)")
        }
        try await deliver([payload], now: .now(), prober: prober, systemTrustStore: systemTrustStore)
    }
}
