import Foundation
import NetVigilConcurrency
import NetVigilProber
import NetVigilTrust
import NIOHTTP1

/// `targets:` — the endpoints probed periodically.
///
/// ```yaml
/// targets:
///   - name: api
///     url: https://api.example.com/health
///     interval: 30s
///     timeout: 10s
///     method: GET
///     headers: { X-Probe: netvigil }
///     params: { a: { b: 1 }, list: [x, y] }
///     body: { json: { ping: true } }        # or { form: { k: v } }
///     basic_auth: { user: probe, password_file: /etc/netvigil/probe.pass }
///     expect: { status: [200], content_type: [application/json], json: ['$.status == "UP"'],
///               body_contains: [UP], body_matches: ['"status":\s*"UP"'], max_response_time: 500ms,
///               min_cert_validity: 14d }
///     tls: { pinning: publicKey, pins: [sha256/...], ca: [/etc/netvigil/ca.pem], min_version: "1.3" }
///     follow_redirects: { max: 10, allow_downgrade: false }   # or a number (0 = do not follow) or false
///     send_credentials_on_redirect: false   # keep headers and basic_auth when a redirect changes origin
///     ip: any                               # any, 4, 6
///     alerts: [pager]
///     labels: { team: payments }            # merged over the top-level labels
///     rules: { cert_expiring: { within: 33% }, key_changed: { enabled: true } }   # over alerts.rules
///     proxy: http://proxy:3128              # or { url, user, password_file, no_proxy }, or none (ProxySettings)
///     addresses: first                      # or all: every address of the host, one result each
///     connect_to: [192.0.2.10, 2001:db8::10] # connect here instead of resolving (SNI, Host stay the URL's)
///     http_version: auto                    # auto (ALPN h2, http/1.1), "1.1", or "2" (fails without h2)
///     source: { interface: wwan0 }          # or { interfaces: [eth0, wwan0] } (a result per path), { address: IP }
/// ```
public struct TargetsSection: Sendable {
    public static let key = "targets"
    static let allowedKeys = ["name", "url", "interval", "timeout", "method", "headers", "params", "body", "basic_auth",
                              "expect", "tls", "follow_redirects", "send_credentials_on_redirect", "ip", "alerts", "labels",
                              "rules", ProxySettings.key, "addresses", "connect_to", httpVersionKey, sourceKey]
    static let expectKeys = ["status", "content_type", "json", "body_contains", "body_matches", "max_response_time",
                             "min_cert_validity"]

    /// Default time between probes.
    public static let defaultInterval: Duration = .seconds(60)
    /// Default whole-probe timeout.
    public static let defaultTimeout: Duration = .seconds(10)

    public var targets: [ProbeTarget]

    public init() { targets = [] }

    /// Reads the list; `policies` are the shared `tls_policies:`, `sinkNames` the configured alert sinks, `labels`
    /// the top-level labels, `proxy` the top-level proxy (each target's default).
    init(reading value: ConfigValue, policies: TLSPoliciesSection, sinkNames: [String], labels: TargetLabels = TargetLabels(),
         proxy: ProxyConfiguration? = nil) throws {
        var collector = ConfigErrorCollector()
        try self.init(lists: [value], policies: policies, sinkNames: sinkNames, labels: labels, proxy: proxy, collector: &collector)
        try collector.finish()
    }

    /// Reads the lists of the main file and the included ones; each target with an error is recorded and left out.
    /// A name used twice, in one file or two, is an error naming both places.
    init(lists: [ConfigValue], policies: TLSPoliciesSection, sinkNames: [String], labels: TargetLabels,
         proxy: ProxyConfiguration? = nil, collector: inout ConfigErrorCollector) throws {
        targets = []
        var firstPlace: [String: ConfigValue] = [:]
        var items: [ConfigValue] = []
        for list in lists {
            if let listItems = try collector.attempt({ try list.sequence() }) { items += listItems }
        }
        if items.count > ConfigLimits.maxTargets {
            collector.record(items[ConfigLimits.maxTargets].error("at most \(ConfigLimits.maxTargets) targets (the limit)"))
            return
        }
        for item in items {
            let target = try collector.attempt { () throws -> ProbeTarget in
                // The item's keys are checked once; each part of the target reads them from this mapping.
                let mapping = try item.mapping(allowedKeys: Self.allowedKeys)
                var target = try Self.target(item, mapping: mapping, policies: policies, sinkNames: sinkNames)
                try Self.applyProxy(to: &target, mapping: mapping, default: proxy)
                try Self.applyAddresses(to: &target, mapping: mapping)
                try Self.applyHTTPVersion(to: &target, mapping: mapping)
                try Self.applySource(to: &target, mapping: mapping)
                target.labels = labels.merging(target.labels)
                // The top-level labels are not in the target's YAML: a change to them restarts the target's series.
                target.fingerprint += "\nlabels \(target.labels.pairs.map { "\($0.name)=\($0.value)" })"
                if target.labels.pairs.count > TargetLabels.maxCount {
                    throw item.error("at most \(TargetLabels.maxCount) labels per target, top-level ones included (the limit)")
                }
                if let first = firstPlace[target.name] {
                    throw item.error("target name \"\(target.name)\" is used twice (first at \(first.location))")
                }
                firstPlace[target.name] = item
                return target
            }
            if let target { targets.append(target) }
        }
    }

