import COpenSSL
import Foundation

extension RevocationChecker {
    /// What the AIA OCSP responder of one certificate says, as far as it is known.
    enum OCSPStep {
        case settled
        case revoked(CertificateRevocation)
        case pending(OCSPQuery)
        case problem(String)
        /// No http:// responder, or nothing to ask it with.
        case none
    }

    /// Asks (the cache, the downloads, or later the network) the first http:// OCSP responder of `chain[index]`.
    /// A good answer from the downloads is cached until its nextUpdate.
    static func askOCSP(chain: [Certificate], index: Int, policy: RevocationPolicy, cache: CRLCache?,
                        downloads: [String: CRLDownload], at date: Date) -> OCSPStep {
        let certificate = chain[index]
        guard let url = ocspResponders(of: certificate).first else { return .none }
        let key = url + "#" + certificate.sha256Fingerprint
        var response = cache?.ocspResponse(for: key, at: date)
        let downloaded = response == nil
        if response == nil, case .ocspResponse(let der)? = downloads[key] { response = der }
        if let response {
            switch OCSPResponseCheck.judge(response, chain: chain, index: index, at: date) {
            case .good(let until):
                if downloaded { cache?.storeOCSPResponse(response, for: key, until: until) }
                return .settled
            case .revoked(let reason, let at):
                return .revoked(CertificateRevocation(certificate: index, subject: certificate.subject,
                                                      serial: certificate.serialNumber, reason: reason, revokedAt: at,
                                                      source: "OCSP \(url)"))
            case .unusable(let why):
                return .problem("OCSP \(url): \(why)")
            }
        }
        if case .failed(let why)? = downloads[key] { return .problem("OCSP \(url): \(why)") }
        if let why = cache?.failure(for: key, at: date) { return .problem("OCSP \(url): \(why)") }
        guard policy.fetchesDistributionPoints, let request = ocspRequest(for: certificate, issuer: chain[index + 1]) else {
            return .none
        }
        return .pending(OCSPQuery(url: url, request: request, key: key))
    }

    /// The http:// OCSP responder URLs of `certificate`'s authorityInfoAccess.
    public static func ocspResponders(of certificate: Certificate) -> [String] {
        httpURLs { cossl_X509_ocsp_urls(certificate.x509, $0, $1) }
    }

    static func ocspRequest(for certificate: Certificate, issuer: Certificate) -> Data? {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = cossl_ocsp_request_der(certificate.x509, issuer.x509, &out)
        guard length > 0, let out else { return nil }
        defer { cossl_OPENSSL_free(out) }
        return Data(bytes: out, count: Int(length))
    }
}
