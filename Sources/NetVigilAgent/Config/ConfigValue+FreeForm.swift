import Foundation
import NetVigilProber
import Yams

/// Free-form values: mappings whose keys are data (headers, parameters, JSON bodies), not settings.
extension ConfigValue {
    /// The entries of a mapping whose keys are not fixed (e.g. `headers:`), in document order.
    public func freeFormEntries() throws -> [(key: String, value: ConfigValue)] {
        guard case .mapping(let mapping) = node else {
            throw error("expected a mapping, got \(shortDescription)")
        }
        var result: [(key: String, value: ConfigValue)] = []
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let keyScalar) = keyNode else {
                throw ConfigValue(node: keyNode, path: path, file: file).error("keys must be strings")
            }
            let key = keyScalar.string
            if result.contains(where: { $0.key == key }) {
                throw ConfigValue(node: keyNode, path: "\(path).\(key)", file: file).error("duplicate key")
            }
            result.append((key, ConfigValue(node: valueNode, path: "\(path).\(key)", file: file)))
        }
        return result
    }

    /// A list of strings; a single string is accepted as a one-element list.
    public func stringList() throws -> [String] {
        if case .sequence = node { return try sequence().map { try $0.nonEmptyString() } }
        return [try nonEmptyString()]
    }

    /// The value as a request parameter: scalars are strings, lists are arrays (`a[]=v`), mappings are
    /// dictionaries (`a[b]=v`), null is the bare key (AFNetworking's flattening).
    public func requestParameter() throws -> RequestParameter {
        switch node {
        case .scalar:
            return isNull ? .null : .string(try string())
        case .sequence:
            return .array(try sequence().map { try $0.requestParameter() })
        case .mapping:
            var dictionary: [String: RequestParameter] = [:]
            for entry in try freeFormEntries() { dictionary[entry.key] = try entry.value.requestParameter() }
            return .dictionary(dictionary)
        case .alias:
            throw error("YAML aliases are not supported here")
        }
    }

    /// The value as a JSON-compatible object: plain scalars keep their YAML type (bool, int, float, null),
    /// quoted scalars are strings.
    public func jsonCompatible() throws -> Any {
        switch node {
        case .scalar(let scalar):
            if scalar.style == .plain {
                if isNull { return NSNull() }
                // Documents are composed without tag resolution (``ConfigValue/resolver``): resolve this one here.
                let tag = Tag(Resolver.default.resolveTag(of: .scalar(Node.Scalar(scalar.string))))
                let typed = Node.Scalar(scalar.string, tag, scalar.style)
                if let bool = Bool.construct(from: typed) { return bool }
                if let int = Int.construct(from: typed) { return int }
                if let double = Double.construct(from: typed), double.isFinite { return double }
            }
            return scalar.string
        case .sequence:
            return try sequence().map { try $0.jsonCompatible() }
        case .mapping:
            var object: [String: Any] = [:]
            for entry in try freeFormEntries() { object[entry.key] = try entry.value.jsonCompatible() }
            return object
        case .alias:
            throw error("YAML aliases are not supported here")
        }
    }
}
