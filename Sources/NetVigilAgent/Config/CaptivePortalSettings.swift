import Foundation

/// `reachability.captive_portal:` — a plain-HTTP check in the style of NetworkManager's connectivity check and
/// Android's `generate_204`: any other answer means a portal intercepts traffic.
///
/// ```yaml
/// captive_portal: { url: http://connectivity.example/generate_204, expect_status: 204, interval: 5m, timeout: 5s }
/// ```
public struct CaptivePortalSettings: Sendable, Equatable {
    static let allowedKeys = ["url", "expect_status", "interval", "timeout"]

    /// The check URL (http:// so a portal can answer it).
    public var url: String
    /// The status a free network returns (default 204).
    public var expectStatus: Int
    /// Time between checks (default 5m; also run at once when `default` changes).
    public var interval: Duration
    /// Timeout of one check (default 5s).
    public var timeout: Duration

    public init(url: String, expectStatus: Int = 204, interval: Duration = .seconds(300), timeout: Duration = .seconds(5)) {
        self.url = url
        self.expectStatus = expectStatus
        self.interval = interval
        self.timeout = timeout
    }

    init(reading value: ConfigValue) throws {
        let mapping = try value.mapping(allowedKeys: Self.allowedKeys)
        let urlValue = try mapping.required("url")
        let url = try urlValue.nonEmptyString()
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", components.host?.isEmpty == false else {
            throw urlValue.error("expected an http:// URL")
        }
        self.init(url: url)
        if let item = mapping["expect_status"] { expectStatus = try item.int(in: 100...599) }
        if let item = mapping["interval"] { interval = try item.duration(minimum: .seconds(1)) }
        if let item = mapping["timeout"] { timeout = try item.duration(minimum: .milliseconds(100)) }
    }
}
