import Foundation
import NIOCore
import NetVigilTrust

/// Downloads CRLs from distribution points and asks OCSP responders (HTTP GET or POST of an OCSPRequest, see
/// `CRLFetcher+OCSP.swift`; answers up to `maximumOCSPBytes`) with netvigil's own request stack. CRLs: plain HTTP GET, at most
/// `CertificateRevocationList.maximumBytes` (a bigger CRL is refused by its Content-Length or while it streams, so
/// memory stays bounded), within the time given. Good downloads go into the cache, failures are remembered there.
struct CRLFetcher: Sendable {
    let prober: Prober
    let cache: CRLCache
    /// The probe's configuration: its trust store and proxy are reused for the downloads.
    let template: ProbeConfiguration

    /// The largest OCSP answer read (64 KB).
    static let maximumOCSPBytes = 64 * 1024

    /// Downloads `urls` and sends `queries`, one after another within `seconds` in all. Answers are keyed by URL
    /// (CRLs) and by `OCSPQuery.key`. No hop connects where `policy` and the daemon's own listeners forbid
    /// (``RevocationFetchGuard``): such a fetch fails, naming the setting that would allow it.
    func download(_ urls: [String], queries: [OCSPQuery] = [], within seconds: TimeInterval,
                  policy: RevocationPolicy = .default) async -> [String: CRLDownload] {
        var configuration = ProbeConfiguration(trustStore: template.trustStore, timeout: max(seconds, 0.001),
                                               connectTimeout: min(template.connectTimeout, max(seconds, 0.001)),
                                               maxBodyBytes: CertificateRevocationList.maximumBytes, maxRedirects: 3)
        configuration.proxy = template.proxy
        configuration.fetchGuard = RevocationFetchGuard(allowsLinkLocal: policy.allowsLinkLocalFetches,
                                                        ownListeners: template.ownListeners,
                                                        refused: template.revocationFetchRefused)
        let start = Date()
        var downloads: [String: CRLDownload] = [:]
        for text in urls {
            let left = seconds - Date().timeIntervalSince(start)
            configuration.timeout = max(left, 0.001)
            let outcome = await download(text, configuration: configuration)
            downloads[text] = outcome
            switch outcome {
            case .crls(let crls):
                for crl in crls { cache.store(crl, for: text) }
                // A stale CRL is not kept (the cache drops it): do not download it again for every probe.
                if !crls.contains(where: { ($0.nextUpdate ?? .distantPast) > Date() }) {
                    cache.rememberFailure("the CRL served there is stale", for: text, at: Date())
                }
            case .failed(let why): cache.rememberFailure(why, for: text, at: Date())
            case .ocspResponse: break
            }
        }
        for query in queries {
            let left = seconds - Date().timeIntervalSince(start)
            configuration.timeout = max(left, 0.001)
            configuration.maxBodyBytes = Self.maximumOCSPBytes
            let outcome = await ask(query, configuration: configuration, deadline: start.addingTimeInterval(seconds))
            downloads[query.key] = outcome
            if case .failed(let why) = outcome { cache.rememberFailure(why, for: query.key, at: Date()) }
        }
        return downloads
    }

    private func download(_ text: String, configuration: ProbeConfiguration) async -> CRLDownload {
        guard let url = URL(string: text) else { return .failed("not a URL") }
        let (result, response) = await prober.fetch(ProbeRequest(url: url), configuration: configuration)
        if let error = result.error { return .failed("download failed: \(error.message)") }
        guard let response else { return .failed("no response") }
        do {
            return .crls(try CertificateRevocationList.parse(Data(response.body), source: text))
        } catch {
            return .failed("\(error)")
        }
    }
}
