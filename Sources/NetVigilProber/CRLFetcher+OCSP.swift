import Foundation
import NetVigilTrust

extension CRLFetcher {
    /// RFC 6960 appendix A.1: a GET request's URL (scheme, host, path and encoded request) must stay under this.
    static let ocspGetURLLimit = 255

    /// The GET form of `query` (RFC 6960 appendix A.1): the responder URL, a `/` unless it ends with one, then the
    /// base64 of the DER request URL-encoded (`+`, `/` and `=` as `%2B`, `%2F`, `%3D`); nil when that URL would be
    /// 255 bytes or more, so the request is POSTed.
    static func ocspGetURL(_ query: OCSPQuery) -> String? {
        var encoded = ""
        for character in query.request.base64EncodedString() {
            switch character {
            case "+": encoded += "%2B"
            case "/": encoded += "%2F"
            case "=": encoded += "%3D"
            default: encoded.append(character)
            }
        }
        let url = query.url + (query.url.hasSuffix("/") ? "" : "/") + encoded
        return url.utf8.count < ocspGetURLLimit ? url : nil
    }

    /// Asks the responder of `query`: by GET when the request fits a URL (RFC 6960 A.1; what responders behind CDNs
    /// cache), falling back to a POST of the same request when the GET fails (no answer, or an HTTP error status: some
    /// responders take POST only) and time is left before `deadline`; by POST when the request is too long for GET.
    func ask(_ query: OCSPQuery, configuration: ProbeConfiguration, deadline: Date) async -> CRLDownload {
        var configuration = configuration
        guard let text = Self.ocspGetURL(query), let url = URL(string: text) else {
            return await post(query, configuration: configuration)
        }
        let got = await send(ProbeRequest(url: url), configuration: configuration)
        guard case .failed(let why) = got else { return got }
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { return .failed("GET \(why)") }
        configuration.timeout = left
        switch await post(query, configuration: configuration) {
        case .failed(let postWhy): return .failed("GET \(why); POST \(postWhy)")
        case let answer: return answer
        }
    }

    /// POSTs the DER request as `application/ocsp-request` (RFC 6960 A.1).
    private func post(_ query: OCSPQuery, configuration: ProbeConfiguration) async -> CRLDownload {
        guard let url = URL(string: query.url) else { return .failed("not a URL") }
        return await send(ProbeRequest(method: .POST, url: url, headers: [("Content-Type", "application/ocsp-request")],
                                       body: [UInt8](query.request)), configuration: configuration)
    }

    private func send(_ request: ProbeRequest, configuration: ProbeConfiguration) async -> CRLDownload {
        let (result, response) = await prober.fetch(request, configuration: configuration)
        if let error = result.error { return .failed("request failed: \(error.message)") }
        guard let response else { return .failed("no response") }
        return .ocspResponse(Data(response.body))
    }
}
