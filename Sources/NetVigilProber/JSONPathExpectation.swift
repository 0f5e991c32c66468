import Foundation

/// `$.a.b[0] == VALUE`: the value at a simple JSON path equals a JSON value (an unparseable VALUE is a string).
public struct JSONPathExpectation: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Step: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The path steps after `$`.
    public let steps: [Step]
    /// The expected value as JSON text.
    public let expected: String
    /// The original expression.
    public let description: String

    /// Parses `PATH == VALUE`.
    public init(parsing text: String) throws(ExpectationParseError) {
        let parts = text.components(separatedBy: "==")
        guard parts.count >= 2 else { throw ExpectationParseError(text, "want PATH == VALUE") }
        let path = parts[0].trimmingCharacters(in: .whitespaces)
        let value = parts.dropFirst().joined(separator: "==").trimmingCharacters(in: .whitespaces)
        guard path.hasPrefix("$") else { throw ExpectationParseError(text, "the path must start with $") }
        var steps: [Step] = []
        var rest = Substring(path.dropFirst())
        while !rest.isEmpty {
            if rest.hasPrefix(".") {
                rest = rest.dropFirst()
                let name = rest.prefix { $0 != "." && $0 != "[" }
                guard !name.isEmpty else { throw ExpectationParseError(text, "empty key in path") }
                steps.append(.key(String(name)))
                rest = rest.dropFirst(name.count)
            } else if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]"), let index = Int(rest[rest.index(after: rest.startIndex)..<close]) else {
                    throw ExpectationParseError(text, "bad index in path")
                }
                steps.append(.index(index))
                rest = rest[rest.index(after: close)...]
            } else {
                throw ExpectationParseError(text, "unexpected \"\(rest.prefix(1))\" in path")
            }
        }
        self.steps = steps
        self.expected = value
        self.description = text
    }

    /// nil when the value at the path equals the expected value, else a failure line.
    func check(_ json: Any?) -> String? {
        guard let json else { return "\(description): the body is not JSON" }
        var current: Any = json
        for step in steps {
            switch step {
            case .key(let key):
                guard let object = current as? [String: Any], let next = object[key] else {
                    return "\(description): no value at the path"
                }
                current = next
            case .index(let index):
                guard let array = current as? [Any], array.indices.contains(index) else {
                    return "\(description): no value at the path"
                }
                current = array[index]
            }
        }
        let expectedObject = (try? JSONSerialization.jsonObject(with: Data(expected.utf8), options: [.fragmentsAllowed])) ?? expected
        if Self.equal(current, expectedObject) { return nil }
        return "\(description): found \(Self.render(current))"
    }

    static func equal(_ lhs: Any, _ rhs: Any) -> Bool {
        if lhs is NSNull || rhs is NSNull { return lhs is NSNull && rhs is NSNull }
        if let l = lhs as? String, let r = rhs as? String { return l == r }
        if let l = lhs as? NSNumber, let r = rhs as? NSNumber, !(lhs is String), !(rhs is String) { return l == r }
        return render(lhs) == render(rhs)
    }

    static func render(_ value: Any) -> String {
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]) {
            return String(decoding: data, as: UTF8.self)
        }
        return "\(value)"
    }
}

/// A malformed expectation.
public struct ExpectationParseError: Error, Sendable, CustomStringConvertible {
    /// The expression.
    public let text: String
    /// What is wrong.
    public let problem: String

    init(_ text: String, _ problem: String) {
        self.text = text
        self.problem = problem
    }

    public var description: String { "\"\(text)\": \(problem)" }
}
