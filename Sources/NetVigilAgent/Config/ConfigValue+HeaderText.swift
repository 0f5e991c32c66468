/// Values that end up in HTTP header fields: names, values, credentials, tokens.
extension ConfigValue {
    /// RFC 9110 token characters, the only ones a field name may use.
    static let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    /// Whether `text` holds a control character: C0 (NUL, CR, LF, ...) or DEL; a tab is allowed when `allowsTab`.
    static func hasControlCharacter(_ text: String, allowsTab: Bool) -> Bool {
        text.utf8.contains { ($0 < 0x20 && !(allowsTab && $0 == 0x09)) || $0 == 0x7F }
    }

    /// The value as text sent in a header (a header value, a basic-auth user or password, a token): control
    /// characters other than a tab are refused, since they would corrupt the request (never quoted in the error).
    public func headerText(_ what: String = "header values") throws -> String {
        let text = try string()
        guard !Self.hasControlCharacter(text, allowsTab: true) else {
            throw error("\(what) must not contain control characters (NUL, CR, LF, DEL, ...)")
        }
        return text
    }

    /// Checks `name` as a header field name for the header whose value is this node.
    public func checkHeaderName(_ name: String) throws {
        guard !name.isEmpty, name.utf8.allSatisfy({ Self.tokenCharacters.contains($0) }) else {
            throw error("header names use letters, digits and !#$%&'*+-.^_`|~ only (no spaces or control characters)")
        }
    }

    /// Checks a header's total size against `ConfigLimits.maxHeaderBytes`.
    func checkHeaderSize(name: String, value: String) throws {
        guard name.utf8.count + value.utf8.count <= ConfigLimits.maxHeaderBytes else {
            throw error("a header may have at most \(ConfigLimits.maxHeaderBytes) bytes (name and value; the limit)")
        }
    }
}
