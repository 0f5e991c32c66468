import Foundation

extension ServiceProcess {
    /// Dovecot (`dovecot -F -c CONF`, private base and state directories): ports `imap` and `pop3` offer STARTTLS /
    /// STLS, `imaps` and `pop3s` are implicit TLS; all serve `certificate`/`key`. Nobody can log in.
    public static func dovecot(certificate: String, key: String) throws -> ServiceProcess {
        let directory = try TemporaryDirectory()
        let root = directory.url.path
        let ports = ["imap": ProcessRunner.freePort(), "imaps": ProcessRunner.freePort(),
                     "pop3": ProcessRunner.freePort(), "pop3s": ProcessRunner.freePort()]
        for name in ["run", "state"] {
            try FileManager.default.createDirectory(atPath: directory.path(name), withIntermediateDirectories: true)
        }
        // The login processes run unprivileged inside base_dir.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root)
        func listener(_ name: String, ssl: Bool) -> String {
            "  inet_listener \(name) {\n    port = \(ports[name]!)\n" + (ssl ? "    ssl = yes\n" : "") + "  }\n"
        }
        let config = try directory.write("dovecot.conf", """
            base_dir = \(root)/run
            state_dir = \(root)/state
            log_path = /dev/stderr
            protocols = imap pop3
            listen = 127.0.0.1
            ssl = yes
            ssl_cert = <\(certificate)
            ssl_key = <\(key)
            disable_plaintext_auth = yes
            passdb {
              driver = static
              args = password=unused-\(UUID().uuidString)
            }
            userdb {
              driver = static
              args = uid=nobody gid=nogroup home=\(root)/home
            }
            service imap-login {
            \(listener("imap", ssl: false))\(listener("imaps", ssl: true))}
            service pop3-login {
            \(listener("pop3", ssl: false))\(listener("pop3s", ssl: true))}

            """)
        return try ServiceProcess(name: "dovecot", executable: "/usr/sbin/dovecot", arguments: ["-F", "-c", config],
                                  directory: directory, ports: ports)
    }
}
