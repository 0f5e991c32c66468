import Foundation
import NIOCore
import NIOPosix

extension Prober {
    /// Probes a non-HTTP target (`ServiceScheme`): resolve, connect (next address only when connecting failed),
    /// the protocol's negotiation with TLS, trust and pins, a clean goodbye. The result carries no HTTP fields;
    /// `min_cert_validity` and `max_response_time` still apply.
    func probeService(_ url: URL, scheme: ServiceScheme, configuration: ProbeConfiguration) async -> ProbeResult {
        var result = ProbeResult(url: url.absoluteString)
        let start = NIODeadline.now()
        let deadline = start + .nanoseconds(Int64(configuration.timeout * 1e9))
        do {
            guard let rawHost = url.host, !rawHost.isEmpty, let port = url.port ?? scheme.defaultPort else {
                throw ProbeError(.invalidRequest, "invalid URL \(url.absoluteString) (\(scheme.rawValue):// needs a host"
                                 + (scheme.defaultPort == nil ? " and a port)" : ")"))
            }
            let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
            let resolveStart = NIODeadline.now()
            let resolved: [SocketAddress]
            do {
                defer { result.timings.resolve = MonotonicClock.milliseconds(from: resolveStart, to: .now()) }
                resolved = try await resolve(host, port: port, family: configuration.addressFamily, deadline: deadline)
            }
            var failure: ProbeError? = ProbeError(.connect, "no address to connect to")
            for address in configuration.preferredFamily.ordered(resolved, isIPv6: { $0.protocol == .inet6 }) {
                let recorder = HopRecorder()
                do {
                    defer { record(recorder, address: address, into: &result) }
                    try await negotiate(scheme, address: address, host: host, configuration: configuration,
                                        deadline: deadline, recorder: recorder)
                    failure = nil
                    break
                } catch let error as ProbeError {
                    failure = error
                    guard [.connectRefused, .connect, .connectTimeout].contains(error.kind) else { break }
                }
            }
            if let failure { throw failure }
        } catch let error as ProbeError {
            result.error = error
        } catch {
            result.error = ProbeError(.protocolGreeting, "\(error)")
        }
        result.timings.total = MonotonicClock.milliseconds(from: start, to: .now())
        if result.error == nil {
            let failures = configuration.expectations.failures(body: [], json: nil, totalMilliseconds: result.timings.total ?? 0,
                                                               leafNotAfter: result.servedChain.first?.notAfter)
            result.expectationFailures = failures
            if let first = failures.first {
                result.error = ProbeError(.expectation, failures.count == 1 ? first : "\(first) (and \(failures.count - 1) more)")
            }
        }
        result.outcome = result.error == nil ? .ok : .failed
        return result
    }

    /// One connection: connect, then `ServiceNegotiationHandler` with the TLS handler made on the server's go-ahead.
    private func negotiate(_ scheme: ServiceScheme, address: SocketAddress, host: String, configuration: ProbeConfiguration,
                           deadline: NIODeadline, recorder: HopRecorder) async throws {
        let loop = group.any()  // the loop the task runs on, when it is one of ours
        let promise = loop.makePromise(of: Void.self)
        let remaining = deadline - .now()
        let connectLimit = min(TimeAmount.nanoseconds(Int64(configuration.connectTimeout * 1e9)), remaining)
        guard connectLimit > .zero else {
            throw ProbeError(.timeout, "no time left to connect", phase: ProbePhase.connect.rawValue)
        }
        // No ALPN: the HTTP protocol names mean nothing to these servers. The host's client certificate, if any.
        var withoutALPN = configuration.tlsConfiguration(for: host)
        withoutALPN.alpnProtocols = []
        let tls = withoutALPN
        let fetcher = CRLFetcher(prober: self, cache: configuration.crlCache, template: configuration)
        recorder.connectStart = .now()
        let bootstrap = try Self.bound(ClientBootstrap(group: loop), source: configuration.source, destination: address)
            .connectTimeout(connectLimit)
            .channelInitializer(Self.bindingSource(configuration.source) { [recorder] channel in
                let handler = ServiceNegotiationHandler(
                    negotiation: scheme.negotiation(), usesSTARTTLS: scheme.usesSTARTTLS, deadline: deadline, promise: promise,
                    recorder: recorder,
                    makeTLS: { onHandshake in
                        // Revocation downloads run before the handler's go-ahead, as for https.
                        try OpenSSLTLSHandler.probing(
                            configuration, tls: tls, host: host, recorder: recorder,
                            onHandshake: { info in
                                recorder.tls = info
                                onHandshake(info)
                            },
                            deferredDecision: { _ in
                                Self.revocationDecision(recorder: recorder, fetcher: fetcher, deadline: deadline, loop: channel.eventLoop)
                            })
                    })
                return channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            })
        let exchange = bootstrap.connect(to: address)
            .flatMapErrorThrowing { error -> any Channel in
                promise.fail(error)
                throw ConnectFailure(underlying: error)
            }
            .flatMap { channel in promise.futureResult.always { _ in channel.close(promise: nil) } }
        do {
            try await exchange.valueUnlessCancelled { promise.fail(CancellationError()) }
        } catch let failure as ConnectFailure {
            let cappedByDeadline = remaining < .nanoseconds(Int64(configuration.connectTimeout * 1e9)) || NIODeadline.now() >= deadline
            throw Self.connectError(failure.underlying, address: address, cappedByDeadline: cappedByDeadline,
                                    source: configuration.source)
        } catch {
            throw ServiceNegotiationHandler.probeError(for: error)
        }
    }
}
