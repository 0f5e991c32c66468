import NetVigilProber

/// `fanout`: CPU of one `addresses: all` tick over N addresses (`--addresses 127.0.0.1,127.0.0.2,...`, every one
/// served by the same nginx) against one probe of the first address, both via `connect_to`, one after the other
/// in alternating rounds (`--rounds`, `--ticks` each). Prints the pooled ratio (issue #18: at most 4.2 for 4).
func fanOut(prober: Prober, request: ProbeRequest, configuration: ProbeConfiguration) async {
    let addresses = argument("--addresses", default: "127.0.0.1,127.0.0.2,127.0.0.3,127.0.0.4").split(separator: ",").map(String.init)
    let rounds = Int(argument("--rounds", default: "5")) ?? 5
    let ticks = Int(argument("--ticks", default: "200")) ?? 200
    guard let host = request.url.host,
          let all = try? ConnectOverride(host: host, addresses: addresses),
          let one = try? ConnectOverride(host: host, addresses: [addresses[0]]) else { fail("--addresses: IP literals, comma-separated") }
    var single = configuration, each = configuration
    single.connectTo = one
    each.connectTo = all
    var singleCPU = 0.0, eachCPU = 0.0, failures = 0
    for _ in 0..<10 { _ = await prober.probeEachAddress(request, configuration: each) }  // warm-up
    for round in 1...rounds {
        var start = cpuSeconds()
        for _ in 0..<ticks where await !prober.probe(request, configuration: single).isOK { failures += 1 }
        singleCPU += cpuSeconds() - start
        start = cpuSeconds()
        for _ in 0..<ticks { failures += await prober.probeEachAddress(request, configuration: each).filter { !$0.isOK }.count }
        eachCPU += cpuSeconds() - start
        print("round \(round): ratio so far \(String(format: "%.3f", eachCPU / singleCPU))")
    }
    guard failures == 0 else { fail("\(failures) probes failed: does the server listen on every address?") }
    print("RESULT fanout addresses=\(addresses.count) ticks=\(rounds * ticks) single_cpu_ms=\(String(format: "%.3f", singleCPU / Double(rounds * ticks) * 1_000)) "
          + "tick_cpu_ms=\(String(format: "%.3f", eachCPU / Double(rounds * ticks) * 1_000)) ratio=\(String(format: "%.3f", eachCPU / singleCPU))")
}
