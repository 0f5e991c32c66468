import Foundation
import NIOCore
import NetVigilConcurrency

extension Prober {
    /// Most addresses one `probeEachAddress` call probes (getaddrinfo's first ones beyond this are left out).
    public static let maxAddressesPerProbe = 32

    /// Probes every address of the URL's host at once (`addresses: all`): the `connectTo` addresses when set, else
    /// every address getaddrinfo returns (restricted to `addressFamily`), each pinned for its own probe. All run
    /// concurrently within `configuration.timeout`, resolution included; results keep the address order and each
    /// carries its address in `resolvedAddress`. A host that cannot be resolved gives one failed result; through
    /// a proxy (which resolves the origin itself) this is one ordinary probe.
    public func probeEachAddress(_ request: ProbeRequest, configuration: ProbeConfiguration) async -> [ProbeResult] {
        guard let host = request.url.host, let scheme = request.url.scheme?.lowercased(),
              ProxyRoute(configuration.proxy, host: ConnectOverride.bare(host), usesTLS: scheme == "https") == nil else {
            return [await probe(request, configuration: configuration)]
        }
        let bareHost = ConnectOverride.bare(host)
        let port = request.url.port ?? (scheme == "https" ? 443 : 80)
        let startedAt = Date()
        let start = NIODeadline.now()
        let deadline = start + .nanoseconds(Int64(configuration.timeout * 1e9))
        let addresses: [SocketAddress]
        do {
            addresses = try await candidateAddresses(host: bareHost, port: port, configuration: configuration, deadline: deadline)
        } catch {
            var result = ProbeResult(url: request.url.absoluteString, startedAt: startedAt)
            result.error = error as? ProbeError ?? ProbeError(.dns, "cannot resolve \(bareHost): \(error)")
            result.outcome = .failed
            result.timings.resolve = MonotonicClock.milliseconds(from: start, to: .now())
            result.timings.total = result.timings.resolve
            return [result]
        }
        let resolveMilliseconds = MonotonicClock.milliseconds(from: start, to: .now())
        let remaining = max(0.001, configuration.timeout - resolveMilliseconds / 1_000)
        return await withTaskGroup(of: (Int, ProbeResult).self) { group in
            for (index, address) in addresses.prefix(Self.maxAddressesPerProbe).enumerated() {
                guard let literal = address.ipAddress, let pinned = try? ConnectOverride(host: bareHost, addresses: [literal]) else { continue }
                var single = configuration
                single.connectTo = pinned
                single.timeout = remaining
                single.connectTimeout = min(configuration.connectTimeout, remaining)
                group.addTask {
                    var result = await self.probe(request, configuration: single)
                    result.startedAt = startedAt
                    result.resolvedAddress = result.resolvedAddress ?? literal
                    result.timings.resolve = resolveMilliseconds + (result.timings.resolve ?? 0)
                    result.timings.total = resolveMilliseconds + (result.timings.total ?? 0)
                    return (index, result)
                }
            }
            var results: [(Int, ProbeResult)] = []
            for await entry in group { results.append(entry) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The addresses a hop to `host` connects to: the `connectTo` override's when it applies, else getaddrinfo's
    /// (both restricted to `addressFamily`).
    func candidateAddresses(host: String, port: Int, configuration: ProbeConfiguration,
                            deadline: NIODeadline) async throws -> [SocketAddress] {
        if let override = configuration.connectTo, override.applies(to: host) {
            return try override.socketAddresses(port: port, family: configuration.addressFamily)
        }
        return try await resolve(host, port: port, family: configuration.addressFamily, deadline: deadline)
    }
}
