import Foundation
import NetVigilAgent
import NetVigilProbeModel
import NetVigilReachability
import NetVigilStore
import XCTest

/// Probe records, a feed of every metric, and a parser of the Prometheus exposition: the feed's metrics tests in
/// process (NetVigilFeedTests' MetricsTests) and the system tier's (promtool, ps) share them.
public enum MetricsFixtures {
    /// An `endpoint` and two configured labels of one target.
    public static let labels: [(String, String)] = [("endpoint", "https://api.example.test/health"), ("site", "fra1"),
                                                    ("team", "payments")]

    public static let leafNotAfter = Timestamp(milliseconds: 1_798_761_600_000)  // 2027-01-01T00:00:00Z
    public static let caNotAfter = Timestamp(milliseconds: 2_029_000_000_000)

    public static func certificate(_ subject: String, notAfter: Timestamp) -> CertificateRecord {
        CertificateRecord(sha256: String(repeating: "ab", count: 32), pem: "-----BEGIN CERTIFICATE-----\n",
                          subject: "CN=\(subject)", issuer: "CN=Test CA", serial: "01",
                          notBefore: Timestamp(milliseconds: 1_700_000_000_000), notAfter: notAfter,
                          spkiPin: "sha256/AAAA")
    }

    /// An HTTPS probe that passed: every phase timed, trusted, pin matched, two certificates served.
    public static func okRecord(target: String = "api", pin: PinVerdict? = .matched) -> ProbeRecord {
        ProbeRecord(
            time: .now(), target: target, url: "https://api.example.test/health", outcome: .ok, httpStatus: 200,
            httpVersion: "1.1", contentType: "application/json", contentLength: 15,
            timings: PhaseTimings(resolve: 1.5, connect: 2.25, tls: 12.5, processing: 30, transfer: 0.75, total: 47),
            tlsVersion: "TLSv1.3", tlsCipher: "TLS_AES_128_GCM_SHA256", alpn: "http/1.1", trustVerdict: .trusted,
            pinVerdict: pin, reachabilityStatus: "ReachableViaWiFi", resolvedAddress: "127.0.0.1",
            servedChain: [certificate("api", notAfter: leafNotAfter), certificate("Test CA", notAfter: caNotAfter)])
    }

    /// A probe refused at connect: no response, no TLS.
    public static func refusedRecord(target: String = "api") -> ProbeRecord {
        ProbeRecord(time: .now(), target: target, url: "https://api.example.test/health", outcome: .failed,
                    errorKind: .connectRefused, errorMessage: "connection refused",
                    timings: PhaseTimings(resolve: 0.5, connect: 0.25, total: 1))
    }

    public static func skippedRecord(target: String = "api") -> ProbeRecord {
        ProbeRecord(time: .now(), target: target, url: "https://api.example.test/health", outcome: .skipped,
                    reachabilityStatus: "NotReachable")
    }

    /// Feeds every kind of value so every metric of the catalogue is present.
    public static func feedEverything(_ metrics: AgentMetrics) throws {
        metrics.probeFinished(target: "api", record: okRecord(), findings: 1)
        metrics.probeFinished(target: "web \"quoted\"\\path", record: refusedRecord(target: "web"))
        var refusedEdge = refusedRecord(target: "edge")
        refusedEdge.resolvedAddress = "127.0.0.2"
        metrics.addressProbesFinished(target: "edge", records: [okRecord(target: "edge"), refusedEdge])
        metrics.reachabilityChanged(ReachabilityEvaluation(
            target: .default, flags: [.reachable, .isDirect], interface: "eth0", interfaceKind: .ethernet,
            family: .ipv4, table: 254, address: "0.0.0.0"))
        metrics.reachabilityChanged(ReachabilityEvaluation(
            target: try ReachabilityTarget(parsing: "api.example.test"), flags: [.reachable, .connectionRequired]))
        metrics.netlinkResyncs(total: 2)
        metrics.alertSent(sink: "pager", kind: "pin_mismatch")
        metrics.alertsPending(3)
        metrics.healthy(true)
        metrics.store(writable: true, queuedRows: 0)
        metrics.storeDroppedRows(2)
        metrics.resourceExhausted()
        metrics.eventSubscribers(1)
        metrics.eventSubscriberRefused()
        metrics.schedulerPunctuality(skippedTicks: 1, lateness: [(0.5, 0.001), (0.99, 0.004), (1, 0.02)])
        metrics.fleetStarted(streams: ["probe_results"])
        metrics.fleetProgress(lagSeconds: 1.5, backlog: ["probe_results": 3])
        metrics.fleetShipped(stream: "probe_results", rows: 10, unixSeconds: 1_795_000_000)
        metrics.fleetError(kind: "connect")
        metrics.fleetExpired(stream: "probe_results", rows: 1)
    }

    /// Samples by series (`name{labels}` as emitted), plus the `# HELP` and `# TYPE` lines by name.
    public struct Exposition {
        public var samples: [String: Double] = [:]
        public var help: [String: String] = [:]
        public var type: [String: String] = [:]

        public init(_ text: String) throws {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
                if line.hasPrefix("# HELP ") {
                    let rest = line.dropFirst(7)
                    let space = try XCTUnwrap(rest.firstIndex(of: " "), String(line))
                    help[String(rest[..<space])] = String(rest[rest.index(after: space)...])
                } else if line.hasPrefix("# TYPE ") {
                    let parts = line.dropFirst(7).split(separator: " ")
                    XCTAssertEqual(parts.count, 2, String(line))
                    XCTAssertNil(type[String(parts[0])], "second TYPE line for \(parts[0])")
                    type[String(parts[0])] = String(parts[1])
                } else {
                    let space = try XCTUnwrap(line.lastIndex(of: " "), String(line))
                    let series = String(line[..<space])
                    XCTAssertNil(samples[series], "duplicate series \(series)")
                    samples[series] = try XCTUnwrap(Double(line[line.index(after: space)...]), String(line))
                }
            }
        }

        /// Series of one metric name.
        public func series(named name: String) -> [String: Double] {
            samples.filter { $0.key == name || $0.key.hasPrefix(name + "{") }
        }
    }
}
