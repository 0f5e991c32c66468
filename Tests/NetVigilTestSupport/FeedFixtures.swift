import Foundation
import Hummingbird
import Logging
import NetVigilAgent
import NetVigilProbeModel
import NetVigilStore
@testable import NetVigilFeed

/// A seeded store and the feed application over it: the feed's route tests in process (NetVigilFeedTests) and the
/// system tier's, which read the routes with curl (IntegrationTests/Feed), share them.
public enum FeedFixtures {
    static let base = Timestamp(milliseconds: 1_795_000_000_000)  // 2026-11-18T11:06:40Z

    /// A store with 25 probes (api/web), 6 reachability events and 2 alerts over 25 seconds.
    public static func seededStore(_ directory: TemporaryDirectory, probes: Int = 25) async throws -> Store {
        let store = try Store.open(path: directory.path("n.sqlite"))
        let certificate = CertificateRecord(
            sha256: String(repeating: "ab", count: 32), pem: "PEM", subject: "CN=leaf", issuer: "CN=ca", serial: "01",
            notBefore: base, notAfter: base.adding(.seconds(86_400)), spkiPin: "sha256/AAAA")
        var batch = WriteBatch()
        for i in 0..<probes {
            batch.probes.append(ProbeRecord(
                time: base.adding(.seconds(Int64(i))), target: i % 2 == 0 ? "api" : "web", url: "https://api.example/health",
                outcome: .ok, httpStatus: 200, timings: PhaseTimings(total: 1.5), tlsVersion: "TLSv1.3",
                pinVerdict: .matched, servedChain: [certificate]))
        }
        for i in 0..<6 {
            let up = i % 2 == 0
            batch.reachabilityEvents.append(ReachabilityEventRecord(
                time: base.adding(.seconds(Int64(i * 4))), target: "default", status: up ? "ReachableViaWiFi" : "NotReachable",
                statusCode: up ? 2 : 0, flags: up ? 2 : 0, flagNames: up ? ["reachable"] : []))
        }
        for i in 0..<2 {
            batch.alerts.append(AlertRecord(
                time: base.adding(.seconds(Int64(i * 10 + 5))), kind: "pin_mismatch", target: "api", sink: "pager",
                payloadJSON: "{\"state\":\"firing\"}", nextAttemptAt: base, idempotencyKey: "k\(i)"))
        }
        try await store.write(batch)
        return store
    }

    public static func makeApp(_ store: Store, token: String? = nil, events: EventHub? = nil) -> some ApplicationProtocol {
        buildApplication(
            configuration: FeedConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0), token: token.map(Secret.init)),
            state: FeedState(store: store, events: events),
            logger: Logger(label: "test"))
    }
}
