import Foundation

/// `feed:` — the HTTP status feed.
public struct FeedSection: ConfigSection, Equatable {
    public static let key = "feed"
    public static let allowedKeys = ["listen", "token", "token_file", "max_connections", "idle_timeout",
                                     "max_event_subscribers", "tls", "public_status", "health_listen"]

    /// Address and port to bind; 127.0.0.1:9337 unless configured.
    public var listen: ListenAddress
    /// Bearer token required on every route but `/healthz`, when set.
    public var token: Secret?
    /// Open feed connections at most; beyond it new connections wait in the kernel's accept queue.
    public var maxConnections: Int
    /// A connection that sends no complete request head (or stays idle between requests) this long is closed.
    public var idleTimeout: Duration
    /// Concurrent `/v1/events` streams at most; more get 503.
    public var maxEventSubscribers: Int
    /// HTTPS on the feed; nil: plain HTTP.
    public var tls: FeedTLSSettings?
    /// `public_status: true` serves the status page, badges and a redacted status document without the token.
    public var publicStatus = false
    /// A second, plain-HTTP listener that answers only `GET /healthz`, with connections of its own: liveness probes
    /// (systemd, Kubernetes) stay answered when the feed's connections are all taken. nil: none.
    public var healthListen: ListenAddress?

    public init() {
        self.init(listen: ListenAddress(host: "127.0.0.1", port: 9337), token: nil)
    }

    public init(listen: ListenAddress, token: Secret?, maxConnections: Int = 512, idleTimeout: Duration = .seconds(10),
                maxEventSubscribers: Int = 256) {
        self.listen = listen
        self.token = token
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.maxEventSubscribers = maxEventSubscribers
    }

    public init(reading mapping: ConfigMapping) throws {
        self.init()
        if let value = mapping["listen"] {
            let text = try value.string()
            guard let address = ListenAddress(parsing: text) else {
                throw value.error("expected HOST:PORT such as 127.0.0.1:9337 or [::1]:9337")
            }
            listen = address
        }
        if let value = mapping["max_connections"] { maxConnections = try value.int(in: 8...100_000) }
        if let value = mapping["idle_timeout"] { idleTimeout = try value.duration(minimum: .seconds(1)) }
        if let value = mapping["max_event_subscribers"] { maxEventSubscribers = try value.int(in: 1...100_000) }
        if let value = mapping["tls"] { tls = try FeedTLSSettings(reading: value) }
        if let value = mapping["public_status"] { publicStatus = try value.bool() }
        if let value = mapping["health_listen"] {
            guard let address = ListenAddress(parsing: try value.string()) else {
                throw value.error("expected HOST:PORT such as 127.0.0.1:9338 or [::1]:9338")
            }
            guard address != listen else { throw value.error("health_listen must differ from listen (\(listen))") }
            healthListen = address
        }
        if maxEventSubscribers >= maxConnections, let value = mapping["max_event_subscribers"] ?? mapping["max_connections"] {
            throw value.error("max_event_subscribers (\(maxEventSubscribers)) must be below max_connections (\(maxConnections)): "
                              + "event streams would take every connection and /healthz could not be reached")
        }
        let inline = mapping["token"]
        let file = mapping["token_file"]
        if inline != nil, let file {
            throw file.error("set either token or token_file, not both")
        }
        if let inline {
            _ = try inline.nonEmptyString()
            token = Secret(try inline.headerText("the token"))
        } else if let file {
            let path = try file.filePath()
            let data = try file.regularFileContents(at: path, failure: "cannot read token file \(path)")
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw file.error("token file \(path) is empty") }
            guard !ConfigValue.hasControlCharacter(text, allowsTab: false) else {
                throw file.error("token file \(path) holds control characters")
            }
            token = Secret(text)
        }
    }
}

/// A host and port to listen on.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[V6]:PORT`; port 0 asks the kernel for a free port.
    public init?(parsing text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            guard after.hasPrefix(":") else { return nil }
            portText = after.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { return nil }
        }
        guard !host.isEmpty, let port = Int(portText), (0...65_535).contains(port) else { return nil }
        self.host = String(host)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// A secret value (token, password) that never prints itself.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The secret text; read it only to compare or send it.
    public let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}
