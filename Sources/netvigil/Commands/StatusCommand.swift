import ArgumentParser
import Foundation
import NetVigilAgent
import NetVigilProber
import NetVigilTrust

/// `netvigil status`: asks a running daemon's feed for `/v1/status` and prints it for people (or raw with `--json`).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a running daemon's targets and reachability (from its feed's /v1/status).",
        discussion: """
            The table shows each target's status, the age of its last probe, the HTTP status, the pin verdict, \
            the days left on the served certificate, the alerts firing and the reason of the last failure (its error \
            kind); then the reachability of `default` and the configured reachability targets. --config FILE takes \
            the feed address (feed.listen) and token (feed.token or feed.token_file) from the daemon's configuration; \
            --feed and --token-file override them. The token is never printed. --check (a Nagios-style check) exits \
            1 when a target is down or an alert fires, naming them on stderr. DURATION: 500ms, 2s, 1m.
            Exit codes: 0 ok, 1 check failed, 64 bad arguments, 65 the feed's answer is not a status document, 66 \
            unreadable token file, 74 feed unreachable or answering an error, 77 token missing or rejected, 78 bad \
            configuration.
            """)

    @Option(name: .long, help: "Base URL of the daemon's feed (default: from --config, else http://127.0.0.1:9337).")
    var feed: String?

    @Option(name: .customLong("token-file"), help: "File holding the feed's bearer token (feed.token_file).")
    var tokenFile: String?

    @Option(name: .long, help: "The daemon's YAML configuration file: feed address and token from it.")
    var config: String?

    @Option(name: .long, help: "PEM CA (or the feed's own certificate) to trust for an https:// feed, besides the system roots (default: feed.tls.certificate from --config).")
    var ca: String?

    @OptionGroup(title: "Client certificate (an https:// feed with feed.tls.client_ca)") var clientCertificateOptions: ClientCertificateOptions

    @Flag(name: .long, help: "Exit 1 when a target is down or an alert fires (Nagios-style check).")
    var check = false

    @Flag(name: .long, help: "Print the /v1/status document as the feed sent it.")
    var json = false

    @Option(name: .long, help: "How long to wait for the feed (DURATION, default 10s).")
    var timeout = "10s"

    /// sysexits(3) EX_NOPERM: the feed wants a token we do not have, or refused ours.
    static let permissionDenied: Int32 = 77

    func run() async throws {
        try await withCLIFailureHandling {
            let configured = try config.map { try FeedAccess(configuration: loadConfiguration($0)) }
            let feed = self.feed ?? configured?.url ?? "http://127.0.0.1:9337"
            let seconds = try DurationOption.positive(timeout, option: "--timeout") ?? 10
            // The table needs only what the rows view sends (a fraction of the full document, and the quickest to
            // decode). A daemon from before it refuses the view with a 400: the brief view is asked
            // for then. A daemon older still ignores the parameter and sends the full document, which decodes the
            // same. `--json` prints the full document.
            let url = try statusURL(feed, view: json ? nil : "rows")
            let token = try readToken() ?? configured?.token
            let caFile = ca ?? (self.feed == nil ? configured?.certificateFile : nil)
            var (status, body) = try await fetch(url, feed: feed, token: token, caFile: caFile, timeout: seconds)
            if status == 400, !json {
                (status, body) = try await fetch(statusURL(feed, view: "brief"), feed: feed, token: token, caFile: caFile,
                                                 timeout: seconds)
            }
            switch status {
            case 200:
                break
            case 401:
                printError(token == nil
                           ? "the feed at \(feed) requires a bearer token: pass --token-file FILE (the daemon's feed.token_file)"
                           : "the feed at \(feed) rejected the token from \(tokenFile ?? config ?? "--token-file") (missing or wrong token)")
                throw ExitCode(Self.permissionDenied)
            default:
                throw CLIFailure(.ioError, "the feed at \(feed) answered HTTP \(status): \(Self.errorText(body))")
            }
            if json {
                try StandardStream.output.emit(body)
                if body.last != UInt8(ascii: "\n") { try StandardStream.output.emit("\n") }
                if !check { return }
            }
            guard let document = try? JSONDecoder().decode(StatusDocument.self, from: body) else {
                throw CLIFailure(.dataError, "the feed at \(feed) did not answer with a status document (is it a netvigil feed?)")
            }
            if !json { print(StatusTable(document: document, feed: feed, now: Date()).render(), terminator: "") }
            if check, let failure = StatusCheck(document: document).failure {
                throw CLIFailure(.failure, "check failed: \(failure)")
            }
        }
    }

    /// `/v1/status` of `feed`, asking for `view` (the full document when nil).
    private func statusURL(_ feed: String, view: String?) throws -> URL {
        var base = feed
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + "/v1/status" + (view.map { "?view=" + $0 } ?? "")),
              let scheme = url.scheme, ["http", "https"].contains(scheme), url.host?.isEmpty == false else {
            throw CLIFailure(.usage, "--feed: expected a URL like http://127.0.0.1:9337, got \"\(feed)\"")
        }
        return url
    }

    /// The token from `--token-file` (surrounding whitespace removed); nil without the option.
    private func readToken() throws -> String? {
        guard let tokenFile else { return nil }
        guard let data = FileManager.default.contents(atPath: tokenFile) else {
            let reason = FileManager.default.fileExists(atPath: tokenFile) ? "permission denied or not a file" : "no such file"
            throw CLIFailure(.noInput, "--token-file: cannot read \(tokenFile): \(reason)")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw CLIFailure(.noInput, "--token-file: \(tokenFile) is empty") }
        guard !token.contains(where: \.isNewline) else {
            throw CLIFailure(.noInput, "--token-file: \(tokenFile) holds more than one line")
        }
        return token
    }

    /// GET through netvigil's own request stack (plain HTTP, or TLS with the system roots and `caFile`), no redirects.
    private func fetch(_ url: URL, feed: String, token: String?, caFile: String?, timeout: TimeInterval) async throws -> (Int, Data) {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        let request: ProbeRequest
        let trustStore: TrustStore
        do {
            request = try RequestSerializer(version: NetVigilVersion.current).request(method: .GET, url: url.absoluteString, headers: headers)
        } catch {
            throw CLIFailure(.usage, "--feed: \(error)")
        }
        do {
            // A plain-HTTP feed needs no roots: loading the system bundle would only cost start-up time.
            trustStore = try caFile.map { try TrustStore(systemRoots: true, caPaths: [$0]) }
                ?? (url.scheme == "https" ? TrustStore.system() : TrustStore(systemRoots: false))
        } catch {
            throw CLIFailure(.noInput, "--ca: \(error)")
        }
        var configuration = ProbeConfiguration(trustStore: trustStore, timeout: timeout, connectTimeout: min(5, timeout),
                                               maxRedirects: 0)
        configuration.responseSerializer.acceptableStatusCodes = Set(100...599)
        configuration.tls.clientIdentity = try clientCertificateOptions.identity(warn: { printError("warning: \($0)") })
        let (result, response) = await Prober().fetch(request, configuration: configuration)
        guard let response else {
            throw CLIFailure(.ioError, "cannot reach the feed at \(feed): \(Self.describe(result.error))")
        }
        return (response.status, Data(response.body))
    }

    /// A transport error in a few words.
    static func describe(_ error: ProbeError?) -> String {
        guard let error else { return "no HTTP response" }
        switch error.kind {
        case .connectRefused: return "connection refused (is `netvigil run` running and listening there?)"
        case .timeout, .connectTimeout: return "no answer within the timeout (\(error.message))"
        case .dns: return "unknown host (\(error.message))"
        default: return error.message
        }
    }

    /// The `error` field of a JSON error body, else the body's first line.
    static func errorText(_ body: Data) -> String {
        if let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any], let error = object["error"] as? String {
            return error
        }
        let text = String(decoding: body.prefix(200), as: UTF8.self)
        return text.split(separator: "\n").first.map(String.init) ?? "(empty body)"
    }
}
