import Yams

/// `follow_redirects:` — `{ max: 10, allow_downgrade: false }`, or a number of hops (0 = off), or true/false.
struct RedirectSettings: Sendable {
    /// Hops followed (0 = none).
    var max = 10
    /// Whether an https:// URL may redirect to http:// (never by default: the redirect fails as `insecureRedirect`).
    var allowsDowngrade = false

    init() {}

    init(reading value: ConfigValue) throws {
        if case .mapping = value.node {
            let mapping = try value.mapping(allowedKeys: ["max", "allow_downgrade"])
            max = try mapping["max"]?.int(in: 0...50) ?? max
            allowsDowngrade = try mapping["allow_downgrade"]?.bool() ?? false
        } else if let enabled = try? value.bool() {
            max = enabled ? max : 0
        } else {
            max = try value.int(in: 0...50)
        }
    }
}
