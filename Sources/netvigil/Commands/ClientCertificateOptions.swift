import ArgumentParser
import Foundation
import NetVigilProber

/// `--cert`, `--key` and `--key-password-file`: a client certificate (mTLS) for commands that connect (`probe`).
struct ClientCertificateOptions: ParsableArguments {
    @Option(name: .long, help: "Client certificate (PEM, then any intermediates) presented when the server asks for one (mTLS).")
    var cert: String?

    @Option(name: .long, help: "The client certificate's private key (PEM: RSA, ECDSA or Ed25519; mode 0600).")
    var key: String?

    @Option(name: .long, help: "File holding the password of an encrypted --key (its first line).")
    var keyPasswordFile: String?

    /// The options given on the command line, by name (they conflict with a configured target's settings).
    var givenOptions: [String] {
        [("--cert", cert != nil), ("--key", key != nil), ("--key-password-file", keyPasswordFile != nil)].filter(\.1).map(\.0)
    }

    /// The loaded identity, nil when no option was given; `warn` receives a warning for a key others may read.
    func identity(warn: (String) -> Void) throws -> ClientIdentity? {
        guard cert != nil || key != nil || keyPasswordFile != nil else { return nil }
        guard let cert, let key else {
            throw CLIFailure(.usage, "--cert and --key go together (and --key-password-file needs both)")
        }
        for path in [cert, key] + (keyPasswordFile.map { [$0] } ?? []) where !FileManager.default.fileExists(atPath: path) {
            throw CLIFailure(.noInput, "\(path) does not exist")
        }
        do {
            let identity = try ClientIdentity(certificatePath: cert, keyPath: key, passwordFile: keyPasswordFile)
            if let warning = ClientIdentity.keyFileWarning(key) { warn(warning) }
            return identity
        } catch {
            if case .unreadable = error { throw CLIFailure(.noInput, "\(error)") }
            throw CLIFailure(.dataError, "\(error)")
        }
    }
}
