import ArgumentParser
import Foundation
import NetVigilProber
import NetVigilTrust

/// `netvigil pin FILE...|https://HOST[:PORT]`: the SPKI pins of certificates, keys and CSRs, or of the chain a server serves.
struct PinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "Print the SPKI pin (sha256/...) of certificates, private or public keys and CSRs, or of a server's chain.",
        discussion: """
            FILE is DER or PEM: a certificate or bundle (subject, issuer, expiry, pin and SHA-256 of each), a private \
            key, a public key or a certificate signing request (the pin a certificate for that key will have: compute \
            a backup pin before the key is in use; encrypted keys are refused, pin their public key), or a directory of \
            .pem/.crt/.cer/.der certificates. https://HOST[:PORT] connects and lists the served chain (also when it is \
            not trusted; --ca adds anchors for the verdict shown); with --pem it prints that chain as PEM, for \
            `netvigil trust evaluate --chain`; --cert and --key present a client certificate to a server that requires \
            one (in TLS 1.2 such a server ends the handshake without it). The pin is base64(SHA-256(DER SubjectPublicKeyInfo)) as used by \
            `pins:` in policies. Exit codes: 66 missing or unreadable file, 65 not a certificate, key or CSR, 64 usage.
            """)

    @Argument(help: "Certificate, key or CSR files, directories of certificates, https://HOST[:PORT], or a TLS service URL (smtp://HOST, ldap://HOST, postgres://HOST, tls://HOST:PORT, ...).")
    var files: [String]

    @Option(name: .long, help: "Extra trust anchors for https:// targets (repeatable).")
    var ca: [String] = []

    @Flag(name: .long, help: "Print a JSON array instead of text.")
    var json = false

    @OptionGroup(title: "Client certificate (mTLS) for https:// targets") var clientCertificateOptions: ClientCertificateOptions

    @Flag(name: .long, help: "Print the certificates (the served chain of https://...) as PEM, leaf first.")
    var pem = false

    /// One listed certificate, key or CSR.
    struct Entry: Encodable {
        enum Item {
            case certificate(Certificate)
            case key(PinnableKey)
        }

        let file: String
        let index: Int
        let item: Item

        func encode(to encoder: any Encoder) throws {
            // Flatten: {"file", "index", "kind", "subject", "issuer", "not_after", "pin", "sha256", ...}
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(file, forKey: Key("file"))
            try container.encode(index, forKey: Key("index"))
            switch item {
            case .certificate(let certificate):
                try container.encode("certificate", forKey: Key("kind"))
                try CertificateSummary(certificate).encode(to: encoder)
            case .key(let key):
                try container.encode(key.kind.rawValue, forKey: Key("kind"))
                try container.encode(key.publicKey.description, forKey: Key("key"))
                try container.encode(key.spkiPin.description, forKey: Key("pin"))
            }
        }

        /// Lines for people.
        var text: String {
            switch item {
            case .certificate(let certificate): return TrustOutput.describe(certificate, index: index)
            case .key(let key): return "  [\(index)] \(key.kind.label) (\(key.publicKey))\n      pin:        \(key.spkiPin)"
            }
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
        if files.isEmpty { throw ValidationError("give at least one certificate, key or CSR FILE, https://HOST or TLS service URL") }
        if json && pem { throw ValidationError("--json and --pem exclude each other") }
    }

    func run() async throws {
        try await withCLIFailureHandling {
            var perFile: [(file: String, entries: [Entry])] = []
            let identity = try clientCertificateOptions.identity(warn: { printError("warning: \($0)") })
            for file in files {
                let items = file.lowercased().hasPrefix("https://") || URL(string: file).flatMap(ServiceScheme.init(url:)) != nil
                    ? try await Self.servedChain(file, ca: ca, clientIdentity: identity).map(Entry.Item.certificate)
                    : try Self.items(file)
                perFile.append((file, items.enumerated().map { Entry(file: file, index: $0.offset, item: $0.element) }))
            }
            if pem {
                let certificates = perFile.flatMap(\.entries).compactMap { entry -> Certificate? in
                    if case .certificate(let certificate) = entry.item { return certificate }
                    return nil
                }
                guard !certificates.isEmpty else { throw CLIFailure(.dataError, "--pem: no certificate to print (keys and CSRs have no PEM chain)") }
                print(certificates.map(\.pem).joined(), terminator: "")
            } else if json {
                print(try TrustOutput.json(perFile.flatMap(\.entries)), terminator: "")
            } else {
                print(perFile.map { (["\($0.file):"] + $0.entries.map(\.text)).joined(separator: "\n") }.joined(separator: "\n"))
            }
        }
    }

    /// The certificates, then the keys and CSRs, of a file (a directory: its certificates).
    static func items(_ path: String) throws -> [Entry.Item] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return try TrustOutput.loadCertificates(path, option: nil).map(Entry.Item.certificate)
        }
        let certificates: [Certificate], keys: [PinnableKey]
        do {
            let data = try Certificate.contents(ofFile: path)
            keys = try PinnableKey.parse(data, source: path)
            do {
                certificates = try Certificate.parse(data, source: path)
            } catch .noCertificates, .invalidDER {
                certificates = []
            }
        } catch {
            if case .unreadable = error { throw CLIFailure(.noInput, "\(error)") }
            throw CLIFailure(.dataError, "\(error)")
        }
        if certificates.isEmpty && keys.isEmpty {
            throw CLIFailure(.dataError, "\(path): not a certificate, private key, public key or CSR (DER or PEM)")
        }
        return certificates.map(Entry.Item.certificate) + keys.map(Entry.Item.key)
    }

    /// Connects to `url` (presenting `clientIdentity` when the server asks) and returns the served chain, trusted or
    /// not (exit 1 when no chain arrives).
    static func servedChain(_ url: String, ca: [String], clientIdentity: ClientIdentity? = nil) async throws -> [Certificate] {
        let request: ProbeRequest
        if let parsed = URL(string: url), ServiceScheme(url: parsed) != nil {
            request = ProbeRequest(url: parsed)  // a TLS service: its negotiation, then the served chain
        } else {
            do {
                request = try RequestSerializer().request(method: .HEAD, url: url)
            } catch {
                throw CLIFailure(.usage, "\(error)")
            }
        }
        let store = try TrustPolicyOptions.trustStore(systemRoots: true, ca: ca)
        var configuration = ProbeConfiguration(trustStore: store, timeout: 10, maxRedirects: 0)
        configuration.tls.clientIdentity = clientIdentity
        let result = await Prober().probe(request, configuration: configuration)
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
