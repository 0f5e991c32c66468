import Foundation
import NetVigilProber

extension ProbeCommand {
    /// The request of a TLS service URL (`smtp://`, `ldaps://`, `tls://HOST:PORT`, ...): refuses the options that
    /// need HTTP (usage error, exit 64) and URLs with more than a host and a port.
    func serviceRequest(_ url: String, scheme: ServiceScheme) throws -> ProbeRequest {
        let httpOptions: [(String, Bool)] = [
            ("--method", method != nil), ("--header", !header.isEmpty), ("--query", !query.isEmpty), ("--form", !form.isEmpty),
            ("--json-body", jsonBody != nil), ("--basic-auth", basicAuth != nil), ("--expect-status", expectStatus != nil),
            ("--expect-content-type", !expectContentType.isEmpty), ("--expect-json", !expectJson.isEmpty),
            ("--expect-body-contains", !expectBodyContains.isEmpty), ("--expect-body-matches", !expectBodyMatches.isEmpty),
        ]
        if let option = httpOptions.first(where: \.1)?.0 {
            throw CLIFailure(.usage, "\(option) needs an http:// or https:// URL; \(scheme.rawValue):// sends no HTTP request")
        }
        guard let components = URLComponents(string: url), let parsed = URL(string: url), let host = components.host, !host.isEmpty,
              components.port != nil || scheme.defaultPort != nil,
              components.percentEncodedPath.isEmpty || components.percentEncodedPath == "/", components.query == nil else {
            throw CLIFailure(.usage, "URL: \(scheme.rawValue):// wants a host" + (scheme.defaultPort == nil ? " and a port" : " and an optional port")
                             + " and nothing else")
        }
        return ProbeRequest(url: parsed)
    }
}
