import Foundation
import Logging
import NetVigilStore

extension AlertDispatcher {
    /// Re-sends the alerts that keep firing to every Alertmanager sink whose `resend_interval` has passed.
    ///
    /// Alertmanager resolves an alert by itself when its `endsAt` passes without a new send; each send is valid for
    /// 3 × `resend_interval`, so two missed re-sends are tolerated. What is re-sent is the sink's newest outbox row of
    /// each (target, kind) the engine reports firing, once that row was delivered (a pending one is the outbox's
    /// job). An alert that stops firing without a resolved notice (`send_resolved: false`, target removed) is
    /// no longer re-sent and expires in Alertmanager. Failures are logged and tried again at the next interval.
    public func resendFiring(now: Timestamp = .now()) async {
        guard let firing else { return }
        let due = alertmanagerSinks.filter { entry in nextResend.withLock { $0[entry.name].map { $0 <= now } ?? true } }
        guard !due.isEmpty else { return }
        let active = Set(firing().map { "\($0.target)\u{0}\($0.kind)" })
        for (name, sink) in due {
            nextResend.withLock { $0[name] = now.adding(sink.resendInterval) }
            guard !active.isEmpty else { continue }
            let rows: [AlertRecord]
            do {
                rows = try await store.latestAlerts(sink: name)
            } catch {
                logger.error("cannot read the alert outbox to re-send firing alerts", metadata: ["sink": "\(name)", "error": "\(error)"])
                continue
            }
            let payloads = rows.filter { $0.state == .delivered && active.contains("\($0.target)\u{0}\($0.kind)") }
                .compactMap { try? AlertPayload.decode($0.payloadJSON) }
                .filter { $0.state == .firing }
            guard !payloads.isEmpty else { continue }
            do throws(AlertDeliveryError) {
                try await sink.deliver(payloads, now: now, prober: prober, systemTrustStore: systemTrustStore)
                logger.debug("firing alerts re-sent", metadata: ["sink": "\(name)", "alerts": "\(payloads.count)"])
            } catch {
                logger.error("re-sending firing alerts failed; tried again in \(ConfigDuration.format(sink.resendInterval))",
                             metadata: ["sink": "\(name)", "alerts": "\(payloads.count)", "error": "\(error.message)"])
            }
        }
    }
}
