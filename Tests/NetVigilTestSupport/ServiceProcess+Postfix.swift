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
        try """
            compatibility_level = 3.6
            queue_directory = \(root)/queue
            data_directory = \(root)/data
            meta_directory = /etc/postfix
            mail_owner = postfix
            setgid_group = postdrop
            inet_interfaces = 127.0.0.1
            inet_protocols = ipv4
            myhostname = mail.netvigil.test
            mydestination =
            smtpd_tls_cert_file = \(root)/tls.pem
            smtpd_tls_key_file = \(root)/tls.key
            smtpd_tls_security_level = may
            maillog_file = /dev/stdout
            """.write(toFile: config + "/main.cf", atomically: true, encoding: .utf8)
        try """
            \(ports["smtp"]!) inet n - n - - smtpd
            \(ports["smtps"]!) inet n - n - - smtpd -o smtpd_tls_wrappermode=yes
            postlog unix-dgram n - n - 1 postlogd
            tlsmgr unix - - n 1000? 1 tlsmgr
            anvil unix - - n - 1 anvil
            proxymap unix - - n - - proxymap
            rewrite unix - - n - - trivial-rewrite
            """.write(toFile: config + "/master.cf", atomically: true, encoding: .utf8)
        // smtpd reads its certificate after dropping privileges: copies it can read.
        try FileManager.default.copyItem(atPath: certificate, toPath: directory.path("tls.pem"))
        try FileManager.default.copyItem(atPath: key, toPath: directory.path("tls.key"))
        try setup("/usr/bin/chown", ["postfix", directory.path("data"), directory.path("tls.pem"), directory.path("tls.key")])
        try setup("/usr/sbin/postfix", ["-c", config, "check"])  // creates the queue's subdirectories
        return try ServiceProcess(name: "postfix", executable: "/usr/sbin/postfix", arguments: ["-c", config, "start-fg"],
                                  directory: directory, ports: ports)
    }
}
