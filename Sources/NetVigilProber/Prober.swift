import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NetVigilConcurrency
import NetVigilProbeModel
import NetVigilTrust

/// Runs probes: resolve → connect → TLS with trust evaluation → request → response validation, phase by phase.
public struct Prober: Sendable {
    let group: any EventLoopGroup

    /// A prober on `group` (default: NIO's shared event loop group). A probe whose task runs on one of the group's
    /// loops (``nextTaskExecutor()``) connects on that loop; otherwise it takes the group's next loop.
    public init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.group = group
    }

    /// The task executor a probing task prefers: the group's next event loop. Connect, TLS, the response and the
    /// task's own code then run on one thread, with no hop per await (the daemon's scheduler starts every probe's
    /// task with it, the probe benchmarks theirs).
    public func nextTaskExecutor() -> EventLoopTaskExecutor {
        EventLoopTaskExecutor(loop: group.next())
    }

    /// Probes `request` and never throws: every failure is a typed `ProbeError` in the result.
    public func probe(_ request: ProbeRequest, configuration: ProbeConfiguration) async -> ProbeResult {
        await fetch(request, configuration: configuration).result
    }

    /// Like `probe`, and also returns the final response (status, headers, body) when one arrived: for clients of
    /// the request stack that need the body (`netvigil status`, webhook deliveries).
    public func fetch(_ request: ProbeRequest, configuration: ProbeConfiguration) async -> (result: ProbeResult, response: HTTPResponse?) {
        if let scheme = ServiceScheme(url: request.url) {
            var result = await probeService(request.url, scheme: scheme, configuration: configuration)
            result.interface = configuration.source?.interfaceName
            return (result, nil)
        }
        var result = ProbeResult(url: request.url.absoluteString)
        result.interface = configuration.source?.interfaceName
        let start = NIODeadline.now()
        let deadline = start + .nanoseconds(Int64(configuration.timeout * 1e9))
        var current = request
        var response: HTTPResponse? = nil
        do {
            while true {
                let received = try await hop(current, configuration: configuration, deadline: deadline, result: &result)
                result.finalURL = current.url.absoluteString
                result.status = received.status
                result.httpVersion = received.version
                result.contentType = received.mimeType
                result.contentLength = received.body.count
                if configuration.maxRedirects > 0, [301, 302, 303, 307, 308].contains(received.status),
                   let location = received.headers.first(name: "Location") {
                    guard result.redirects.count < configuration.maxRedirects else {
                        throw ProbeError(.httpProtocol, "more than \(configuration.maxRedirects) redirects")
                    }
                    let next = try Self.redirectTarget(location, from: current.url, status: received.status,
                                                       configuration: configuration)
                    result.redirects.append(.init(url: current.url.absoluteString, status: received.status, location: next.absoluteString))
                    current = Self.redirected(current, to: next, status: received.status,
                                              keepsCredentials: configuration.sendsCredentialsOnRedirect)
                    continue
                }
                response = received
                break
            }
        } catch let error as ProbeError {
            result.error = error
        } catch {
            result.error = ProbeError(.httpProtocol, "\(error)")
        }
        result.timings.total = MonotonicClock.milliseconds(from: start, to: .now())
        if let response, result.error == nil {
            validate(response, configuration: configuration, result: &result)
        }
        result.outcome = result.error == nil ? .ok : .failed
        return (result, response)
    }

    private func validate(_ response: HTTPResponse, configuration: ProbeConfiguration, result: inout ProbeResult) {
        var serializer = configuration.responseSerializer
        if !configuration.expectations.jsonPaths.isEmpty { serializer.parsesJSON = true }
        let output = serializer.serialize(response)
        if let error = output.error, error.kind != .httpProtocol || configuration.expectations.jsonPaths.isEmpty {
            result.error = error
            if error.kind == .contentType { return }
        }
        let leafExpiry = result.servedChain.first?.notAfter
        let failures = configuration.expectations.failures(body: response.body, json: output.object,
                                                           totalMilliseconds: result.timings.total ?? 0, leafNotAfter: leafExpiry)
        result.expectationFailures = failures
        if result.error == nil, let first = failures.first {
            result.error = ProbeError(.expectation, failures.count == 1 ? first : "\(first) (and \(failures.count - 1) more)")
        }
    }

    /// The request for the next hop: 303 (and 301/302 after POST) becomes GET without body, as browsers do. When
    /// the scheme, host or port changes, only `originFreeHeaders` go along (curl's rule), unless `keepsCredentials`
    /// and the redirect is not a downgrade to http://.
    static func redirected(_ request: ProbeRequest, to url: URL, status: Int, keepsCredentials: Bool = false) -> ProbeRequest {
        var next = request
        next.url = url
        if status == 303 || ((status == 301 || status == 302) && request.method == .POST) {
            if request.method != .HEAD { next.method = .GET }
            next.body = []
            next.headers.removeAll { ["content-type", "content-length"].contains($0.name.lowercased()) }
        }
        let downgrade = request.url.scheme?.lowercased() == "https" && url.scheme?.lowercased() == "http"
        if Origin(request.url) != Origin(url), !keepsCredentials || downgrade {
            next.headers.removeAll { !originFreeHeaders.contains($0.name.lowercased()) }
        }
        return next
    }

    /// Headers that carry no credentials and go to any origin; every other header (Authorization, Cookie,
    /// Proxy-Authorization, configured ones) stays with the origin it was configured for.
    static let originFreeHeaders: Set<String> = ["user-agent", "accept", "accept-encoding", "content-type"]

    /// Scheme, host and port: a redirect that changes any of them is a change of origin.
    struct Origin: Equatable {
        var scheme: String?, host: String?, port: Int?

        init(_ url: URL) {
            scheme = url.scheme?.lowercased()
            host = url.host?.lowercased()
            port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        }
    }

    /// The next hop's URL: `location` resolved against `current`, without user info; an https:// → http://
    /// redirect is refused unless the configuration allows downgrades (the http:// URL is never contacted).
    static func redirectTarget(_ location: String, from current: URL, status: Int, configuration: ProbeConfiguration) throws(ProbeError) -> URL {
        guard let resolved = URL(string: location, relativeTo: current)?.absoluteURL, let next = withoutUserInfo(resolved),
              let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https", next.host != nil else {
            throw ProbeError(.httpProtocol, "redirect to an invalid location (not an http:// or https:// URL with a host)")
        }
        if current.scheme?.lowercased() == "https", scheme == "http", !configuration.allowsDowngradeRedirects {
            throw ProbeError(.insecureRedirect, "\(status) redirect from \(current.absoluteString) to \(next.absoluteString) not followed: "
                             + "https:// to http:// would send the request in clear text (follow_redirects.allow_downgrade)")
        }
        return next
    }

    /// `url` without `user:password@` (a server's Location may carry credentials; they are never stored or sent).
    static func withoutUserInfo(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        guard components.user != nil || components.password != nil else { return url }
        components.user = nil
        components.password = nil
        return components.url
    }

    // MARK: One hop

    private func hop(_ request: ProbeRequest, configuration: ProbeConfiguration, deadline: NIODeadline,
                     result: inout ProbeResult) async throws -> HTTPResponse {
        guard let host = request.url.host, let scheme = request.url.scheme?.lowercased() else {
            throw ProbeError(.invalidRequest, "invalid URL \(request.url.absoluteString)")
        }
        let usesTLS = scheme == "https"
        if configuration.httpVersion == .http2, !usesTLS { throw Self.http2Unavailable(url: request.url) }
        let port = request.url.port ?? (usesTLS ? 443 : 80)
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        // Through a proxy the proxy is resolved and connected to; its failures never lead to a direct connection.
        let route = ProxyRoute(configuration.proxy, host: bareHost, usesTLS: usesTLS)

        if route != nil, let refusal = configuration.fetchGuard?.refusal(host: bareHost, port: port) {
            // Through a proxy only the name or literal can be judged: the proxy resolves it.
            configuration.fetchGuard?.refused?(refusal)
            throw ProbeError(.connect, refusal.message)
        }
        let resolveStart = NIODeadline.now()
        var resolved: [SocketAddress]
        do {
            defer { result.timings.resolve = (result.timings.resolve ?? 0) + MonotonicClock.milliseconds(from: resolveStart, to: .now()) }
            if let route {
                resolved = try await resolve(route.proxy.host, port: route.proxy.port, family: configuration.addressFamily, deadline: deadline)
            } else {
                resolved = try await candidateAddresses(host: bareHost, port: port, configuration: configuration, deadline: deadline)
            }
        } catch let error as ProbeError {
            throw Self.proxyFailure(error, route: route)
        }
        if route == nil, let fetchGuard = configuration.fetchGuard {
            // The addresses connected to are judged, not the URL's text: a name resolving to a refused address counts.
            resolved = try fetchGuard.allowed(resolved, host: bareHost)
        }
        let addresses = configuration.preferredFamily.ordered(resolved, isIPv6: { $0.protocol == .inet6 })

        var lastError = ProbeError(.connect, "no address to connect to")
        for address in addresses {
            let recorder = HopRecorder()
            let response: HTTPResponse
            do {
                response = try await exchange(request, address: address, host: bareHost, port: port, usesTLS: usesTLS,
                                              route: route, configuration: configuration, deadline: deadline, recorder: recorder)
            } catch let error as ProbeError {
                record(recorder, address: address, into: &result)
                lastError = Self.proxyFailure(error, route: route)
                // Fall back to the next address only when this one could not be connected to.
                guard [.connectRefused, .connect, .connectTimeout].contains(error.kind) else { throw lastError }
                continue
            }
            record(recorder, address: address, into: &result)
            try Self.checkProxyAnswer(response, route: route)
            return response
        }
        throw lastError
    }

    /// getaddrinfo on a `BlockingWork` (Dispatch) thread, never the event loop, bounded by `deadline`: when the
    /// resolver does not answer in time the probe fails with a resolve-phase timeout at once (the blocked lookup
    /// finishes on its pool thread and is dropped).
    func resolve(_ host: String, port: Int, family: AddressFamily, deadline: NIODeadline) async throws -> [SocketAddress] {
        if let literal = try Resolver.literal(host, port: port, family: family) { return [literal] }  // no thread hop
        let loop = group.any()  // the loop the task runs on, when it is one of ours
        guard deadline > .now() else {
            throw ProbeError(.timeout, "no time left to resolve \(host)", phase: ProbePhase.resolve.rawValue)
        }
        let promise = loop.makePromise(of: [SocketAddress].self)
        // Both callbacks run on `loop`: whichever comes first completes the promise, the other is dropped.
        let settled = NIOLoopBoundBox.makeBoxSendingValue(false, eventLoop: loop)
        let timeout = loop.scheduleTask(deadline: deadline) {
            guard !settled.value else { return }
            settled.value = true
            promise.fail(ProbeError(.timeout, "resolving \(host) used up the probe timeout", phase: ProbePhase.resolve.rawValue))
        }
        BlockingWork.submit {
            try Resolver.resolve(host: host, port: port, family: family)
        } completion: { outcome in
            loop.execute {
                timeout.cancel()
                guard !settled.value else { return }
                settled.value = true
                promise.completeWith(outcome)
            }
        }
        do {
            return try await promise.futureResult.valueUnlessCancelled { promise.fail(CancellationError()) }
        } catch let error as ProbeError {
            throw error
        } catch {
            throw ProbeError(.dns, "cannot resolve \(host): \(error)")
        }
    }

    func record(_ recorder: HopRecorder, address: SocketAddress, into result: inout ProbeResult) {
        func add(_ value: Double?, to keyPath: WritableKeyPath<PhaseTimings, Double?>) {
            guard let value else { return }
            result.timings[keyPath: keyPath] = (result.timings[keyPath: keyPath] ?? 0) + value
        }
        result.resolvedAddress = address.ipAddress
        if recorder.proxied, let answered = recorder.connectEnd ?? recorder.proxyAnswered {
            add(MonotonicClock.milliseconds(from: recorder.connectStart, to: answered), to: \.proxy)
        }
        if let connectEnd = recorder.connectEnd {
            if !recorder.proxied { add(MonotonicClock.milliseconds(from: recorder.connectStart, to: connectEnd), to: \.connect) }
            if let starttlsEnd = recorder.starttlsEnd { add(MonotonicClock.milliseconds(from: connectEnd, to: starttlsEnd), to: \.starttls) }
            if let tlsEnd = recorder.tlsEnd { add(MonotonicClock.milliseconds(from: recorder.starttlsEnd ?? connectEnd, to: tlsEnd), to: \.tls) }
        }
        if let sent = recorder.requestSent, let firstByte = recorder.firstByte {
            add(MonotonicClock.milliseconds(from: sent, to: firstByte), to: \.processing)
            if let end = recorder.end { add(MonotonicClock.milliseconds(from: firstByte, to: end), to: \.transfer) }
        }
        if let start = recorder.revocationStart, let end = recorder.revocationEnd {
            add(MonotonicClock.milliseconds(from: start, to: end), to: \.revocation)
        }
        if let tls = recorder.tls {
            result.tls = .init(version: tls.version, cipher: tls.cipher, alpn: tls.alpn)
            result.servedChain = tls.servedChain.map(ProbeResult.ChainCertificate.summarizing)
        }
        if let evaluation = recorder.evaluation {
            result.validatedChain = evaluation.validatedChain.map(ProbeResult.ChainCertificate.summarizing)
            result.trustVerdict = evaluation.verdict.summary
            result.pinVerdict = evaluation.pinVerdict
            result.trustMessage = evaluation.message
            result.matchedPins = evaluation.pinVerdict == .matched ? evaluation.pins.matched.map(\.description) : []
            result.findings = evaluation.findings
        }
    }

    private func exchange(_ request: ProbeRequest, address: SocketAddress, host: String, port: Int, usesTLS: Bool,
                          route: ProxyRoute?, configuration: ProbeConfiguration, deadline: NIODeadline, recorder: HopRecorder) async throws -> HTTPResponse {
        let loop = group.any()  // the loop the task runs on, when it is one of ours
        let promise = loop.makePromise(of: HTTPResponse.self)
        let remaining = deadline - .now()
        let connectLimit = min(TimeAmount.nanoseconds(Int64(configuration.connectTimeout * 1e9)), remaining)
        guard connectLimit > .zero else {
            throw ProbeError(.timeout, "no time left to connect", phase: ProbePhase.connect.rawValue)
        }
        let head = Self.requestHead(request, host: host, port: port, usesTLS: usesTLS, route: route)
        let body = request.body
        let fetcher = CRLFetcher(prober: self, cache: configuration.crlCache, template: configuration)
        let tlsConfiguration = configuration.tlsConfiguration(for: host)
        let maxBody = configuration.maxBodyBytes
        let requiresHTTP2 = configuration.httpVersion == .http2
        let offersHTTP2 = usesTLS && tlsConfiguration.alpnProtocols.contains(HTTPVersionPreference.http2ALPN)
        recorder.connectStart = .now()
        if route != nil {
            recorder.proxied = true
            recorder.phase = .proxy
        }
        let bootstrap = try Self.bound(ClientBootstrap(group: loop), source: configuration.source, destination: address)
            .connectTimeout(connectLimit)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer(Self.bindingSource(configuration.source) { channel in
                do {
                    let collector = ResponseCollector(head: head, body: body, maxBodyBytes: maxBody, deadline: deadline,
                                                      usesTLS: usesTLS, promise: promise, recorder: recorder,
                                                      start: offersHTTP2 ? .afterNegotiation : .whenActive)
                    if let route, route.tunnels {
                        try channel.pipeline.syncOperations.addHandler(ProxyConnectHandler(
                            host: host, port: port, proxy: route.proxy, answerTimeout: connectLimit, recorder: recorder))
                    }
                    if usesTLS {
                        let tls = try OpenSSLTLSHandler.probing(
                            configuration, tls: tlsConfiguration, host: host, recorder: recorder,
                            onHandshake: { info in
                                recorder.tls = info
                                collector.handshakeCompleted()
                            },
                            deferredDecision: { _ in
                                Self.revocationDecision(recorder: recorder, fetcher: fetcher, deadline: deadline, loop: channel.eventLoop)
                            })
                        try channel.pipeline.syncOperations.addHandler(tls)
                    }
                    if offersHTTP2 {
                        try Self.addNegotiatedHTTP(to: channel, collector: collector, requiresHTTP2: requiresHTTP2)
                    } else {
                        try channel.pipeline.syncOperations.addProbeHTTP1Handlers()
                        try channel.pipeline.syncOperations.addHandler(collector)
                    }
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            })
        // One await for connect and response (each await is a thread hop back to the probing task).
        let response = bootstrap.connect(to: address)
            .flatMapErrorThrowing { error -> any Channel in
                promise.fail(error)
                throw ConnectFailure(underlying: error)
            }
            .flatMap { channel in
                promise.futureResult.always { _ in channel.close(promise: nil) }
            }
        do {
            return try await response.valueUnlessCancelled { promise.fail(CancellationError()) }
        } catch let failure as ConnectFailure {
            // The probe deadline also closes a channel that is still connecting ("I/O on closed channel"): that is
            // the probe timeout, not a connect failure.
            let cappedByDeadline = remaining < .nanoseconds(Int64(configuration.connectTimeout * 1e9)) || NIODeadline.now() >= deadline
            throw Self.connectError(failure.underlying, address: address, cappedByDeadline: cappedByDeadline,
                                    source: configuration.source)
        } catch {
            throw ResponseCollector.probeError(for: error)
        }
    }

    /// A connect that failed, told apart from a failed exchange on a connected channel.
    struct ConnectFailure: Error {
        var underlying: any Error
    }

    static func connectError(_ error: any Error, address: SocketAddress, cappedByDeadline: Bool, source: ProbeSource? = nil) -> ProbeError {
        if let failure = sourceFailure(error, source: source) { return failure }
        let target = "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
        let channelError = error as? ChannelError
        let timedOut = if case .connectTimeout = channelError { true } else { false }
        // A connect cut short by the probe deadline: our connect timeout (capped to it) or the deadline closing
        // the still-connecting channel.
        if cappedByDeadline, timedOut || channelError == .ioOnClosedChannel || channelError == .eof {
            return ProbeError(.timeout, "connect to \(target) used up the probe timeout", phase: ProbePhase.connect.rawValue)
        }
        if timedOut {
            return ProbeError(.connectTimeout, "connect to \(target) timed out")
        }
        if let ioError = error as? IOError, ioError.errnoCode == ECONNREFUSED {
            return ProbeError(.connectRefused, "connection to \(target) refused")
        }
        if let ioError = error as? IOError, ResourceExhaustion.errnoCodes.contains(ioError.errnoCode) {
            return ProbeError(.resourceExhausted, "cannot connect to \(target): \(ResourceExhaustion.describe(ioError.errnoCode))")
        }
        if let probeError = error as? ProbeError { return probeError }
        return ProbeError(.connect, "cannot connect to \(target): \(error)")
    }

    static func requestHead(_ request: ProbeRequest, host: String, port: Int, usesTLS: Bool, route: ProxyRoute? = nil) -> HTTPRequestHead {
        var uri = request.url.path(percentEncoded: true)
        if uri.isEmpty { uri = "/" }
        if let query = request.url.query(percentEncoded: true) { uri += "?" + query }
        var headers = HTTPHeaders()
        if request.header("Host") == nil {
            let hostField = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host
            headers.add(name: "Host", value: port == (usesTLS ? 443 : 80) ? hostField : "\(hostField):\(port)")
        }
        for header in request.headers { headers.add(name: header.name, value: header.value) }
        if !request.body.isEmpty || [.POST, .PUT, .PATCH].contains(request.method) {
            headers.replaceOrAdd(name: "Content-Length", value: String(request.body.count))
        }
        headers.replaceOrAdd(name: "Connection", value: "close")
        let head = HTTPRequestHead(version: .http1_1, method: request.method, uri: uri, headers: headers)
        return Self.proxied(head, url: Self.absoluteForm(head, host: host, port: port), route: route)
    }
}
