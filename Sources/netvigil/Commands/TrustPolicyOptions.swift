import ArgumentParser
import Foundation
import NetVigilTrust

/// The TLS policy flags of `netvigil trust evaluate`, for commands that connect (`probe`).
struct TrustPolicyOptions: ParsableArguments {
    enum PinningOption: String, RawValueArgument {
        case none, certificate, publicKey
    }

    @Option(name: .long, help: "Extra trust anchors: CA file, bundle or directory (repeatable).")
    var ca: [String] = []

    @Flag(name: .long, help: "Do not trust the system roots (OpenSSL default paths).")
    var noSystemRoots = false

    @Option(name: .long, help: "Pinning mode: none, certificate or publicKey.")
    var pinning: PinningOption?

    @Option(name: .long, help: "A public-key pin sha256/BASE64 or pin-sha256=\"BASE64\" (repeatable).")
    var pin: [String] = []

    @Option(name: .long, help: "A pinned certificate file or directory (repeatable).")
    var pinCert: [String] = []

    @Flag(name: .long, help: "Accept chains that do not validate (needs enforcing pins when the domain is validated).")
    var allowInvalidCertificates = false

    @Flag(name: .long, help: "Do not check the host name.")
    var noValidateDomainName = false

    @Flag(name: .long, help: "Report pin mismatches without failing.")
    var reportOnly = false

    @Option(name: .long, help: "Validation profile: webpki (what TLS clients accept, default), rfc5280 (OpenSSL's default verification) or strict (every RFC 5280 rule a refusal).")
    var validation: ValidationProfile?

    @Option(name: .long, help: "Revocation checking: off, soft (default: an unknown status is a finding) or hard (it fails).")
    var revocation: RevocationPolicy.Mode?

    @Option(name: .long, help: "A CRL file, PEM or DER, checked before any distribution point (repeatable).")
    var crl: [String] = []

    @Flag(name: .long, help: "Let revocation fetches (CRL distribution points, OCSP) connect to link-local and cloud-metadata addresses (a private PKI's).")
    var revocationAllowLinkLocal = false

    /// The options given on the command line, by name (they conflict with a configured target's policy).
    var givenOptions: [String] {
        let given: [(String, Bool)] = [
            ("--ca", !ca.isEmpty), ("--no-system-roots", noSystemRoots), ("--pinning", pinning != nil), ("--pin", !pin.isEmpty),
            ("--pin-cert", !pinCert.isEmpty), ("--allow-invalid-certificates", allowInvalidCertificates),
            ("--no-validate-domain-name", noValidateDomainName), ("--report-only", reportOnly),
            ("--validation", validation != nil), ("--revocation", revocation != nil), ("--crl", !crl.isEmpty),
            ("--revocation-allow-link-local", revocationAllowLinkLocal),
        ]
        return given.filter(\.1).map(\.0)
    }

    /// The policy the flags describe (usage errors exit 64, unreadable files 66/65).
    func policy(pinsExpire: Date? = nil) throws -> SecurityPolicy {
        var pinned: [Certificate] = []
        for path in pinCert { pinned += try TrustOutput.loadCertificates(path, option: "--pin-cert") }
        var pins: [SPKIPin] = []
        for text in pin {
            do { pins.append(try SPKIPin(parsing: text)) } catch { throw CLIFailure(.usage, "--pin: \(error)") }
        }
        let mode: SecurityPolicy.PinningMode
        switch pinning {
        case .none?: mode = .none
        case .certificate?: mode = .certificate
        case .publicKey?: mode = .publicKey
        case nil: mode = pins.isEmpty && pinned.isEmpty ? .none : .publicKey
        }
        let revocation = try revocationPolicy()
        do {
            return try SecurityPolicy(pinning: mode, allowInvalidCertificates: allowInvalidCertificates,
                                      validatesDomainName: !noValidateDomainName, pinnedCertificates: pinned,
                                      pins: pins, reportOnly: reportOnly, pinsExpire: pinsExpire,
                                      validation: validation ?? .default, revocation: revocation)
        } catch {
            throw CLIFailure(.usage, "policy: \(error)")
        }
    }

    /// The anchors the flags describe.
    func trustStore() throws -> TrustStore {
        try Self.trustStore(systemRoots: !noSystemRoots, ca: ca)
    }

    static func trustStore(systemRoots: Bool, ca: [String]) throws -> TrustStore {
        for path in ca where !FileManager.default.fileExists(atPath: path) {
            throw CLIFailure(.noInput, "--ca: \(path): no such file or directory")
        }
        do {
            return try TrustStore(systemRoots: systemRoots, caPaths: ca)
        } catch {
            if case .certificate(let certificateError) = error, case .unreadable = certificateError {
                throw CLIFailure(.noInput, "--ca: \(certificateError)")
            }
            throw CLIFailure(.dataError, "--ca: \(error)")
        }
    }
}

extension ValidationProfile: RawValueArgument {}
