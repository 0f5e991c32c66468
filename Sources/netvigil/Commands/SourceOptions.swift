import ArgumentParser
import NetVigilProber

/// `--interface NAME` and `--source ADDR` of `probe`: the network path the probe's connections take.
struct SourceOptions: ParsableArguments {
    /// Bind the probe's sockets to this interface (SO_BINDTODEVICE), whatever the routing table prefers.
    @Option(name: .long, help: "Leave through this interface (SO_BINDTODEVICE; target key source: { interface: NAME }).")
    var interface: String?

    /// Connect from this local address.
    @Option(name: .long, help: "Connect from this local IP address (target key source: { address: IP }); only addresses of its family are probed.")
    var source: String?

    /// The names of the options given, for the conflicts `probe` reports.
    var givenOptions: [String] { (interface == nil ? [] : ["--interface"]) + (source == nil ? [] : ["--source"]) }

    /// The path of the options, nil when neither is given; sets `configuration`'s source and, for `--source`, its
    /// address family. Usage errors: both options, a bad name or address, a family conflict, a proxy.
    func apply(to configuration: inout ProbeConfiguration) throws {
        guard interface != nil || source != nil else { return }
        if interface != nil, source != nil {
            throw CLIFailure(.usage, "--interface and --source exclude each other")
        }
        if configuration.proxy != nil {
            throw CLIFailure(.usage, "\(givenOptions[0]) cannot be combined with --proxy (the connection to the origin leaves from the proxy's network)")
        }
        do {
            if let interface {
                configuration.source = try ProbeSource(interface: interface)
                return
            }
            guard let source else { return }
            let path = try ProbeSource(address: source)
            let isIPv6 = path.isIPv6 ?? false
            switch configuration.addressFamily {
            case .ipv4 where isIPv6: throw CLIFailure(.usage, "--source \(source) is IPv6 but --ip4 was given")
            case .ipv6 where !isIPv6: throw CLIFailure(.usage, "--source \(source) is IPv4 but --ip6 was given")
            default: configuration.addressFamily = isIPv6 ? .ipv6 : .ipv4
            }
            configuration.source = path
        } catch let error as ProbeSourceError {
            throw CLIFailure(.usage, "\(givenOptions[0]): \(error)")
        }
    }
}
