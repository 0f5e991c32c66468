import ArgumentParser
import Foundation
import NetVigilProber

/// `--all-addresses` and `--connect-to ADDR` of `probe`: which addresses of the URL's host are probed.
struct AddressOptions: ParsableArguments {
    /// Probe every address of the host at once, one result each (`addresses: all`).
    @Flag(name: .long, help: "Probe every address the host resolves to (or every --connect-to address), one result each.")
    var allAddresses = false

    /// Addresses connected to instead of resolving the host (SNI, certificate host check and Host stay the URL's).
    @Option(name: .long, help: "Connect to this IP address instead of resolving the URL's host; SNI, certificate host check and Host stay the URL's (repeatable).")
    var connectTo: [String] = []

    /// The override for `url`'s host, nil without `--connect-to`.
    func override(for url: String) throws -> ConnectOverride? {
        guard !connectTo.isEmpty else { return nil }
        guard let host = URLComponents(string: url)?.host else { throw CLIFailure(.usage, "--connect-to needs a URL with a host") }
        do {
            return try ConnectOverride(host: host, addresses: connectTo)
        } catch {
            throw CLIFailure(.usage, "--connect-to: \(error)")
        }
    }

    /// `--connect-to` and `--proxy` exclude each other: through a proxy, the proxy connects to the origin.
    func check(proxy: ProxyConfiguration?) throws {
        if proxy != nil, !connectTo.isEmpty || allAddresses {
            throw CLIFailure(.usage, "\(connectTo.isEmpty ? "--all-addresses" : "--connect-to") cannot be combined with --proxy (the proxy connects to the origin)")
        }
    }
}