    /// The characters of a target name.
    private static let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")

    private static func target(_ item: ConfigValue, mapping: ConfigMapping, policies: TLSPoliciesSection,
                               sinkNames: [String]) throws -> ProbeTarget {
        let nameValue = try mapping.required("name")
        let name = try nameValue.nonEmptyString()
        guard name.count <= 64, name.allSatisfy({ nameCharacters.contains($0) }) else {
            throw nameValue.error("target names use letters, digits, '.', '_' and '-' (at most 64)")
        }

        let urlValue = try mapping.required("url")
        let urlText = try urlValue.nonEmptyString()
        guard let components = URLComponents(string: urlText), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https" || ServiceScheme(name: scheme) != nil, let rawHost = components.host,
              !rawHost.isEmpty else {
            throw urlValue.error("expected an http:// or https:// URL with a host, or a TLS service URL (\(serviceSchemeList))")
        }
        let service = ServiceScheme(name: scheme)
        guard components.user == nil, components.password == nil else {
            throw urlValue.error("credentials in the URL are not accepted; use basic_auth: { user, password_file }")
        }
        let host = ConfigText.trimmingBrackets(rawHost).lowercased()
        let port = components.port ?? service?.defaultPort ?? (scheme == "https" ? 443 : 80)

        let interval = try mapping["interval"]?.duration(minimum: .milliseconds(100)) ?? defaultInterval
        let timeout = try mapping["timeout"]?.duration(minimum: .milliseconds(100)) ?? defaultTimeout

        let method: HTTPMethod
        if let methodValue = mapping["method"] {
            method = HTTPMethod(rawValue: try methodValue.oneOf(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]))
        } else {
            method = .GET
        }

