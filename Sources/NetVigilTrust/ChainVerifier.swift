import COpenSSL
import Foundation

/// The outcome of one `X509_verify_cert` run.
struct ChainVerification: Sendable {
    /// True when OpenSSL accepted the chain.
    var isValid: Bool
    /// `X509_V_OK` or the OpenSSL verify error.
    var code: Int32
    /// Depth of the certificate the error is about (0 = leaf).
    var depth: Int32
    /// `X509_verify_cert_error_string(code)`.
    var text: String
    /// The chain OpenSSL built (leaf → anchor) when valid; empty otherwise.
    var chain: [Certificate]
    /// Subject of the certificate the error is about.
    var failedSubject: String? = nil
    /// The typed reason when a `webpki` rule (or an OpenSSL check of one of its families) refused the chain.
    var violation: ServerTrustFailureReason? = nil

    var isHostMismatch: Bool {
        if case .hostnameMismatch? = violation { return true }
        return code == X509_V_ERR_HOSTNAME_MISMATCH || code == X509_V_ERR_IP_ADDRESS_MISMATCH || code == X509_V_ERR_EMAIL_MISMATCH
    }

    /// The errors that mean "no path to an anchor of this store" (as opposed to a bad certificate).
    var isMissingAnchor: Bool {
        if violation != nil { return false }
        switch code {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED:
            return true
        default:
            return false
        }
    }
}

/// Host name or IP literal to check, as OpenSSL wants it.
struct HostCheck: Sendable, Hashable {
    var name: String
    var isIP: Bool

    /// Classifies `host`: IPv4/IPv6 literals (brackets allowed) become IP checks; a trailing dot is dropped.
    init?(_ host: String?) {
        guard var host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        var v4 = in_addr()
        var v6 = in6_addr()
        let isIP = inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
        self.name = isIP ? host : host.lowercased()
        self.isIP = isIP
    }
}

enum ChainVerifier {
    /// Runs `X509_verify_cert` for `chain[0]` with `chain[1...]` as untrusted intermediates, or answers from the
    /// store's cache of successes (`VerifiedChainCache`) when the same chain was verified for the same host before.
    ///
    /// Every certificate of the store is an anchor, self-signed or not (`X509_V_FLAG_PARTIAL_CHAIN`), as in browsers
    /// and Go. `webpki` and `strict` run at security level 2, leave the host check to `WebPKIProfile` (subjectAltName
    /// only) and run its rules over the chain OpenSSL built; only `strict` sets `X509_V_FLAG_X509_STRICT`.
    static func verify(chain: [Certificate], store: TrustStore, host: HostCheck?, at date: Date,
                       profile: ValidationProfile = .default) -> ChainVerification {
        let key = VerifiedChainCache.Key(served: chain.map(\.handle.derSHA256), host: host, profile: profile)
        if let built = store.verifiedChains.chain(for: key, served: chain, at: date) {
            return ChainVerification(isValid: true, code: X509_V_OK, depth: 0, text: "ok", chain: built)
        }
        let bundleWasLoaded = store.systemRootLocations?.isBundleLoaded ?? true
        let verify = {
            run(chain: chain, store: store, host: profile.usesWebPKIRules ? nil : host, at: date, profile: profile)
        }
        var verification = verify()
        if !verification.isValid, !bundleWasLoaded, let roots = store.systemRootLocations {
            // The directory did not anchor the chain: judge it as `X509_STORE_set_default_paths` would, bundle included.
            roots.loadBundle(into: store.store)
            verification = verify()
        }
        if profile.usesWebPKIRules {
            if verification.isValid, let violation = WebPKIProfile.check(chain: verification.chain, host: host, profile: profile) {
                verification = ChainVerification(isValid: false, code: -1, depth: Int32(violation.ruleViolation?.depth ?? 0),
                                                 text: violation.message, chain: [], violation: violation)
            } else if !verification.isValid {
                // A served certificate OpenSSL cannot use (duplicate or undecodable extension) explains the failure
                // better than "unable to get issuer".
                let malformed = chain.enumerated().lazy.compactMap { WebPKIProfile.structure($0.element, at: $0.offset) }
                    .first { $0.rule.hasPrefix("extension_") || $0.rule.hasPrefix("serial_") }
                verification.violation = malformed.map(ServerTrustFailureReason.malformedCertificate)
                    ?? WebPKIProfile.reason(forOpenSSL: verification)
            }
        }
        if verification.isValid { store.verifiedChains.remember(verification.chain, for: key) }
        return verification
    }

