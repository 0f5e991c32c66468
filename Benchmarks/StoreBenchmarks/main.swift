// Store ingest benchmark: batched probe results with 3-certificate chains (deduplicated).
//
//   swift build -c release --product StoreBenchmarks
//   .build/release/StoreBenchmarks --db /tmp/bench.sqlite --rows 1000000 [--batch 1000] [--chains 50]
//
// Prints one line: rows, seconds, rows/s. The database is left for the export benchmark.
import Foundation
import NetVigilProbeModel
import NetVigilStore

/// Unknown options or a missing value end the run with one usage line instead of benchmarking with defaults.
let knownOptions: Set<String> = ["--db", "--rows", "--batch", "--chains"]
do {
    var index = 1
    let arguments = CommandLine.arguments
    while index < arguments.count {
        guard knownOptions.contains(arguments[index]), index + 1 < arguments.count else {
            FileHandle.standardError.write(Data(("StoreBenchmarks: unexpected argument \(arguments[index]); usage: "
                + "StoreBenchmarks --db PATH [--rows N] [--batch N] [--chains N]\n").utf8))
            exit(64)
        }
        index += 2
    }
}

func argument(_ name: String, default value: String) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: name), index + 1 < arguments.count { return arguments[index + 1] }
    return value
}

let path = argument("--db", default: "/tmp/netvigil-bench.sqlite")
let rows = Int(argument("--rows", default: "1000000")) ?? 1_000_000
let batchSize = Int(argument("--batch", default: "1000")) ?? 1_000
let chainCount = Int(argument("--chains", default: "50")) ?? 50

for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
let store = try Store.open(path: path)
let base = Timestamp.now().adding(.seconds(-Int64(rows) / 100))

func certificate(_ n: Int) -> CertificateRecord {
    CertificateRecord(sha256: String(format: "%064x", n), pem: String(repeating: "A", count: 1_200),
                      subject: "CN=host\(n).example.com,O=Example", issuer: "CN=Example Intermediate \(n / 3)",
                      serial: String(n, radix: 16), notBefore: base, notAfter: base.adding(.seconds(86_400 * 90)),
                      spkiPin: "sha256/\(Data(String(format: "%032x", n).utf8).base64EncodedString())")
}
let chains = (0..<chainCount).map { c in (0..<3).map { certificate(c * 3 + $0) } }

func makeBatch(_ start: Int) -> WriteBatch {
    WriteBatch(probes: (start..<min(start + batchSize, rows)).map { i in
        let chain = chains[i % chainCount]
        return ProbeRecord(
            time: base.adding(.milliseconds(Int64(i) * 10)), target: "target-\(i % 1_000)", url: "https://t\(i % 1_000).example/health",
            outcome: .ok, httpStatus: 200, httpVersion: "1.1", contentType: "application/json", contentLength: 42,
            timings: PhaseTimings(resolve: 0.2, connect: 0.3, tls: 2.1, processing: 1.2, transfer: 0.1, total: 3.9),
            tlsVersion: "TLSv1.3", tlsCipher: "TLS_AES_128_GCM_SHA256", alpn: "http/1.1", trustVerdict: .trusted,
            pinVerdict: .matched, reachabilityStatus: "ReachableViaWiFi", resolvedAddress: "127.0.0.1",
            servedChain: chain, validatedChain: chain)
    })
}

// Batches are built before timing so the figure is the store's, not the generator's.
let batches = stride(from: 0, to: rows, by: batchSize).map(makeBatch)
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
let clock = ContinuousClock()
let cpuStart = cpuSeconds()
let start = clock.now
for batch in batches {
    try await store.write(batch)
}
let elapsed = clock.now - start
let cpu = cpuSeconds() - cpuStart
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let stats = try await store.statistics()
print(String(format: "ingest: %d probe results (%d certificates stored, chains of 3 served + 3 validated), batches of %d: %.2f s wall = %.0f rows/s; %.2f s CPU = %.0f rows per CPU-second",
             stats.probeResults, stats.certificates, batchSize, seconds, Double(rows) / seconds, cpu, Double(rows) / cpu))
