import ArgumentParser
import NetVigilAgent

/// `netvigil version`: prints the version (same as `--version`).
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version", _superCommandName: "netvigil", abstract: "Print the netvigil version.")

    /// Whether the arguments after the program name are `version` or `--version` and nothing else. Those two are
    /// answered before ArgumentParser builds its command tree: the reflection behind that was a fifth of a fresh
    /// `netvigil version`'s time (docs/performance.md, Footprint and start-up). Every other spelling
    /// (`version --help`, `probe --version`, `version extra`) is parsed as before.
    static func isWholeInvocation(_ arguments: ArraySlice<String>) -> Bool {
        arguments.count == 1 && (arguments.first == "version" || arguments.first == "--version")
    }

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
