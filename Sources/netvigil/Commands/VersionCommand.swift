import ArgumentParser
import NetVigilAgent

/// `netvigil version`: prints the version (same as `--version`).
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", _superCommandName: "netvigil", abstract: "Print the netvigil version.")

    func run() {
        print(NetVigilVersion.current)
    }
}