    /// One `X509_verify_cert` run.
    private static func run(chain: [Certificate], store: TrustStore, host: HostCheck?, at date: Date,
                            profile: ValidationProfile) -> ChainVerification {
        guard let leaf = chain.first else {
            return ChainVerification(isValid: false, code: -1, depth: 0, text: "no certificate", chain: [])
        }
        guard let ctx = X509_STORE_CTX_new() else {
            return ChainVerification(isValid: false, code: -1, depth: 0, text: "out of memory", chain: [])
        }
        defer { X509_STORE_CTX_free(ctx) }
        guard let untrusted = cossl_sk_X509_new_null() else {
            return ChainVerification(isValid: false, code: -1, depth: 0, text: "out of memory", chain: [])
        }
        // The stack borrows the certificates: `chain` keeps them alive, sk_X509_free drops only the stack.
        defer { cossl_sk_X509_free(untrusted) }
        for certificate in chain.dropFirst() {
            _ = cossl_sk_X509_push(untrusted, certificate.x509)
        }
        return withExtendedLifetime((chain, store)) { () -> ChainVerification in
            guard X509_STORE_CTX_init(ctx, store.store, leaf.x509, untrusted) == 1 else {
                cossl_clear_errors()
                return ChainVerification(isValid: false, code: -1, depth: 0, text: "X509_STORE_CTX_init failed", chain: [])
            }
            _ = X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER)
            X509_STORE_CTX_set_flags(ctx, UInt(X509_V_FLAG_PARTIAL_CHAIN) | (profile == .strict ? UInt(X509_V_FLAG_X509_STRICT) : 0))
            if profile.usesWebPKIRules {
                // 112-bit security: RSA/DSA/DH ≥ 2048 bits, ECC ≥ 224 bits, no MD5/SHA-1 signatures.
                X509_VERIFY_PARAM_set_auth_level(X509_STORE_CTX_get0_param(ctx), 2)
                cossl_X509_STORE_CTX_judge_anchor_as_key(ctx)
            } else {
                cossl_X509_STORE_CTX_include_not_after(ctx)
            }
            cossl_X509_STORE_CTX_set_unix_time(ctx, Int64(date.timeIntervalSince1970.rounded(.down)))
            if let host {
                guard cossl_X509_STORE_CTX_set_host(ctx, host.name, host.isIP ? 1 : 0) == 1 else {
                    cossl_clear_errors()
                    return ChainVerification(isValid: false, code: X509_V_ERR_HOSTNAME_MISMATCH, depth: 0,
                                             text: "host name cannot be checked", chain: [])
                }
            }
            let result = X509_verify_cert(ctx)
            let code = X509_STORE_CTX_get_error(ctx)
            let depth = X509_STORE_CTX_get_error_depth(ctx)
            cossl_clear_errors()
            guard result == 1 else {
                let text = String(cString: X509_verify_cert_error_string(Int(code)))
                let current = X509_STORE_CTX_get_current_cert(ctx)
                let subject = current.map { Certificate.oneLine(X509_get_subject_name($0)) }
                return ChainVerification(isValid: false, code: code == X509_V_OK ? -1 : code, depth: depth, text: text,
                                         chain: [], failedSubject: subject)
            }
            var built: [Certificate] = []
            if let stack = X509_STORE_CTX_get0_chain(ctx) {
                for index in 0..<cossl_sk_X509_num(stack) {
                    guard let x509 = cossl_sk_X509_value(stack, index) else { continue }
                    if let served = chain.first(where: { $0.x509 == x509 }) {
                        built.append(served)
                    } else if let anchor = store.knownAnchor(x509) {
                        built.append(anchor)
                    } else if let other = Certificate(retainingX509: x509) {
                        built.append(other)
                    }
                }
            }
            return ChainVerification(isValid: true, code: X509_V_OK, depth: 0, text: "ok", chain: built)
        }
    }
}
