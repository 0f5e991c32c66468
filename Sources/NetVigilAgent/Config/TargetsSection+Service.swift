import Foundation
import NetVigilProber

extension TargetsSection {
    /// Target keys that only mean something for an HTTP request.
    static let httpOnlyKeys = ["method", "headers", "params", "body", "basic_auth", "follow_redirects", "send_credentials_on_redirect"]
    /// `expect:` keys that need an HTTP response (a service target keeps `max_response_time` and `min_cert_validity`).
    static let httpOnlyExpectKeys = ["status", "content_type", "json", "body_contains", "body_matches"]

    /// The service schemes a target accepts besides http and https, for messages.
    static var serviceSchemeList: String {
        ServiceScheme.allCases.map { "\($0.rawValue)://" }.joined(separator: ", ")
    }

    /// The request of a `ServiceScheme` target, after refusing what needs HTTP (at the key's line and column): the
    /// HTTP request keys, HTTP `expect` keys, a path or query, and `tls://` without a port.
    static func serviceRequest(_ scheme: ServiceScheme, url: String, components: URLComponents, mapping: ConfigMapping,
                               urlValue: ConfigValue) throws -> ProbeRequest {
        for key in httpOnlyKeys {
            if let value = mapping[key] ?? (mapping.contains(key) ? urlValue : nil) {
                throw value.error("\(key) needs an http:// or https:// URL; \(scheme.rawValue):// sends no HTTP request")
            }
        }
        if let expectValue = mapping["expect"] {
            let expect = try expectValue.mapping(allowedKeys: expectKeys)
            for key in httpOnlyExpectKeys {
                if let value = expect[key] {
                    throw value.error("expect.\(key) needs an HTTP response; \(scheme.rawValue):// targets allow max_response_time and min_cert_validity")
                }
            }
        }
        guard components.port != nil || scheme.defaultPort != nil else {
            throw urlValue.error("\(scheme.rawValue):// needs a port, like \(scheme.rawValue)://host:443")
        }
        guard components.percentEncodedPath.isEmpty || components.percentEncodedPath == "/", components.query == nil,
              components.fragment == nil, let url = URL(string: url) else {
            throw urlValue.error("\(scheme.rawValue):// URLs have only a host and a port")
        }
        return ProbeRequest(url: url)
    }
}
