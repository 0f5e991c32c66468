import Foundation

extension ServiceProcess {
    /// Postfix (`postfix start-fg`, as root, with a private config and queue directory): port `smtp` offers
    /// STARTTLS, port `smtps` is the TLS wrapper; both serve `certificate`/`key`.
    public static func postfix(certificate: String, key: String) throws -> ServiceProcess {
        let directory = try TemporaryDirectory()
        let root = directory.url.path
        let ports = ["smtp": ProcessRunner.freePort(), "smtps": ProcessRunner.freePort()]
        let config = directory.path("conf")
        for name in ["conf", "queue", "data"] {
            try FileManager.default.createDirectory(atPath: directory.path(name), withIntermediateDirectories: true)
        }
        // The daemons drop to `postfix` and chdir into the queue: the path must be traversable.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root)
        let values = ["@ROOT@": root, "@SMTP_PORT@": "\(ports["smtp"]!)", "@SMTPS_PORT@": "\(ports["smtps"]!)"]
        for name in ["main.cf", "master.cf"] {
            try postfixTemplate(name, values).write(toFile: config + "/" + name, atomically: true, encoding: .utf8)
        }
        // smtpd reads its certificate after dropping privileges: copies it can read.
        try FileManager.default.copyItem(atPath: certificate, toPath: directory.path("tls.pem"))
        try FileManager.default.copyItem(atPath: key, toPath: directory.path("tls.key"))
        try setup("/usr/bin/chown", ["postfix", directory.path("data"), directory.path("tls.pem"), directory.path("tls.key")])
        try setup("/usr/sbin/postfix", ["-c", config, "check"])  // creates the queue's subdirectories
        return try ServiceProcess(name: "postfix", executable: "/usr/sbin/postfix", arguments: ["-c", config, "start-fg"],
                                  directory: directory, ports: ports)
    }

    /// Tests/Fixtures/postfix/`name`.template (shared with `Benchmarks/run.sh probe-tls`) with each placeholder of
    /// `values` replaced.
    private static func postfixTemplate(_ name: String, _ values: [String: String]) throws -> String {
        let url = SchemaValidator.repositoryRoot.appendingPathComponent("Tests/Fixtures/postfix/\(name).template")
        var text = try String(contentsOf: url, encoding: .utf8)
        for (placeholder, value) in values { text = text.replacingOccurrences(of: placeholder, with: value) }
        return text
    }
}