        var headers: [(name: String, value: String)] = []
        if let headersValue = mapping["headers"] {
            let entries = try headersValue.freeFormEntries()
            guard entries.count + (mapping.contains("basic_auth") ? 1 : 0) <= ConfigLimits.maxHeaders else {
                throw headersValue.error("at most \(ConfigLimits.maxHeaders) headers, basic_auth included (the limit)")
            }
            for entry in entries {
                try entry.value.checkHeaderName(entry.key)
                let text = try entry.value.headerText()
                try entry.value.checkHeaderSize(name: entry.key, value: text)
                headers.append((entry.key, text))
            }
        }
        if let authValue = mapping["basic_auth"] {
            headers.append(("Authorization", try basicAuthorization(authValue)))
        }
        var parameters: [String: RequestParameter] = [:]
        if let paramsValue = mapping["params"] {
            for entry in try paramsValue.freeFormEntries() { parameters[entry.key] = try entry.value.requestParameter() }
        }
        var jsonBody: String? = nil
        if let bodyValue = mapping["body"] {
            if method.encodesParametersInURI { throw bodyValue.error("\(method.rawValue) requests have no body") }
            if !parameters.isEmpty { throw bodyValue.error("\(method.rawValue) sends params as its body; use either params or body") }
            let body = try bodyValue.mapping(allowedKeys: ["json", "form"])
            if body.contains("json") && body.contains("form") { throw bodyValue.error("set either json or form, not both") }
            if let json = body["json"] {
                let object = try json.jsonCompatible()
                guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]) else {
                    throw json.error("cannot be encoded as JSON")
                }
                jsonBody = String(decoding: data, as: UTF8.self)
            } else if let form = body["form"] {
                for entry in try form.freeFormEntries() { parameters[entry.key] = try entry.value.requestParameter() }
            }
        }
        let request: ProbeRequest
        if let service {
            request = try serviceRequest(service, url: urlText, components: components, mapping: mapping, urlValue: urlValue)
        } else {
            do {
                request = try RequestSerializer(version: NetVigilVersion.current).request(
                    method: method, components: components, parameters: parameters, headers: headers, jsonBody: jsonBody)
            } catch {
                throw item.error(Self.describe(error))
            }
        }

        var serializer = ResponseSerializer.http
        var expectations = ProbeExpectations()
        if let expectValue = mapping["expect"] {
            let expect = try expectValue.mapping(allowedKeys: expectKeys)
            if let value = expect["json"] {
                serializer = .json
                for entry in try value.sequenceOrSingle() {
                    let text = try entry.nonEmptyString()
                    do { expectations.jsonPaths.append(try JSONPathExpectation(parsing: text)) } catch {
                        throw entry.error("\(error)")
                    }
                }
            }
            if let value = expect["status"] { serializer.acceptableStatusCodes = try statuses(value) }
            if let value = expect["content_type"] {
                serializer.acceptableContentTypes = Set(try value.stringList().map { $0.lowercased() })
            }
            if let value = expect["body_contains"] { expectations.bodyContains = try value.stringList() }
            if let value = expect["body_matches"] {
                for entry in try value.sequenceOrSingle() {
                    let pattern = try entry.nonEmptyString()
                    guard (try? NSRegularExpression(pattern: pattern)) != nil else {
                        throw entry.error("invalid regular expression \"\(pattern)\"")
                    }
                    expectations.bodyMatches.append(pattern)
                }
            }
            if let value = expect["max_response_time"] {
                expectations.maxResponseTime = try value.duration(minimum: .milliseconds(1)).inSeconds
            }
            if let value = expect["min_cert_validity"] {
                guard scheme != "http" else { throw value.error("min_cert_validity needs a TLS URL (https:// or a service scheme)") }
                expectations.minCertificateValidity = try value.duration(minimum: .seconds(1)).inSeconds
            }
        }

        var tls = TLSSettings()
        if let tlsValue = mapping["tls"] {
            tls = try TLSSettings(reading: tlsValue)
            if scheme == "http", tls.policy != nil || tls.trustStore != nil || tls.clientIdentity != nil {
                throw tlsValue.error("tls settings need an https:// URL (redirect hops use tls_policies)")
            }
        }
        let policySet: PolicySet
        let clientIdentities: ClientIdentitySet
        do {
            policySet = try policies.policySet(host: host, own: tls.policy)
            clientIdentities = try policies.clientIdentities(host: host, own: tls.clientIdentity)
        } catch {
            throw (mapping["tls"] ?? urlValue).error("\(error)")
        }
        let trustStore: TrustStore
        do {
            trustStore = try tls.resolvedTrustStore()
        } catch {
            throw (mapping["tls"] ?? item).error("\(error)")
        }

        let redirects = try mapping["follow_redirects"].map(RedirectSettings.init(reading:)) ?? RedirectSettings()
        let keepsCredentials = try mapping["send_credentials_on_redirect"]?.bool() ?? false
        var family = AddressFamily.any
        var preferred = PreferredFamily.system
        if let value = mapping["ip"] {
            switch try value.oneOf(["any", "4", "6", "prefer-4", "prefer-6"]) {
            case "4": family = .ipv4
            case "6": family = .ipv6
            case "prefer-4": preferred = .ipv4
            case "prefer-6": preferred = .ipv6
            default: break
            }
        }

        var sinks = sinkNames
        var explicit = false
        if let value = mapping["alerts"] {
            explicit = true
            sinks = []
            for entry in try value.sequence() {
                let sink = try entry.nonEmptyString()
                guard sinkNames.contains(sink) else {
                    var message = "no alert sink named \"\(sink)\""
                    if let suggestion = ConfigSpelling.closest(to: sink, in: sinkNames) { message += " (did you mean \(suggestion)?)" }
                    message += sinkNames.isEmpty ? "; alerts.sinks is empty" : "; configured: \(sinkNames.joined(separator: ", "))"
                    throw entry.error(message)
                }
                if !sinks.contains(sink) { sinks.append(sink) }
            }
        }

        let labels = try mapping["labels"].map(TargetLabels.init(reading:)) ?? TargetLabels()
        let alertRules = try mapping["rules"].map(AlertRuleOverrides.init(reading:)) ?? AlertRuleOverrides()

        let timeoutSeconds = timeout.inSeconds
        var configuration = ProbeConfiguration(
            trustStore: trustStore, policies: policySet, timeout: timeoutSeconds, connectTimeout: min(5, timeoutSeconds),
            maxRedirects: redirects.max, allowsDowngradeRedirects: redirects.allowsDowngrade,
            sendsCredentialsOnRedirect: keepsCredentials, addressFamily: family, preferredFamily: preferred, tls: tls.tls, responseSerializer: serializer,
            expectations: expectations)
        configuration.clientIdentities = clientIdentities
        var target = ProbeTarget(name: name, url: urlText, host: host, port: port, interval: interval, timeout: timeout,
                           request: request, configuration: configuration, alertSinks: sinks, alertSinksExplicit: explicit,
                           labels: labels,
                           endpoint: ProbeTarget.endpoint(scheme: scheme, host: host, port: port,
                                                          percentEncodedPath: components.percentEncodedPath),
                           fingerprint: fingerprint(item, policies: policySet, trustStore: trustStore)
                               + clientIdentities.entries.map { "\nclient \($0.pattern) \($0.identity.chain.map(\.sha256Fingerprint))" }.joined())
        target.warnings = tls.warnings
        target.alertRules = alertRules
        return target
    }

    /// The target's YAML plus what files contributed (pins, pinned certificates, anchors).
    private static func fingerprint(_ item: ConfigValue, policies: PolicySet, trustStore: TrustStore) -> String {
        var parts = [ConfigValue.canonicalText(of: item.node)]
        func describe(_ policy: SecurityPolicy) -> String {
            "\(policy.pinning.rawValue) \(policy.allowInvalidCertificates) \(policy.validatesDomainName) \(policy.reportOnly) "
                + "\(policy.pinsExpire?.timeIntervalSince1970 ?? 0) \(policy.configuredPins.map(\.description)) "
                + "\(policy.pinnedCertificates.map(\.sha256Fingerprint))"
        }
        parts.append(describe(policies.defaultPolicy))
        for entry in policies.entries { parts.append("\(entry.pattern) \(describe(entry.policy))") }
        parts.append("\(trustStore.usesSystemRoots) \(trustStore.anchors.map(\.sha256Fingerprint))")
        return parts.joined(separator: "\n")
    }

    /// `basic_auth: { user, password | password_file }` → the Authorization value (never logged).
    private static func basicAuthorization(_ value: ConfigValue) throws -> String {
        let auth = try value.mapping(allowedKeys: ["user", "password", "password_file"])
        let userValue = try auth.required("user")
        _ = try userValue.nonEmptyString()
        let user = try userValue.headerText("a basic-auth user name")
        guard !user.contains(":") else { throw userValue.error("a basic-auth user name cannot contain ':'") }
        if auth["password"] != nil, let file = auth["password_file"] {
            throw file.error("set either password or password_file, not both")
        }
        let password: String
        if let file = auth["password_file"] {
            let path = try file.filePath()
            let data = try file.regularFileContents(at: path, failure: "cannot read password file \(path)")
            password = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
            guard !ConfigValue.hasControlCharacter(password, allowsTab: false) else {
                throw file.error("password file \(path) holds control characters")
            }
        } else {
            password = try auth.required("password").headerText("a basic-auth password")
        }
        return RequestSerializer.basicAuthorization(user: user, password: password)
    }

    /// A request-building error in fixed words (the URL and header values are not quoted).
    private static func describe(_ error: RequestSerializationError) -> String {
        switch error {
        case .invalidURL: "the URL cannot be used for a request"
        case .invalidHeader: "a header name or value cannot be sent"
        case .invalidJSON: "the JSON body is not valid JSON"
        }
    }

    /// `status: [200, "200-299", 301]`.
    private static func statuses(_ value: ConfigValue) throws -> Set<Int> {
        var result: Set<Int> = []
        for entry in try value.sequenceOrSingle() {
            let text = try entry.string()
            guard let codes = StatusCodeSet.parse(item: text) else {
                throw entry.error("expected a status code or range like 200 or 200-299")
            }
            result.formUnion(codes)
        }
        return result
    }
}
