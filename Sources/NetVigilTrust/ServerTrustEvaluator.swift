import COpenSSL
import Foundation
import NetVigilProbeModel

/// Judges served chains under one `SecurityPolicy` and one `TrustStore`, following AFSecurityPolicy's
/// `evaluateServerTrust:forDomain:` with the fixes described in docs/trust.md.
///
/// Build one per policy and reuse it: the pinned-certificate anchors and pin sets are prepared once. Thread-safe.
public final class ServerTrustEvaluator: Sendable {
    /// The policy applied.
    public let policy: SecurityPolicy
    /// The anchors for chain validation (system roots and/or configured CAs).
    public let trustStore: TrustStore

    private let pinnedStore: TrustStore?
    private let pinnedKeyDigests: Set<Data>
    private let pinnedCertificateDigests: Set<Data>
    private let configuredPins: [SPKIPin]

    /// Prepares an evaluator.
    /// - Throws: `TrustStoreError` when OpenSSL cannot build the pinned-certificate store.
    public init(policy: SecurityPolicy, trustStore: TrustStore) throws(TrustStoreError) {
        self.policy = policy
        self.trustStore = trustStore
        self.configuredPins = policy.configuredPins
        self.pinnedKeyDigests = Set(policy.configuredPins.map(\.digest))
        self.pinnedCertificateDigests = Set(policy.pinnedCertificates.map(\.handle.derSHA256))
        if policy.pinning == .certificate {
            pinnedStore = try TrustStore(systemRoots: false, anchors: policy.pinnedCertificates)
        } else {
            pinnedStore = nil
        }
    }

    /// Judges `servedChain` (leaf first, as sent in the handshake) for `host` at `date`.
    /// - Parameters:
    ///   - host: DNS name or IP literal; nil skips the host check (AFNetworking's `forDomain:nil`).
    ///   - date: the instant the chain is judged at (certificate validity and pin expiry).
    ///   - untrusted: extra intermediates OpenSSL may build the path with (not part of the served chain).
    public func evaluate(servedChain: [Certificate], host: String?, at date: Date = Date(),
                         untrusted: [Certificate] = []) -> TrustEvaluation {
        var builder = Builder(servedChain: servedChain, host: host, date: date, configured: configuredPins)
        guard let leaf = servedChain.first else {
            return builder.finish(.untrusted(.noCertificates), pinVerdict: policy.pinning == .none ? .notPinned : .notEvaluated)
        }
        let hostCheck = policy.validatesDomainName ? HostCheck(host) : nil
        let base = ChainVerifier.verify(chain: servedChain + untrusted, store: trustStore, host: hostCheck, at: date,
                                       profile: policy.validation)
        let baseFailure = base.isValid ? nil : reason(for: base, leaf: leaf, host: hostCheck)
        if base.isValid {
            builder.validatedChain = base.chain
            builder.publiclyTrusted = trustStore.isSystemRoot(base.chain.last)
        }
        builder.failedSubject = base.failedSubject

        let pinsExpired = policy.pinning != .none && policy.pinsHaveExpired(at: date)
        if policy.pinning == .none || pinsExpired {
            if pinsExpired, let expiry = policy.pinsExpire {
                builder.notices.append(.pinsExpired(since: expiry))
            }
            let pinVerdict: PinVerdict = pinsExpired ? .expired : .notPinned
            guard let baseFailure else { return builder.finish(.trusted, pinVerdict: pinVerdict) }
            // As `none`; allowInvalidCertificates only counts where it is legal for `none` (no domain validation).
            if policy.allowInvalidCertificates && !policy.validatesDomainName {
                builder.notices.append(.invalidChainAllowed(baseFailure))
                return builder.finish(.trusted, pinVerdict: pinVerdict)
            }
            return builder.finish(.untrusted(baseFailure), pinVerdict: pinVerdict)
        }

        if let baseFailure {
            guard policy.allowInvalidCertificates else {
                return builder.finish(.untrusted(baseFailure), pinVerdict: .notEvaluated)
            }
            builder.notices.append(.invalidChainAllowed(baseFailure))
        }

        let mismatch: ServerTrustFailureReason
        switch policy.pinning {
        case .none:
            preconditionFailure("handled above")
        case .certificate:
            guard let pinnedStore else { preconditionFailure("certificate pinning has a pinned store") }
            let pinned = ChainVerifier.verify(chain: servedChain + untrusted, store: pinnedStore, host: hostCheck, at: date,
                                                profile: policy.validation)
            if pinned.isValid {
                let matched = pinned.chain.filter { pinnedCertificateDigests.contains($0.handle.derSHA256) }
                builder.validatedChain = pinned.chain
                if !matched.isEmpty {
                    builder.matched = matched.map(\.spkiPin)
                    return builder.finish(.trusted, pinVerdict: .matched)
                }
            } else if !pinned.isMissingAnchor {
                // Expired, not yet valid, wrong host, bad signature...: the chain itself is bad, pins aside.
                builder.failedSubject = pinned.failedSubject
                return builder.finish(.untrusted(reason(for: pinned, leaf: leaf, host: hostCheck)), pinVerdict: .notEvaluated)
            }
            mismatch = .certificatePinMismatch(pinMismatch(leafOnly: false, servedChain: servedChain, host: host))
        case .publicKey:
            let candidates: [Certificate]
            let leafOnly = !base.isValid
            if leafOnly {
                // Nothing proved the rest of the served chain belongs to this server: only the leaf key counts
                // (the handshake signature proves possession of it). AFNetworking accepted any appended certificate.
                if let hostCheck, !Self.leaf(leaf, matches: hostCheck) {
                    return builder.finish(.untrusted(.hostnameMismatch(expected: hostCheck.name, presented: leaf.presentedNames)),
                                          pinVerdict: .notEvaluated)
                }
                candidates = [leaf]
            } else {
                candidates = base.chain
            }
            let matched = candidates.filter { pinnedKeyDigests.contains($0.handle.spkiSHA256) }
            if !matched.isEmpty {
                var pins: [SPKIPin] = []
                for pin in matched.map(\.spkiPin) where !pins.contains(pin) { pins.append(pin) }
                builder.matched = pins
                return builder.finish(.trusted, pinVerdict: .matched)
            }
            mismatch = .publicKeyPinMismatch(pinMismatch(leafOnly: leafOnly, servedChain: servedChain, host: host))
        }

        if policy.reportOnly {
            builder.reportedMismatch = mismatch
            return builder.finish(.trusted, pinVerdict: .mismatchReported)
        }
        return builder.finish(.untrusted(mismatch), pinVerdict: .mismatch)
    }

