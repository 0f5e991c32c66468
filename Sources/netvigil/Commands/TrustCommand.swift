import ArgumentParser

/// `netvigil trust`: offline trust evaluation.
struct TrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Judge certificate chains offline with a security policy.",
        subcommands: [TrustEvaluateCommand.self]
    )
}
