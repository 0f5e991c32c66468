import ArgumentParser
import NetVigilAgent

/// `netvigil version`: prints the version (same as `--version`).
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", abstract: "Print the netvigil version.")

    /// Prints the version line as ArgumentParser's `--version` does; a closed or full standard output ends the
    /// command with exit 74.
    func run() throws {
        do {
            try StandardStream.output.emit(NetVigilVersion.current + "\n")
        } catch {
            throw reportedExit(for: error)
        }
    }
}
