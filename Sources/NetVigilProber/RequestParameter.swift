/// A request parameter value as AFNetworking flattens it: strings, arrays (`a[]=v`), sets (repeated `a=v`),
/// dictionaries (`a[b]=v`) and null (the bare key).
public indirect enum RequestParameter: Sendable, Hashable {
    case string(String)
    case array([RequestParameter])
    case set([RequestParameter])
    case dictionary([String: RequestParameter])
    case null
}

extension RequestParameter: ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: RequestParameter...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, RequestParameter)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(integerLiteral value: Int) { self = .string(String(value)) }
}
