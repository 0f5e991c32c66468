import Foundation
import NetVigilAgent
import NetVigilProber

extension ProbeCommand {
    /// `--target NAME` of `--config FILE`: the request and probe configuration exactly as the daemon builds them, with
    /// only `--timeout`, `--all-addresses`, the address-family flags and `--interface`/`--source` applied on top. A
    /// target with several paths (`source: { interfaces: }`) is probed over its first unless one is given.
    func configuredTarget() throws -> (ProbeRequest, ProbeConfiguration, Bool) {
        let probeTarget = try targetOptions.find()
        let conflicting = givenRequestOptions + policyOptions.givenOptions + clientCertificateOptions.givenOptions
            + proxyOptions.givenOptions + (addressOptions.connectTo.isEmpty ? [] : ["--connect-to"])
        if let first = conflicting.first {
            throw CLIFailure(.usage, "\(first) cannot be combined with --target: the target's configuration decides it")
        }
        var configuration = probeTarget.configuration
        if let seconds = try timeoutOverride() {
            configuration.timeout = seconds
            configuration.connectTimeout = min(configuration.connectTimeout, seconds)
        }
        try checkAddressFamilyFlags()
        if ip4 || ip6 { configuration.addressFamily = ip4 ? .ipv4 : .ipv6 }
        if preferIP4 || preferIP6 { configuration.preferredFamily = preferIP4 ? .ipv4 : .ipv6 }
        if configuration.source == nil, let first = probeTarget.sources.first { configuration.source = first }
        try sourceOptions.apply(to: &configuration)
        try applyHTTPVersion(to: &configuration, url: probeTarget.request.url)
        if !json { for warning in probeTarget.hostPolicy.policy.warnings.map(\.description) + probeTarget.warnings { printError("warning: \(warning)") } }
        return (probeTarget.request, configuration, probeTarget.probesEachAddress || addressOptions.allAddresses)
    }

    /// `--timeout` in seconds, nil when not given.
    func timeoutOverride() throws -> TimeInterval? {
        try DurationOption.positive(timeout, option: "--timeout")
    }

    /// `--http-version` (`auto`, `1.1`, `2`) onto `configuration`; `2` needs an https:// URL.
    func applyHTTPVersion(to configuration: inout ProbeConfiguration, url: URL) throws {
        guard let httpVersion else { return }
        guard let version = HTTPVersionPreference(rawValue: httpVersion) else {
            throw CLIFailure(.usage, "--http-version: want auto, 1.1 or 2, got \"\(httpVersion)\"")
        }
        if version == .http2, url.scheme?.lowercased() != "https" {
            throw CLIFailure(.usage, "--http-version 2 needs an https:// URL (HTTP/2 is only spoken over TLS)")
        }
        configuration.httpVersion = version
    }

    /// At most one of `--ip4`, `--ip6`, `--prefer-ip4`, `--prefer-ip6`.
    func checkAddressFamilyFlags() throws {
        if [ip4, ip6, preferIP4, preferIP6].filter({ $0 }).count > 1 {
            throw CLIFailure(.usage, "--ip4, --ip6, --prefer-ip4 and --prefer-ip6 exclude each other")
        }
    }

    /// The request and expectation options given on the command line, by name.
    private var givenRequestOptions: [String] {
        let given: [(String, Bool)] = [
            ("URL", url != nil), ("--method", method != nil), ("--header", !header.isEmpty), ("--query", !query.isEmpty),
            ("--form", !form.isEmpty), ("--json-body", jsonBody != nil), ("--basic-auth", basicAuth != nil),
            ("--expect-status", expectStatus != nil), ("--expect-content-type", !expectContentType.isEmpty),
            ("--expect-json", !expectJson.isEmpty), ("--expect-body-contains", !expectBodyContains.isEmpty),
            ("--expect-body-matches", !expectBodyMatches.isEmpty), ("--max-response-time", maxResponseTime != nil),
            ("--min-cert-validity", minCertValidity != nil), ("--no-follow-redirects", noFollowRedirects),
            ("--allow-downgrade-redirects", allowDowngradeRedirects),
            ("--send-credentials-on-redirect", sendCredentialsOnRedirect),
        ]
        return given.filter(\.1).map(\.0)
    }
}
