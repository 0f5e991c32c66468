import Foundation
import NetVigilProber
import Yams

/// `proxy:` — the HTTP proxy probes go through, at the top level (every target's default) or on a target:
///
/// ```yaml
/// proxy: http://proxy.example.com:3128          # short form
/// proxy:                                        # or the mapping
///   url: http://proxy.example.com:3128
///   user: probe                                 # with password_file (Proxy-Authorization: Basic)
///   password_file: /etc/netvigil/proxy.pass
///   no_proxy: [internal.example.com, 10.0.0.0/8, 127.0.0.1]
/// proxy: none                                   # on a target: direct, whatever the top level says
/// ```
/// The password is read from its file and kept only in the header value: never logged, stored or quoted.
struct ProxySettings: Sendable {
    static let key = "proxy"
    static let allowedKeys = ["url", "user", "password_file", "no_proxy"]

    /// The proxy; nil for `none`.
    var configuration: ProxyConfiguration?

    init(reading value: ConfigValue) throws {
        if case .scalar = value.node {
            let text = try value.nonEmptyString()
            if text == "none" { configuration = nil; return }
            configuration = try Self.proxy(url: value, credentials: nil, noProxy: NoProxyList())
            return
        }
        let mapping = try value.mapping(allowedKeys: Self.allowedKeys)
        let urlValue = try mapping.required("url")
        var noProxy = NoProxyList()
        if let list = mapping["no_proxy"] {
            var items: [String] = []
            for entry in try list.sequenceOrSingle() {
                let text = try entry.nonEmptyString()
                guard (try? NoProxyList([text])) != nil else {
                    throw entry.error("expected a host name suffix, an IP address or a CIDR block (example.com, 10.0.0.0/8, fd00::/8)")
                }
                items.append(text)
            }
            noProxy = try NoProxyList(items)
        }
        configuration = try Self.proxy(url: urlValue, credentials: try Self.credentials(mapping), noProxy: noProxy)
    }

    private static func proxy(url value: ConfigValue, credentials: ProxyCredentials?, noProxy: NoProxyList) throws -> ProxyConfiguration {
        do {
            return try ProxyConfiguration(url: try value.nonEmptyString(), credentials: credentials, noProxy: noProxy)
        } catch let error as ProxyConfigurationError {
            throw value.error(error.description)
        }
    }

    /// `user` + `password_file`, both or neither.
    private static func credentials(_ mapping: ConfigMapping) throws -> ProxyCredentials? {
        let userValue = mapping["user"], fileValue = mapping["password_file"]
        guard userValue != nil || fileValue != nil else { return nil }
        guard let userValue else { throw fileValue!.error("password_file needs user") }
        guard let fileValue else { throw userValue.error("user needs password_file (the password is not written in the configuration)") }
        let user = try userValue.nonEmptyString()
        let path = try fileValue.filePath()
        let data = try fileValue.regularFileContents(at: path, failure: "cannot read password file \(path)")
        let password = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
        do {
            return try ProxyCredentials(user: user, password: password)
        } catch .invalidPassword {
            throw fileValue.error("password file \(path) holds control characters")
        } catch {
            throw userValue.error(error.description)
        }
    }
}
