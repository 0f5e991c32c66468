import Foundation
import NetVigilProbeModel
@testable import NetVigilStore

public enum Fixtures {
    public static let base = Timestamp(milliseconds: 1_795_000_000_000) // 2026-11-18T11:06:40Z

    public static func certificate(_ n: Int) -> CertificateRecord {
        CertificateRecord(
            sha256: String(format: "%064x", n), pem: "-----BEGIN CERTIFICATE-----\nMIIB\(n)\n-----END CERTIFICATE-----\n",
            subject: "CN=cert \(n)", issuer: "CN=issuer \(n + 1)", serial: String(n, radix: 16),
            notBefore: base.adding(.seconds(-86_400 * 30)), notAfter: base.adding(.seconds(86_400 * 60)),
            spkiPin: "sha256/\(Data("key\(n)".utf8).base64EncodedString())")
    }

    public static let chain = [certificate(1), certificate(2), certificate(3)]

    public static func probe(_ index: Int, target: String = "api", at time: Timestamp? = nil, ok: Bool = true) -> ProbeRecord {
        ProbeRecord(
            time: time ?? base.adding(.seconds(Int64(index))), target: target, url: "https://\(target).example/health",
            outcome: ok ? .ok : .failed, errorKind: ok ? nil : .status, errorMessage: ok ? nil : "status 503 not in 200-299",
            httpStatus: ok ? 200 : 503, httpVersion: "1.1", contentType: "application/json", contentLength: 15,
            timings: PhaseTimings(resolve: 0.125, connect: 0.5, tls: 3.25, processing: 1.001, transfer: 0.01, total: 4.886),
            tlsVersion: "TLSv1.3", tlsCipher: "TLS_AES_256_GCM_SHA384", alpn: "http/1.1",
            trustVerdict: .trusted, pinVerdict: .matched, reachabilityStatus: "ReachableViaWiFi",
            resolvedAddress: "127.0.0.1", redirectCount: 0, servedChain: chain, validatedChain: chain,
            detailsJSON: ok ? nil : "{\"body\":\"down \\\"now\\\"\"}")
    }

    public static func reachability(_ index: Int, target: String = "default") -> ReachabilityEventRecord {
        ReachabilityEventRecord(
            time: base.adding(.seconds(Int64(index))), target: target, status: index % 2 == 0 ? "ReachableViaWiFi" : "NotReachable",
            statusCode: index % 2 == 0 ? 2 : 0, flags: index % 2 == 0 ? (1 << 1) | (1 << 17) : 0,
            flagNames: index % 2 == 0 ? ["reachable", "isDirect"] : [], interface: "eth0", interfaceKind: "ethernet",
            gateway: "192.0.2.1", source: "192.0.2.10", family: "ipv4")
    }

    public static func alert(_ index: Int, state: AlertDeliveryState = .pending, target: String = "api") -> AlertRecord {
        AlertRecord(time: base.adding(.seconds(Int64(index))), kind: "pin_mismatch", target: target, sink: "pager",
                    payloadJSON: "{\"kind\":\"pin_mismatch\",\"state\":\"firing\"}", state: state,
                    nextAttemptAt: base.adding(.seconds(Int64(index))), idempotencyKey: "key-\(index)")
    }

    /// The paging tests' store: probes, reachability events and alerts that share timestamps (ties are broken by kind,
    /// then id).
    public static func pagingStore(_ directory: TemporaryDirectory) async throws -> Store {
        let store = try Store.open(path: directory.path("n.sqlite"))
        var probes = (0..<30).map { probe($0, target: $0 % 3 == 0 ? "web" : "api", ok: $0 % 5 != 0) }
        // Five probes in the same millisecond as probe 12 and reachability event 12.
        probes += (0..<5).map { probe(100 + $0, target: "api", at: base.adding(.seconds(12))) }
        try await store.write(WriteBatch(
            probes: probes,
            reachabilityEvents: (0..<20).map { reachability($0, target: $0 < 10 ? "default" : "api") },
            alerts: [alert(3), alert(12, state: .delivered, target: "web"), alert(29)]))
        return store
    }
}
