import Foundation

/// One alert destination (`alerts.sinks[]`): a webhook, a command or an Alertmanager.
public struct AlertSink: Sendable, Equatable, CustomStringConvertible {
    /// How the sink delivers.
    public enum Kind: Sendable, Equatable {
        case webhook(WebhookSink)
        case exec(ExecSink)
        case alertmanager(AlertmanagerSink)
    }

    static let allowedKeys = ["name", "webhook", "exec", "alertmanager"]

    /// Unique name targets refer to (`alerts: [pager]`); letters, digits, `_`, `-`, `.`.
    public var name: String
    public var kind: Kind

    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// The delivery timeout.
    public var timeout: Duration {
        switch kind {
        case .webhook(let webhook): webhook.timeout
        case .exec(let exec): exec.timeout
        case .alertmanager(let alertmanager): alertmanager.timeout
        }
    }

    /// `pager (webhook http://...)`; header values are not shown.
    public var description: String {
        switch kind {
        case .webhook(let webhook): "\(name) (\(webhook))"
        case .exec(let exec): "\(name) (\(exec))"
        case .alertmanager(let alertmanager): "\(name) (\(alertmanager))"
        }
    }

    /// Reads one list item.
    init(reading value: ConfigValue) throws {
        let mapping = try value.mapping(allowedKeys: Self.allowedKeys)
        let nameValue = try mapping.required("name")
        let name = try nameValue.nonEmptyString()
        guard name.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_-.".unicodeScalars.contains($0)) }) else {
            throw nameValue.error("sink names may use letters, digits, _, - and . only")
        }
        self.name = name
        let given = ["webhook", "exec", "alertmanager"].compactMap { key in mapping[key].map { (key, $0) } }
        guard let (key, value) = given.first else {
            throw mapping.owner.error("sink \"\(name)\" needs webhook: {url: ...}, exec: {command: [...]} or alertmanager: {url: ...}")
        }
        if given.count > 1 {
            throw given[1].1.error("a sink is either \(key) or \(given[1].0), not both")
        }
        switch key {
        case "webhook": kind = .webhook(try WebhookSink(reading: value.mapping(allowedKeys: WebhookSink.allowedKeys)))
        case "exec": kind = .exec(try ExecSink(reading: value.mapping(allowedKeys: ExecSink.allowedKeys)))
        default: kind = .alertmanager(try AlertmanagerSink(reading: value.mapping(allowedKeys: AlertmanagerSink.allowedKeys)))
        }
    }
}

/// `webhook:` — POST the alert JSON to a URL.
public struct WebhookSink: Sendable, Equatable, CustomStringConvertible {
    static let allowedKeys = ["url", "timeout", "headers"]

    /// http or https URL.
    public var url: URL
    /// The whole request (default 10 s).
    public var timeout: Duration
    /// Extra headers, in order.
    public var headers: [AlertHeader]

    public init(url: URL, timeout: Duration = .seconds(10), headers: [AlertHeader] = []) {
        self.url = url
        self.timeout = timeout
        self.headers = headers
    }

    /// `webhook http://host/path`; the URL's user info and query are not shown.
    public var description: String { "webhook \(Self.displayed(url))" }

    /// `url` without user info, its query shown as `…`.
    static func displayed(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.user = nil
        components?.password = nil
        if components?.query != nil { components?.query = "…" }
        return components?.string ?? "?"
    }

    init(reading mapping: ConfigMapping) throws {
        url = try Self.httpURL(try mapping.required("url"))
        timeout = .seconds(10)
        headers = []
        if let value = mapping["timeout"] { timeout = try value.duration(minimum: .milliseconds(100)) }
        if let value = mapping["headers"] { headers = try AlertHeader.list(reading: value) }
    }

    /// The http(s) URL of `value`, or an error naming it.
    static func httpURL(_ value: ConfigValue) throws -> URL {
        let text = try value.nonEmptyString()
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw value.error("expected an http:// or https:// URL")
        }
        return url
    }
}

/// `exec:` — run a command with the alert JSON on stdin and `NETVIGIL_*` environment variables.
public struct ExecSink: Sendable, Equatable, CustomStringConvertible {
    static let allowedKeys = ["command", "timeout"]

    /// The program as configured and its arguments.
    public var command: [String]
    /// Absolute path of the program (found in PATH when configured without a slash).
    public var executable: String
    /// Killed after this long (default 30 s).
    public var timeout: Duration

    public init(command: [String], executable: String, timeout: Duration = .seconds(30)) {
        self.command = command
        self.executable = executable
        self.timeout = timeout
    }

    /// `exec /path/to/program` (arguments are not shown).
    public var description: String { "exec \(executable)" }

    init(reading mapping: ConfigMapping) throws {
        let commandValue = try mapping.required("command")
        let items = try commandValue.sequence()
        guard let first = items.first else {
            throw commandValue.error("expected a non-empty list: [program, arguments...]")
        }
        command = try items.map { try $0.string() }
        let program = try first.nonEmptyString()
        guard let executable = Self.resolve(program) else {
            if program.contains("/") {
                throw first.error(program.hasPrefix("/")
                    ? "\(program) does not exist or is not executable"
                    : "use an absolute path or a program name found in PATH")
            }
            throw first.error("\(program) was not found in PATH")
        }
        self.executable = executable
        timeout = .seconds(30)
        if let value = mapping["timeout"] { timeout = try value.duration(minimum: .milliseconds(100)) }
    }

    /// The absolute path of an executable: `program` itself when absolute, else the first match in PATH.
    static func resolve(_ program: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        let manager = FileManager.default
        func isExecutableFile(_ candidate: String) -> Bool {
            var isDirectory: ObjCBool = false
            return manager.fileExists(atPath: candidate, isDirectory: &isDirectory) && !isDirectory.boolValue
                && manager.isExecutableFile(atPath: candidate)
        }
        if program.hasPrefix("/") { return isExecutableFile(program) ? program : nil }
        if program.contains("/") { return nil }
        let directories = (path ?? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin").split(separator: ":")
        for directory in directories where directory.hasPrefix("/") {
            let candidate = "\(directory)/\(program)"
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }
}
