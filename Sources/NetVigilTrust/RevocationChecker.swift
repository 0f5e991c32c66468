import COpenSSL
import Foundation

/// What a download of one CRL distribution point gave.
public enum CRLDownload: Sendable {
    /// The CRLs at the URL (normally one).
    case crls([CertificateRevocationList])
    /// An OCSP responder's answer (DER) to an `OCSPQuery`.
    case ocspResponse(Data)
    /// Why there is no CRL or OCSP response (unreachable, HTTP error, too large, not a CRL).
    case failed(String)
}

/// An OCSP request for a certificate's AIA responder (sent by GET or POST, RFC 6960 A.1); its answer goes into downloads
/// under `key`.
public struct OCSPQuery: Sendable, Hashable {
    public let url: String
    /// The DER OCSPRequest (no nonce, so answers can be cached).
    public let request: Data
    /// `url#sha256-of-the-certificate`: the key of the answer in downloads and in the cache.
    public let key: String
}

/// The revocation status of a validated chain as far as the known CRLs tell it.
public struct RevocationCheck: Sendable {
    /// The first revoked certificate, leaf first.
    public var revoked: CertificateRevocation?
    /// Certificates whose status could not be learned, and why (stale, wrong signature, download failed...).
    public var problems: [(certificate: Int, message: String)] = []
    /// Distribution points to download before the status is known (not cached, not downloaded yet).
    public var pendingURLs: [String] = []
    /// OCSP requests to send (when no CRL could answer for a certificate with an AIA OCSP responder).
    public var pendingOCSP: [OCSPQuery] = []
}

/// Checks each certificate of a validated chain (except the anchor) against the CRLs of its issuer: `crl:` files,
/// cached downloads and fresh downloads. A CRL counts when its issuer name is the issuer's subject, the issuer's key
/// signed it, it covers the certificate (no delta, indirect or reason-limited CRL) and thisUpdate ≤ now < nextUpdate.
public enum RevocationChecker {
    /// Checks `chain` (leaf → anchor) at `date`. `stapledOCSP`, a DER OCSP response for the leaf, is judged first: a
    /// good answer settles the leaf, an unusable one is a problem unless a CRL answers.
    public static func check(chain: [Certificate], policy: RevocationPolicy, cache: CRLCache?,
                             downloads: [String: CRLDownload] = [:], stapledOCSP: Data? = nil, at date: Date) -> RevocationCheck {
        var result = RevocationCheck()
        guard policy.mode != .off, chain.count > 1 else { return result }
        for index in 0..<(chain.count - 1) {
            let certificate = chain[index]
            let issuer = chain[index + 1]
            var candidates = policy.crls.filter { $0.names(issuer) }
            var urlProblems: [String] = []
            var pending: [String] = []
            for url in distributionPoints(of: certificate) {
                if let cached = cache?.crl(for: url, at: date) {
                    candidates.append(cached)
                } else if let why = cache?.failure(for: url, at: date) {
                    urlProblems.append("CRL \(url): \(why)")
                } else if let download = downloads[url] {
                    switch download {
                    case .crls(let crls): candidates += crls
                    case .failed(let why): urlProblems.append("CRL \(url): \(why)")
                    case .ocspResponse: break
                    }
                } else if policy.fetchesDistributionPoints {
                    pending.append(url)
                }
            }
            var problems: [String] = []
            var known = false
            if index == 0, let stapledOCSP {
                switch OCSPResponseCheck.judge(stapledOCSP, chain: chain, index: 0, at: date) {
                case .good:
                    continue
                case .revoked(let reason, let at):
                    result.revoked = CertificateRevocation(certificate: 0, subject: certificate.subject,
                                                           serial: certificate.serialNumber, reason: reason,
                                                           revokedAt: at, source: "stapled OCSP response")
                    return result
                case .unusable(let why):
                    problems.append("stapled OCSP response: \(why)")
                }
            }
            for crl in candidates {
                guard crl.isIssued(by: issuer) else {
                    problems.append("CRL \(crl.source) is not signed by the key of \(issuer.subject)")
                    continue
                }
                guard crl.covers(certificate) else {
                    problems.append("CRL \(crl.source) does not cover this certificate (delta, indirect or partial CRL)")
                    continue
                }
                guard crl.thisUpdate <= date else {
                    problems.append("CRL \(crl.source) is not valid before \(crl.thisUpdate.formatted(.iso8601))")
                    continue
                }
                guard let next = crl.nextUpdate, next > date else {
                    let when = crl.nextUpdate.map { "expired at \($0.formatted(.iso8601))" } ?? "has no nextUpdate"
                    problems.append("CRL \(crl.source) \(when)")
                    continue
                }
                known = true
                if let entry = crl.entry(for: certificate), entry.reason != .removeFromCRL {
                    result.revoked = CertificateRevocation(certificate: index, subject: certificate.subject,
                                                           serial: certificate.serialNumber, reason: entry.reason,
                                                           revokedAt: entry.revokedAt, source: crl.source)
                    return result
                }
            }
            if known { continue }
            if !pending.isEmpty {
                result.pendingURLs += pending.filter { !result.pendingURLs.contains($0) }
                continue
            }
            switch askOCSP(chain: chain, index: index, policy: policy, cache: cache, downloads: downloads, at: date) {
            case .settled: continue
            case .revoked(let revocation):
                result.revoked = revocation
                return result
            case .pending(let query):
                result.pendingOCSP.append(query)
                continue
            case .problem(let why): problems.append(why)
            case .none: break
            }
            for message in problems + urlProblems {
                result.problems.append((index, message))
            }
        }
        return result
    }

    /// The http:// URIs of `certificate`'s CRL distribution points (other schemes are not fetched).
    public static func distributionPoints(of certificate: Certificate) -> [String] {
        httpURLs { cossl_X509_crl_distribution_urls(certificate.x509, $0, $1) }
    }

    /// The http:// lines a shim writes (newline-separated) into a buffer.
    static func httpURLs(_ fill: (UnsafeMutablePointer<CChar>, Int32) -> Int32) -> [String] {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = buffer.withUnsafeMutableBufferPointer { fill($0.baseAddress!, Int32($0.count)) }
        guard length > 0 else { return [] }
        let text = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").map(String.init).filter { $0.lowercased().hasPrefix("http://") }
    }
}
