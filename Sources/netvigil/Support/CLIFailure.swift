import ArgumentParser
import Foundation

/// A failure that ends a command: one line on stderr and a sysexits-style exit code.
struct CLIFailure: Error, CustomStringConvertible {
    /// sysexits(3) codes used by netvigil.
    enum Code: Int32 {
        case failure = 1
        case usage = 64
        case dataError = 65
        case noInput = 66
        case software = 70
        case ioError = 74
        case config = 78
    }

    let code: Code
    let message: String
    /// Further problems, one line each (a configuration with several errors).
    let more: [String]

    init(_ code: Code, _ message: String, more: [String] = []) {
        self.code = code
        self.message = message
        self.more = more
    }

    var description: String { message }
}

/// Runs `body`; any error becomes one `netvigil: ...` line on stderr (one per problem) and a non-zero exit.
func withCLIFailureHandling<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw reportedExit(for: error)
    }
}

/// Prints what ends a command (a `CLIFailure`'s lines, or any other error as one line; nothing for an `ExitCode`)
/// and returns the exit code to throw.
func reportedExit(for error: any Error) -> ExitCode {
    switch error {
    case let failure as CLIFailure:
        printError(failure.message)
        failure.more.forEach(printError)
        return ExitCode(failure.code.rawValue)
    case let exit as ExitCode:
        return exit
    default:
        printError("\(error)")
        return ExitCode(CLIFailure.Code.software.rawValue)
    }
}

/// Writes `netvigil: message` to stderr (one line).
func printError(_ message: String) {
    writeStandardError("netvigil: " + message.replacingOccurrences(of: "\n", with: " ") + "\n")
}

/// Writes text to stderr unbuffered; a stderr that cannot take it (closed pipe, full disk) loses the text.
func writeStandardError(_ text: String) {
    StandardStream.error.write(text)
}
