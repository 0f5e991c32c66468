import NIOHTTP1

extension HTTPMethod {
    /// AFNetworking's `HTTPMethodsEncodingParametersInURI`: GET, HEAD and DELETE put parameters in the query.
    var encodesParametersInURI: Bool { self == .GET || self == .HEAD || self == .DELETE }
}
