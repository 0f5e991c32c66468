import ArgumentParser
import Foundation
import NetVigilHTTP
import NetVigilTrust

/// `netvigil pin FILE...|https://HOST[:PORT]`: the SPKI pins of certificate files or of the chain a server serves.
struct PinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Print subject, issuer, expiry, SPKI pin (sha256/...) and SHA-256 of certificate files.",
        discussion: """
            FILE is DER, PEM or a PEM bundle (every certificate is listed), or a directory of .pem/.crt/.cer/.der \
            files; https://HOST[:PORT] connects and lists the served chain (also when it is not trusted; \
            --ca adds anchors for the verdict shown). The pin is base64(SHA-256(DER SubjectPublicKeyInfo)) as used by `pins:` in policies. \
            Exit codes: 66 missing or unreadable file, 65 not a certificate.
            """)

    @Argument(help: "Certificate files or directories, or https://HOST[:PORT].")
    var files: [String]

    @Option(name: .long, help: "Extra trust anchors for https:// targets (repeatable).")
    var ca: [String] = []

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
                let certificates = file.lowercased().hasPrefix("https://")
                    ? try await Self.servedChain(file, ca: ca)
                    : try TrustOutput.loadCertificates(file, option: nil)
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

    /// Connects to `url` and returns the served chain, trusted or not (exit 1 when no chain arrives).
    static func servedChain(_ url: String, ca: [String]) async throws -> [Certificate] {
        let request: ProbeRequest
        do {
            request = try RequestSerializer().request(method: .HEAD, url: url)
        } catch {
            throw CLIFailure(.usage, "\(error)")
        }
        let store = try TrustPolicyOptions.trustStore(systemRoots: true, ca: ca)
        let result = await HTTPProber().probe(request, configuration: ProbeConfiguration(trustStore: store, timeout: 10, maxRedirects: 0))
        guard !result.servedChain.isEmpty else {
            throw CLIFailure(.failure, "\(url): no certificate chain: \(result.error?.description ?? "not TLS")")
        }
        if let verdict = result.trustVerdict, !verdict.isTrusted {
            printError("\(url): chain is \(verdict) (pins listed anyway)")
        }
        return try result.servedChain.map { try Certificate(der: Data(base64Encoded: Self.base64(of: $0.pem)) ?? Data()) }
    }

    private static func base64(of pem: String) -> String {
        pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }
}
