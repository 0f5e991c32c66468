import Foundation

/// The user and password a proxy asks for (`Proxy-Authorization: Basic`). The password is kept only inside the
/// header value; descriptions and mirrors show the user alone, so it never reaches a log, a result or an error.
public struct ProxyCredentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The user name (no ':' and no control characters).
    public let user: String
    /// The `Proxy-Authorization` value.
    let authorization: String

    /// Makes credentials; control characters in either part, or ':' in the user, are refused (the message never
    /// quotes the values).
    public init(user: String, password: String) throws(ProxyConfigurationError) {
        guard !user.isEmpty, !user.contains(":"), !Self.hasControlCharacter(user) else { throw .invalidUser }
        guard !Self.hasControlCharacter(password) else { throw .invalidPassword }
        self.user = user
        authorization = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    public var description: String { "\(user):<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: ["user": user, "password": "<redacted>"]) }

    /// C0 controls and DEL.
    static func hasControlCharacter(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }
}
