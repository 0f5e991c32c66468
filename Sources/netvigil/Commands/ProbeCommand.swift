import ArgumentParser
import Foundation
import NIOHTTP1
import NetVigilAgent
import NetVigilProber
import NetVigilTrust

/// `netvigil probe URL` or `netvigil probe --config FILE --target NAME`: one probe through the full request stack, as
/// the daemon runs it.
struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Probe one URL or configured target: resolve, connect, TLS with trust evaluation, request, response checks, phase timings.",
        discussion: """
            The request is only sent after the served chain is trusted under the policy flags (as in \
            `netvigil trust evaluate`). --config FILE --target NAME probes a target of the daemon's configuration \
            with its URL, request, TLS policy, anchors, client certificate and expectations (only --timeout, --json, \
            --all-addresses, --http-version and the address family flags may be added). --all-addresses probes every address of the \
            host at once and prints one result per address (--json: an array); --connect-to ADDR (repeatable) \
            connects there instead of resolving, keeping SNI, the certificate host check and Host from the URL. --cert FILE --key FILE present a client certificate (mTLS) \
            to the URL's host when it asks for one; a server that wants one and gets none fails as \
            clientCertificateRequired, one that refuses it as clientCertificateRejected (naming its TLS alert). DURATION: 500ms, 10s, 5m, 72h, 30d. --expect-json takes 'PATH == VALUE' \
            with PATH like $.a.b[0] and VALUE JSON (or a bare string). Exit codes: 0 ok, 1 failed, 64 usage, \
            78 bad configuration.
            """)

    @Argument(help: "http://, https:// or TLS service URL: tls://HOST:PORT, smtp://, submission://, smtps://, imap://, imaps://, pop3://, pop3s://, ldap://, ldaps://, postgres:// (or give --config and --target).")
    var url: String?

    @OptionGroup var targetOptions: ConfiguredTargetOptions

    @Option(name: .long, help: "GET, HEAD, POST, PUT, PATCH or DELETE (default GET).")
    var method: String?

    @Option(name: .long, help: "A request header \"Name: value\" (repeatable; values are never printed).")
    var header: [String] = []

    @Option(name: .long, help: "A query parameter k=v (repeatable).")
    var query: [String] = []

    @Option(name: .long, help: "A form parameter k=v (repeatable): the query for GET/HEAD/DELETE, else the body.")
    var form: [String] = []

    @Option(name: .long, help: "A JSON body, or @FILE.")
    var jsonBody: String?

    @Option(name: .long, help: "USER:PASS for HTTP basic authentication.")
    var basicAuth: String?

    @Option(name: .long, help: "Whole-probe timeout (DURATION, default 10s or the target's timeout).")
    var timeout: String?

    @Option(name: .long, help: "Acceptable statuses, e.g. 200-299 or 200,204 (default 200-299).")
    var expectStatus: String?

    @Option(name: .long, help: "An acceptable content type (repeatable).")
    var expectContentType: [String] = []

    @Option(name: .long, help: "'PATH == VALUE' on the JSON body (repeatable).")
    var expectJson: [String] = []

    @Option(name: .long, help: "Text the body must contain (repeatable).")
    var expectBodyContains: [String] = []

    @Option(name: .long, help: "A regular expression the body must match (repeatable).")
    var expectBodyMatches: [String] = []

    @Option(name: .long, help: "Longest acceptable total time (DURATION).")
    var maxResponseTime: String?

    @Option(name: .long, help: "Least remaining validity of the leaf certificate (DURATION, e.g. 72h).")
    var minCertValidity: String?

    @Flag(name: .long, help: "Do not follow redirects.")
    var noFollowRedirects = false

    @Flag(name: .long, help: "Follow a redirect from https:// to http:// (default: fail as insecureRedirect).")
    var allowDowngradeRedirects = false

    @Flag(name: .long, help: "Keep --header and --basic-auth when a redirect changes scheme, host or port (never on a downgrade).")
    var sendCredentialsOnRedirect = false

    @Flag(name: .customLong("ip4"), help: "IPv4 only.")
    var ip4 = false

    @Flag(name: .customLong("ip6"), help: "IPv6 only.")
    var ip6 = false

    @Flag(name: .customLong("prefer-ip4"), help: "Try IPv4 addresses first, then IPv6 (default: getaddrinfo's order).")
    var preferIP4 = false

    @Flag(name: .customLong("prefer-ip6"), help: "Try IPv6 addresses first, then IPv4.")
    var preferIP6 = false

    @Option(name: .long, help: "auto (offer h2 and http/1.1 in ALPN, the default), 1.1, or 2 (fail as http2Unavailable without HTTP/2).")
    var httpVersion: String?

    @OptionGroup var policyOptions: TrustPolicyOptions

    @OptionGroup(title: "Client certificate (mTLS)") var clientCertificateOptions: ClientCertificateOptions
    @OptionGroup var proxyOptions: ProxyOptions
    @OptionGroup(title: "Addresses") var addressOptions: AddressOptions
    @OptionGroup(title: "Path") var sourceOptions: SourceOptions

    @Flag(name: .long, help: "Print the ProbeResult as JSON.")
    var json = false

    func run() async throws {
        try await withCLIFailureHandling {
            let (request, configuration, eachAddress) = try targetOptions.isGiven ? configuredTarget() : build()
            try await probeAndPrint(request, configuration: configuration, eachAddress: eachAddress)
        }
    }

    private func build() throws -> (ProbeRequest, ProbeConfiguration, Bool) {
        guard let url else { throw CLIFailure(.usage, "give a URL, or --config FILE --target NAME") }
        let method = self.method ?? "GET"
        let httpMethod = HTTPMethod(rawValue: method.uppercased())
        guard ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].contains(method.uppercased()) else {
            throw CLIFailure(.usage, "--method: \(method) is not GET, HEAD, POST, PUT, PATCH or DELETE")
        }
        try checkAddressFamilyFlags()
        var headers: [(name: String, value: String)] = []
        for text in header {
            guard let colon = text.firstIndex(of: ":") else { throw CLIFailure(.usage, "--header: want \"Name: value\"") }
            headers.append((String(text[..<colon]).trimmingCharacters(in: .whitespaces),
                            String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        if let basicAuth {
            guard let colon = basicAuth.firstIndex(of: ":") else { throw CLIFailure(.usage, "--basic-auth: want USER:PASS") }
            headers.append(("Authorization", RequestSerializer.basicAuthorization(
                user: String(basicAuth[..<colon]), password: String(basicAuth[basicAuth.index(after: colon)...]))))
        }
        var body: String? = nil
        if let jsonBody {
            if jsonBody.hasPrefix("@") {
                let path = String(jsonBody.dropFirst())
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CLIFailure(.noInput, "--json-body: cannot read \(path)")
                }
                body = String(decoding: data, as: UTF8.self)
            } else {
                body = jsonBody
            }
        }
        if let components = URLComponents(string: url), components.user != nil || components.password != nil {
            throw CLIFailure(.usage, "URL: credentials in the URL are not accepted; use --basic-auth USER:PASS")
        }
        var target = url
        if !query.isEmpty {
            let encoded = QueryString.encode(try Self.pairs(query, option: "--query"))
            target += (url.contains("?") ? "&" : "?") + encoded
        }
        let request: ProbeRequest
        if let service = URL(string: url).flatMap(ServiceScheme.init(url:)) {
            request = try serviceRequest(url, scheme: service)
        } else {
            do {
                request = try RequestSerializer(version: NetVigilVersion.current).request(
                    method: httpMethod, url: target, parameters: try Self.pairs(form, option: "--form"), headers: headers, jsonBody: body)
            } catch {
                throw CLIFailure(.usage, "\(error)")
            }
        }

        let timeoutSeconds = try timeoutOverride() ?? 10
        var serializer = expectJson.isEmpty ? ResponseSerializer.http : ResponseSerializer.json
        if expectJson.isEmpty == false, expectContentType.isEmpty { serializer.acceptableContentTypes = ResponseSerializer.json.acceptableContentTypes }
        if !expectContentType.isEmpty { serializer.acceptableContentTypes = Set(expectContentType.map { $0.lowercased() }) }
        if let expectStatus { serializer.acceptableStatusCodes = try Self.statuses(expectStatus) }
        var expectations = ProbeExpectations(bodyContains: expectBodyContains, bodyMatches: expectBodyMatches)
        for text in expectJson {
            do { expectations.jsonPaths.append(try JSONPathExpectation(parsing: text)) } catch {
                throw CLIFailure(.usage, "--expect-json: \(error)")
            }
        }
        for pattern in expectBodyMatches where (try? NSRegularExpression(pattern: pattern)) == nil {
            throw CLIFailure(.usage, "--expect-body-matches: invalid regular expression \"\(pattern)\"")
        }
        if let maxResponseTime {
            guard let value = DurationOption.parse(maxResponseTime) else { throw CLIFailure(.usage, "--max-response-time: cannot parse \"\(maxResponseTime)\"") }
            expectations.maxResponseTime = value
        }
        if let minCertValidity {
            guard let value = DurationOption.parse(minCertValidity) else { throw CLIFailure(.usage, "--min-cert-validity: cannot parse \"\(minCertValidity)\"") }
            expectations.minCertificateValidity = value
        }
        let policy = try policyOptions.policy()
        if !json { for warning in policy.warnings { printError("warning: \(warning)") } }
        var configuration = ProbeConfiguration(
            trustStore: try policyOptions.trustStore(), policies: try PolicySet(default: policy, entries: []),
            timeout: timeoutSeconds, connectTimeout: min(5, timeoutSeconds), maxRedirects: noFollowRedirects ? 0 : 10,
            allowsDowngradeRedirects: allowDowngradeRedirects, sendsCredentialsOnRedirect: sendCredentialsOnRedirect,
            addressFamily: ip4 ? .ipv4 : (ip6 ? .ipv6 : .any), preferredFamily: preferIP4 ? .ipv4 : (preferIP6 ? .ipv6 : .system),
            responseSerializer: serializer, expectations: expectations)
        // The certificate goes to the URL's host only, never to a redirect's other host.
        if let identity = try clientCertificateOptions.identity(warn: { if !json { printError("warning: \($0)") } }),
           let host = request.url.host {
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            do {
                configuration.clientIdentities.set(identity, for: try HostPattern(bare))
            } catch {
                throw CLIFailure(.usage, "URL: \(error)")
            }
        }
        configuration.proxy = try proxyOptions.configuration()
        try addressOptions.check(proxy: configuration.proxy)
        configuration.connectTo = try addressOptions.override(for: url)
        try sourceOptions.apply(to: &configuration)
        try applyHTTPVersion(to: &configuration, url: request.url)
        return (request, configuration, addressOptions.allAddresses)
    }

    static func pairs(_ items: [String], option: String) throws -> [String: RequestParameter] {
        var result: [String: RequestParameter] = [:]
        for item in items {
            guard let equals = item.firstIndex(of: "=") else { throw CLIFailure(.usage, "\(option): want k=v, got \"\(item)\"") }
            let key = String(item[..<equals]), value = RequestParameter.string(String(item[item.index(after: equals)...]))
            switch result[key] {
            case nil: result[key] = value
            case .array(let values)?: result[key] = .array(values + [value])
            case let existing?: result[key] = .array([existing, value])
            }
        }
        return result
    }

    static func statuses(_ text: String) throws -> Set<Int> {
        guard let codes = StatusCodeSet.parse(list: text) else {
            throw CLIFailure(.usage, "--expect-status: cannot parse \"\(text)\" (want 200-299 or 200,204)")
        }
        return codes
    }
}
