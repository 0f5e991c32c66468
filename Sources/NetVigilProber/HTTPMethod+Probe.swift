import NIOHTTP1

extension HTTPMethod {
    /// AFNetworking's `HTTPMethodsEncodingParametersInURI`: GET, HEAD and DELETE put parameters in the query.
    public var encodesParametersInURI: Bool { self == .GET || self == .HEAD || self == .DELETE }
}
