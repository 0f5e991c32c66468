import Foundation
import Logging
import NetVigilAgent
import NetVigilFleet
import NetVigilProbeModel
import NetVigilStore
import PostgresNIO
import Synchronization

// Simulated fleets through the real shipper (issue #53, Benchmarks/run.sh fleet): each agent is a local store that
// gets `targets` probe results every `interval` and a FleetShipper that ships them; afterwards PostgreSQL's rows are
// compared with every local store (lost, duplicated).
//
//   FleetBenchmarks provision --admin URL --agents N --dir DIR     roles agent-0…, passwords DIR/agent-N.pass,
//                                                                  DIR/userlist.txt for pgbouncer (PGPASSWORD: admin)
//   FleetBenchmarks run --admin URL --ship URL --agents N --targets T --interval S --seconds D [--stagger S] --dir DIR
//                                                                  --stagger: agents start over S seconds, as a fleet
//                                                                  rolled out or rebooted over time does (default 0)

func option(_ name: String, _ fallback: String? = nil) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count { return arguments[index + 1] }
    guard let fallback else { fatalError("missing --\(name)") }
    return fallback
}

let mode = CommandLine.arguments.dropFirst().first ?? "run"
let logger = Logger(label: "fleet-bench")
let admin = try PostgresURL(parsing: option("admin"))
let agents = Int(option("agents", "500"))!
let directory = option("dir")
let adminPassword = ProcessInfo.processInfo.environment["PGPASSWORD"].map(Secret.init)
let adminConnector = FleetConnector(url: admin, password: adminPassword, tlsMode: .disable, caFile: nil)

if mode == "provision" {
    let connection = try await adminConnector.connect(logger: logger)
    var userlist = ""
    for index in 0..<agents {
        let name = "agent-\(index)"
        let file = "\(directory)/\(name).pass"
        _ = try await FleetAgentProvisioner.addAgent(name: name, passwordFile: file, connection: connection, logger: logger)
        let password = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        userlist += "\"\(name)\" \"\(password)\"\n"
    }
    try userlist.write(toFile: "\(directory)/userlist.txt", atomically: true, encoding: .utf8)
    try await connection.closeGracefully()
    print("provisioned \(agents) agents")
    exit(0)
}

let ship = try PostgresURL(parsing: option("ship"))
let targets = Int(option("targets", "100"))!
let interval = Double(option("interval", "60"))!
let seconds = Double(option("seconds", "600"))!
let stagger = Double(option("stagger", "0"))!

/// A shipper's logger at warning: a fleet of info lines would drown the figures.
func quiet(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .warning
    return logger
}

struct Agent: Sendable {
    let name: String
    let store: Store
    let shipper: FleetShipper
    let status: FleetShippingStatus
}

var fleet: [Agent] = []
for index in 0..<agents {
    let name = "agent-\(index)"
    let store = try Store.open(path: "\(directory)/\(name).sqlite")
    let password = try String(contentsOfFile: "\(directory)/\(name).pass", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    var url = ship
    url.user = name
    let status = FleetShippingStatus(heartbeat: .seconds(30))
    let shipper = FleetShipper(
        store: store, connector: FleetConnector(url: url, password: Secret(password), tlsMode: .disable, caFile: nil),
        identity: FleetAgentIdentity(agent: name, version: "bench", labels: [:], targets: (0..<targets).map { "t\($0)" },
                                     configBytes: nil),
        heartbeat: .seconds(30), metrics: nil, status: status, logger: quiet("fleet-bench.\(name)"))
    fleet.append(Agent(name: name, store: store, shipper: shipper, status: status))
}
let agentList = fleet

func round(_ agent: Int, _ number: Int) -> WriteBatch {
    let now = Timestamp.now()
    return WriteBatch(probes: (0..<targets).map { target in
        ProbeRecord(time: now, target: "t\(target)", url: "https://t\(target).example/health", outcome: .ok, httpStatus: 200,
                    httpVersion: "1.1", contentType: "application/json", contentLength: 42,
                    timings: PhaseTimings(resolve: 0.2, connect: 0.3, tls: 2.1, processing: 1.2, transfer: 0.1, total: 3.9),
                    tlsVersion: "TLSv1.3", tlsCipher: "TLS_AES_128_GCM_SHA256", alpn: "http/1.1", trustVerdict: .trusted,
                    pinVerdict: .matched, reachabilityStatus: "ReachableViaWiFi", resolvedAddress: "127.0.0.1")
    })
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let started = Date()
let cpuStart = cpuSeconds()
let lagSamples = Mutex<[Double]>([])
try await withThrowingTaskGroup(of: Void.self) { group in
    for (index, agent) in agentList.enumerated() {
        group.addTask {
            try await Task.sleep(for: .seconds(stagger * Double(index) / Double(agents)))
            try await agent.shipper.run()
        }
    }
    try await withThrowingTaskGroup(of: Void.self) { producers in
        for (index, agent) in agentList.enumerated() {
            producers.addTask {
                // Each agent's rounds at its own phase of the interval, as a real fleet's schedules are spread, from
                // its start on.
                try await Task.sleep(for: .seconds((stagger + interval) * Double(index) / Double(agents)))
                var number = 0
                while Date().timeIntervalSince(started) < seconds {
                    try await agent.store.write(round(index, number))
                    number += 1
                    try await Task.sleep(for: .seconds(interval))
                }
            }
        }
        producers.addTask {
            while Date().timeIntervalSince(started) < seconds {
                try await Task.sleep(for: .seconds(1))
                let sample = agentList.map(\.status.lagSeconds)
                lagSamples.withLock { $0.append(contentsOf: sample) }
            }
        }
        try await producers.waitForAll()
    }
    // Drain: every local row shipped (at most 5 minutes).
    let drainStart = Date()
    while Date().timeIntervalSince(drainStart) < 300 {
        var left = 0
        for agent in agentList {
            let cursor = try await agent.store.shippingCursors()[.probeResults] ?? 0
            left += try await agent.store.shippingPage(.probeResults, after: cursor, limit: 0).remaining
        }
        if left == 0 { break }
        try await Task.sleep(for: .seconds(1))
    }
    group.cancelAll()
}
let cpu = cpuSeconds() - cpuStart

// Central vs local.
let connection = try await adminConnector.connect(logger: logger)
var central: [String: (rows: Int, distinct: Int)] = [:]
for try await (agent, rows, distinct) in try await connection.query(
    "SELECT agent, count(*), count(DISTINCT seq) FROM probe_results GROUP BY agent", logger: logger).decode((String, Int, Int).self) {
    central[agent] = (rows, distinct)
}
try await connection.closeGracefully()
var local = 0, lost = 0, duplicated = 0
for agent in agentList {
    let rows = try await agent.store.shippingPage(.probeResults, after: 0, limit: 0).remaining
    local += rows
    let there = central[agent.name] ?? (0, 0)
    lost += max(0, rows - there.distinct)
    duplicated += there.rows - there.distinct + max(0, there.distinct - rows)
}
let sorted = lagSamples.withLock { $0 }.sorted()
let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
print(String(format: "fleet: %d agents (started over %.0f s) × %d targets every %.0f s for %.0f s: %d rows (%.0f rows/s), shipping lag p99 %.1f s, max %.1f s, "
             + "lost %d, duplicated %d; shipper process CPU %.1f s (%.1f s per million rows)",
             agents, stagger, targets, interval, seconds, local, Double(local) / seconds, p99, sorted.last ?? 0, lost, duplicated, cpu,
             local == 0 ? 0 : cpu / Double(local) * 1e6))
