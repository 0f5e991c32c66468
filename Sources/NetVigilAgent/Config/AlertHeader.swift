import Foundation

/// An HTTP header sent by a webhook or Alertmanager sink. Its value is never printed when the name looks like a
/// credential.
public struct AlertHeader: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// True for names such as `Authorization`, `X-Api-Key`, `X-Auth-Token`, `Cookie`.
    public var isSensitive: Bool {
        let lower = name.lowercased()
        return ["auth", "token", "key", "secret", "password", "passwd", "cookie", "session", "signature", "credential"]
            .contains { lower.contains($0) }
    }

    /// `Name: value`, or `Name: <redacted>` for sensitive names.
    public var description: String { "\(name): \(isSensitive ? "<redacted>" : value)" }

    /// Headers netvigil sets itself; configuring one is an error.
    static let reserved = ["content-type", "content-length", "idempotency-key", "host", "connection"]

    /// Reads a sink's `headers:` mapping (names checked, at most `ConfigLimits.maxHeaders`, reserved names refused).
    static func list(reading value: ConfigValue) throws -> [AlertHeader] {
        guard case .mapping(let node) = value.node else {
            throw value.error("expected a mapping of header names to values, got \(value.shortDescription)")
        }
        guard node.count <= ConfigLimits.maxHeaders else {
            throw value.error("at most \(ConfigLimits.maxHeaders) headers (the limit)")
        }
        var headers: [AlertHeader] = []
        for (keyNode, valueNode) in node {
            let key = ConfigValue(node: keyNode, path: value.path, file: value.file)
            let name = try key.nonEmptyString()
            let entry = ConfigValue(node: valueNode, path: "\(value.path).\(name)", file: value.file)
            try key.checkHeaderName(name)
            let headerValue = try entry.headerText()
            try entry.checkHeaderSize(name: name, value: headerValue)
            guard !reserved.contains(name.lowercased()) else {
                throw key.error("\(name) is set by netvigil and cannot be configured")
            }
            headers.append(AlertHeader(name: name, value: headerValue))
        }
        return headers
    }
}
