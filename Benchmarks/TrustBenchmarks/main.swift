// TrustBenchmarks: evaluations per second of a 3-certificate RSA-2048 chain (root → intermediate → leaf) with a
// host check and public-key pinning, on one thread. Build and run in release:
//   swift build -c release --product TrustBenchmarks && .build/release/TrustBenchmarks [--seconds N] [--system-roots]
// The chain is generated with the `openssl` CLI in a temporary directory (removed at exit).
import Foundation
import NetVigilTrust

func shell(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw NSError(domain: "TrustBenchmarks", code: Int(process.terminationStatus),
                      userInfo: [NSLocalizedDescriptionKey: "openssl \(arguments.joined(separator: " ")) failed"])
    }
}

var seconds = 5.0
var systemRoots = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--seconds": seconds = Double(arguments.popFirst() ?? "") ?? seconds
    case "--system-roots": systemRoots = true
    default:
        FileHandle.standardError.write(Data("usage: TrustBenchmarks [--seconds N] [--system-roots]\n".utf8))
        exit(64)
    }
}

let dir = NSTemporaryDirectory() + "netvigil-trust-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: dir) }
let config = """
[req]
distinguished_name = dn
prompt = no
[dn]
CN = placeholder
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[leaf_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:bench.example.test

"""
try config.write(toFile: dir + "/pki.cnf", atomically: true, encoding: .utf8)
for name in ["root", "inter", "leaf"] {
    try shell(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "\(dir)/\(name).key"])
}
try shell(["req", "-x509", "-new", "-key", "\(dir)/root.key", "-subj", "/CN=Bench Root", "-days", "30",
           "-config", "\(dir)/pki.cnf", "-extensions", "ca_ext", "-out", "\(dir)/root.pem"])
for (name, issuer, ext, subject) in [("inter", "root", "ca_ext", "/CN=Bench Intermediate"),
                                     ("leaf", "inter", "leaf_ext", "/CN=bench.example.test")] {
    try shell(["req", "-new", "-key", "\(dir)/\(name).key", "-subj", subject, "-config", "\(dir)/pki.cnf", "-out", "\(dir)/\(name).csr"])
    try shell(["x509", "-req", "-in", "\(dir)/\(name).csr", "-CA", "\(dir)/\(issuer).pem", "-CAkey", "\(dir)/\(issuer).key",
               "-set_serial", "\(Int.random(in: 1000...999_999))", "-days", "30", "-sha256",
               "-extfile", "\(dir)/pki.cnf", "-extensions", ext, "-out", "\(dir)/\(name).pem"])
}

let root = try Certificate.load(contentsOf: dir + "/root.pem")[0]
let inter = try Certificate.load(contentsOf: dir + "/inter.pem")[0]
let leaf = try Certificate.load(contentsOf: dir + "/leaf.pem")[0]
// Full verification every time (what a first probe of a chain costs); then the same with the store remembering
// successful verifications (what repeated probes of an unchanged chain cost).
@MainActor func measure(remembering: Bool) throws -> (count: Int, seconds: Double, trusted: Int) {
    let store = try TrustStore(systemRoots: systemRoots, anchors: [root], remembersVerifications: remembering)
    // Pin the intermediate's key plus a backup pin (the root's key): the match happens inside the validated chain.
    let policy = try SecurityPolicy(pinning: .publicKey, pins: [inter.spkiPin, root.spkiPin])
    let evaluator = try ServerTrustEvaluator(policy: policy, trustStore: store)
    let chain = [leaf, inter, root]
    let host = "bench.example.test"

    // Sanity: the benchmarked path is the trusted one.
    let check = evaluator.evaluate(servedChain: chain, host: host)
    guard check.isTrusted, check.validatedChain.count == 3, check.pinVerdict == .matched else {
        FileHandle.standardError.write(Data("benchmark chain is not trusted: \(check.message)\n".utf8))
        exit(70)
    }
    for _ in 0..<500 { _ = evaluator.evaluate(servedChain: chain, host: host) }

    let clock = ContinuousClock()
    var count = 0
    let start = clock.now
    let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
    var trusted = 0
    while clock.now < deadline {
        for _ in 0..<100 {
            if evaluator.evaluate(servedChain: chain, host: host).isTrusted { trusted += 1 }
        }
        count += 100
    }
    let elapsed = start.duration(to: clock.now)
    return (count, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, trusted)
}

let (count, elapsedSeconds, trusted) = try measure(remembering: false)
let perSecond = Double(count) / elapsedSeconds
let microseconds = elapsedSeconds / Double(count) * 1e6
let remembered = try measure(remembering: true)
print("chain: 3 x RSA-2048 (leaf, intermediate, root served), host check, publicKey pinning (intermediate pin)")
print("anchors: test root\(systemRoots ? " + system roots" : "")")
print("evaluations: \(count) in \(String(format: "%.2f", elapsedSeconds)) s, all trusted: \(trusted == count)")
print(String(format: "throughput: %.0f evaluations/s on one thread", perSecond))
print(String(format: "cost: %.1f µs per evaluation", microseconds))
let rememberedRate = String(format: "%.0f evaluations/s, %.1f µs each", Double(remembered.count) / remembered.seconds,
                             remembered.seconds / Double(remembered.count) * 1e6)
print("remembered verifications (same chain again, TrustStore cache): \(rememberedRate), all trusted: \(remembered.trusted == remembered.count)")
