/// A top-level section of the configuration file (`storage`, `feed`, `log`, ...).
///
/// Adding a section is one small type conforming to this protocol plus one property in `AgentConfiguration`.
public protocol ConfigSection: Sendable {
    /// The section's key in the YAML document.
    static var key: String { get }
    /// Keys accepted inside the section; anything else is an error.
    static var allowedKeys: [String] { get }
    /// The section's defaults, used when the section is absent.
    init()
    /// Reads the section from its checked mapping.
    init(reading mapping: ConfigMapping) throws
}

extension ConfigSection {
    /// Reads the section from the root mapping, or returns defaults when absent.
    static func read(from root: ConfigMapping) throws -> Self {
        guard let value = root[key] else { return Self() }
        return try Self(reading: value.mapping(allowedKeys: allowedKeys))
    }
}
