import ArgumentParser
import Foundation
import NetVigilProber

/// `--proxy URL [--proxy-user U --proxy-password-file F] [--no-proxy ENTRY]` of `probe`.
struct ProxyOptions: ParsableArguments {
    /// The proxy URL (`http://` only).
    @Option(name: .long, help: "Go through this HTTP proxy (http://HOST:PORT): CONNECT tunnel for https://, absolute-form for http://.")
    var proxy: String?

    /// The proxy user, with `proxyPasswordFile`.
    @Option(name: .long, help: "User for the proxy (Proxy-Authorization: Basic; needs --proxy-password-file).")
    var proxyUser: String?

    /// The file the proxy password is read from (never from the command line, where `ps` would show it).
    @Option(name: .long, help: "File holding the proxy password (never printed).")
    var proxyPasswordFile: String?

    /// `no_proxy` entries.
    @Option(name: .long, help: "A host suffix, IP address or CIDR block reached without the proxy (repeatable).")
    var noProxy: [String] = []

    /// The options given, by name (they cannot be combined with --target).
    var givenOptions: [String] {
        [("--proxy", proxy != nil), ("--proxy-user", proxyUser != nil), ("--proxy-password-file", proxyPasswordFile != nil),
         ("--no-proxy", !noProxy.isEmpty)].filter(\.1).map(\.0)
    }

    /// The proxy, nil without --proxy; usage errors for a bad URL or half-given credentials.
    func configuration() throws -> ProxyConfiguration? {
        guard let proxy else {
            if let first = givenOptions.first { throw CLIFailure(.usage, "\(first) needs --proxy URL") }
            return nil
        }
        var credentials: ProxyCredentials? = nil
        switch (proxyUser, proxyPasswordFile) {
        case (nil, nil):
            break
        case (let user?, let file?):
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CLIFailure(.noInput, "--proxy-password-file: cannot read \(file)")
            }
            do {
                credentials = try ProxyCredentials(user: user, password: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines))
            } catch {
                throw CLIFailure(.usage, "--proxy-user/--proxy-password-file: \(error)")
            }
        default:
            throw CLIFailure(.usage, "--proxy-user and --proxy-password-file go together")
        }
        do {
            return try ProxyConfiguration(url: proxy, credentials: credentials, noProxy: NoProxyList(noProxy))
        } catch {
            throw CLIFailure(.usage, "--proxy: \(error)")
        }
    }
}
