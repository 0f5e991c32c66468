import ArgumentParser
import Foundation
import NetVigilTrust

/// `netvigil pin FILE...`: the SPKI pins of certificate files.
struct PinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Print subject, issuer, expiry, SPKI pin (sha256/...) and SHA-256 of certificate files.",
        discussion: """
            FILE is DER, PEM or a PEM bundle (every certificate is listed), or a directory of .pem/.crt/.cer/.der \
            files. The pin is base64(SHA-256(DER SubjectPublicKeyInfo)) as used by `pins:` in policies. \
            Exit codes: 66 missing or unreadable file, 65 not a certificate.
            """)

    @Argument(help: "Certificate files or directories.")
    var files: [String]

    @Flag(name: .long, help: "Print a JSON array instead of text.")
    var json = false

    struct Entry: Encodable {
        let file: String
        let index: Int
        let certificate: CertificateSummary

        func encode(to encoder: any Encoder) throws {
            // Flatten: {"file", "index", "subject", "issuer", "not_after", "pin", "sha256", ...}
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(file, forKey: Key("file"))
            try container.encode(index, forKey: Key("index"))
            try certificate.encode(to: encoder)
        }

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ string: String) { stringValue = string }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
    }

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one certificate FILE") }
    }

    func run() async throws {
        try await withCLIFailureHandling {
            var entries: [Entry] = []
            var perFile: [(String, [Certificate])] = []
            for file in files {
                let certificates = try TrustOutput.loadCertificates(file, option: nil)
                perFile.append((file, certificates))
                entries += certificates.enumerated().map { Entry(file: file, index: $0.offset, certificate: CertificateSummary($0.element)) }
            }
            if json {
                print(try TrustOutput.json(entries), terminator: "")
                return
            }
            var blocks: [String] = []
            for (file, certificates) in perFile {
                var lines = ["\(file):"]
                lines += certificates.enumerated().map { TrustOutput.describe($0.element, index: $0.offset) }
                blocks.append(lines.joined(separator: "\n"))
            }
            print(blocks.joined(separator: "\n"))
        }
    }
}
