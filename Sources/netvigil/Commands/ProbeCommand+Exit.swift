import Foundation

extension ProbeCommand {
    /// Runs the command and ends the process on the thread it ran on (the loop under `CommandEventLoop.run`):
    /// returning would first hop back to the main actor, whose queue Dispatch serves from a thread of its own.
    nonisolated func runAndExit() async {
        do {
            try await run()
        } catch {
            NetVigilCommand.exit(reporting: error)
        }
        Foundation.exit(0)
    }
}
