import NetVigilProber

/// `feed.tls: { certificate, key, client_ca }` — HTTPS on the feed (the exporter-toolkit's web-config shape), with
/// client certificates required when `client_ca` is set.
///
/// The files are loaded at configuration load, so a bad certificate or a key that does not match is a located error
/// (and a refused reload). A reload that keeps `feed.tls` loads the files again: a renewed certificate is served to
/// new connections without a restart.
public struct FeedTLSSettings: Sendable, Equatable {
    static let allowedKeys = ["certificate", "key", "client_ca"]

    /// PEM certificate chain, leaf first.
    public var certificateFile: String
    /// PEM private key (never logged).
    public var keyFile: String
    /// PEM CA certificates of accepted client certificates; nil: none required.
    public var clientCAFile: String?
    /// The server context made from the files at load.
    public var context: OpenSSLServerContext

    init(reading value: ConfigValue) throws {
        let mapping = try value.mapping(allowedKeys: Self.allowedKeys)
        let certificate = try mapping.required("certificate")
        let key = try mapping.required("key")
        let clientCA = mapping["client_ca"]
        certificateFile = try certificate.filePath()
        keyFile = try key.filePath()
        clientCAFile = try clientCA?.filePath()
        do {
            context = try OpenSSLServerContext(certificateFile: certificateFile, keyFile: keyFile, clientCAFile: clientCAFile)
        } catch {
            let location = switch error.setting {
            case .certificate: certificate
            case .key: key
            case .clientCA: clientCA ?? value
            }
            throw location.error(error.message)
        }
    }

    /// Equal when they name the same files (the context is made from them).
    public static func == (lhs: FeedTLSSettings, rhs: FeedTLSSettings) -> Bool {
        lhs.certificateFile == rhs.certificateFile && lhs.keyFile == rhs.keyFile && lhs.clientCAFile == rhs.clientCAFile
    }
}
