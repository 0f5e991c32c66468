import ArgumentParser
import NetVigilAgent
import NetVigilProber
import NetVigilTrust

/// `netvigil check-config FILE`: validates a configuration file and prints a short summary.
struct CheckConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a configuration file and print a summary.",
        discussion: """
            Warnings and notes follow each target: a policy without a backup pin, a client key its group or others \
            may read, and pins that are a CA's key \
            (a pinned CA certificate, a configured CA or a system root), which match any certificate that CA issues. \
            Exits 0 when the file is valid, 78 with one located error line otherwise.
            """)

    @Argument(help: "YAML configuration file.")
    var file: String

    func run() async throws {
        try await withCLIFailureHandling {
            let configuration = try loadConfiguration(file)
            print("\(file): ok")
            if !configuration.includedFiles.isEmpty {
                print("  include: \(configuration.includedFiles.count) files (\(configuration.includedFiles.joined(separator: ", ")))")
            }
            print("  storage: \(configuration.storage.path) (retention \(ConfigDuration.format(configuration.storage.retention)))")
            print("  feed: \(configuration.feed.listen) (token: \(configuration.feed.token == nil ? "none" : "set"))")
            print("  log: \(configuration.log.level.rawValue)")
            print("  reachability: \(configuration.reachability.targets.map(\.description).joined(separator: ", "))"
                  + (configuration.reachability.captivePortal.map { " (captive portal check: \($0.url))" } ?? ""))
            print("  scheduler: concurrency \(configuration.scheduler.concurrency)")
            print("  tls_policies: \(configuration.tlsPolicies.entries.count)")
            for warning in configuration.tlsPolicies.warnings { print("    warning: \(warning)") }
            if let proxy = configuration.proxy { print("  proxy: \(proxy)") }
            if let fleet = configuration.fleet {
                // The URL prints without its password; only whether one is set is said.
                print("  fleet: agent \(fleet.agent) → \(TerminalText.escaped(fleet.url.description)) (tls \(fleet.tlsMode.rawValue), "
                      + "password: \(fleet.password == nil ? "none" : "set"), heartbeat \(ConfigDuration.format(fleet.heartbeat)))")
            }
            print("  targets: \(configuration.targets.targets.count)")
            var systemRoots: [Certificate]? = nil
            for target in configuration.targets.targets {
                let policy = target.hostPolicy.policy
                let pinning = policy.pinning == .none ? "no pinning" : "\(policy.pinning.rawValue) pinning, \(policy.configuredPins.count) pin(s)"
                // A service target (tls://, smtp://, ...) sends no HTTP request: it is named by what it does instead.
                let action = ServiceScheme(url: target.request.url).map { $0.usesSTARTTLS ? "STARTTLS" : "TLS" }
                    ?? target.request.method.rawValue
                print("    \(target.name): \(action) \(TerminalText.escaped(target.url)) every \(ConfigDuration.format(target.interval)), "
                      + "\(target.isTLS ? pinning : "plain HTTP"), alerts → \(target.alertSinks.isEmpty ? "none" : target.alertSinks.joined(separator: ", "))"
                      + (target.configuration.proxy.map { ", via proxy \($0.url)" } ?? ""))
                for warning in policy.warnings { print("      warning: \(warning)") }
                for warning in target.warnings { print("      warning: \(warning)") }
                if target.probesEachAddress { print("      addresses: all (every address probed, one result each)") }
                if let connectTo = target.configuration.connectTo { print("      connect_to: \(connectTo.addresses.joined(separator: ", "))") }
                if !target.sources.isEmpty { print("      source: \(target.sources.map(\.description).joined(separator: ", "))") }
                if let identity = target.configuration.clientIdentities.identity(for: target.host) {
                    print("      client certificate: \(identity)")
                }
                guard target.isTLS, !policy.configuredPins.isEmpty else { continue }
                let store = target.configuration.trustStore
                if store.usesSystemRoots, systemRoots == nil { systemRoots = TrustStore.systemRootCertificates() }
                for (pin, authority) in policy.caKeyPins(among: store.anchors + (store.usesSystemRoots ? systemRoots ?? [] : [])) {
                    print("      note: \(pin) is the key of the CA \(authority.subject): it matches any certificate that CA "
                          + "issues, for any host, not only \(target.host)'s")
                }
            }
            print("  alerts: \(configuration.alerts.sinkNames.isEmpty ? "no sinks" : configuration.alerts.sinkNames.joined(separator: ", "))")
        }
    }
}
