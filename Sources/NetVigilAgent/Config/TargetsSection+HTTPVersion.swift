import NetVigilProber

extension TargetsSection {
    /// The target key choosing the HTTP versions offered.
    static let httpVersionKey = "http_version"

    /// Sets the target's `http_version` (`auto`, `"1.1"` or `"2"`; default `auto`). `"2"` needs an https:// URL:
    /// HTTP/2 is only spoken over TLS.
    static func applyHTTPVersion(to target: inout ProbeTarget, mapping: ConfigMapping) throws {
        guard let value = mapping[httpVersionKey] else { return }
        let choices = HTTPVersionPreference.allCases.map(\.rawValue)
        guard let version = HTTPVersionPreference(rawValue: try value.oneOf(choices)) else { return }
        if version == .http2, !target.isTLS {
            throw value.error("http_version \"2\" needs an https:// URL (HTTP/2 is only spoken over TLS)")
        }
        target.configuration.httpVersion = version
    }
}