    // MARK: - Helpers

    private func reason(for verification: ChainVerification, leaf: Certificate, host: HostCheck?) -> ServerTrustFailureReason {
        if let violation = verification.violation { return violation }
        if verification.isHostMismatch, let host {
            return .hostnameMismatch(expected: host.name, presented: leaf.presentedNames)
        }
        return .chainInvalid(code: verification.code, depth: verification.depth, text: verification.text)
    }

    private func pinMismatch(leafOnly: Bool, servedChain: [Certificate], host: String?) -> PinMismatch {
        PinMismatch(
            mode: policy.pinning,
            host: host,
            servedChain: servedChain.map { PinMismatch.Entry(pin: $0.spkiPin, subject: $0.subject) },
            pinnedCertificates: policy.pinnedCertificates.map { PinMismatch.Entry(pin: $0.spkiPin, subject: $0.subject) },
            configuredPins: configuredPins,
            leafOnly: leafOnly
        )
    }

    /// RFC 6125 host check of the leaf alone (used when the chain is not validated).
    static func leaf(_ leaf: Certificate, matches host: HostCheck) -> Bool {
        cossl_clear_errors()
        defer { cossl_clear_errors() }
        if host.isIP {
            return X509_check_ip_asc(leaf.x509, host.name, 0) == 1
        }
        return X509_check_host(leaf.x509, host.name, host.name.utf8.count, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS), nil) == 1
    }

    private struct Builder {
        let servedChain: [Certificate]
        let host: String?
        let date: Date
        let configured: [SPKIPin]
        var validatedChain: [Certificate] = []
        var notices: [TrustEvaluation.Notice] = []
        var matched: [SPKIPin] = []
        var reportedMismatch: ServerTrustFailureReason? = nil
        var failedSubject: String? = nil
        /// The base verification ended at a system root, not a configured anchor: the Baseline Requirements apply.
        var publiclyTrusted = false

        init(servedChain: [Certificate], host: String?, date: Date, configured: [SPKIPin]) {
            self.servedChain = servedChain
            self.host = host
            self.date = date
            self.configured = configured
        }

        func finish(_ verdict: TrustEvaluation.Verdict, pinVerdict: PinVerdict) -> TrustEvaluation {
            let failed: String?
            if case .untrusted(.chainInvalid) = verdict { failed = failedSubject } else { failed = nil }
            return TrustEvaluation(
                verdict: verdict,
                pinVerdict: pinVerdict,
                pinMismatchReported: reportedMismatch != nil,
                reportedMismatch: reportedMismatch,
                notices: notices,
                host: host,
                evaluatedAt: date,
                servedChain: servedChain,
                validatedChain: validatedChain,
                pins: TrustEvaluation.Pins(configured: configured, served: servedChain.map(\.spkiPin), matched: matched),
                failedSubject: failed,
                findings: TrustFinding.cachedFindings(servedChain: servedChain, validatedChain: validatedChain,
                                                      publiclyTrusted: publiclyTrusted)
            )
        }
    }
}
