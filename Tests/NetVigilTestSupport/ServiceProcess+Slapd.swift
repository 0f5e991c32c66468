import Foundation

extension ServiceProcess {
    /// OpenLDAP slapd (`slapd -d 0 -h URLS -f CONF`, an empty mdb database in a temporary directory): port `ldap`
    /// answers the StartTLS extended operation, port `ldaps` is implicit TLS; both serve `certificate`/`key`.
    /// Without `tls` no certificate is configured, so StartTLS is refused and `ldaps` is not listened on.
    public static func slapd(certificate: String, key: String, tls: Bool = true) throws -> ServiceProcess {
        let directory = try TemporaryDirectory()
        let root = directory.url.path
        var ports = ["ldap": ProcessRunner.freePort()]
        if tls { ports["ldaps"] = ProcessRunner.freePort() }
        try FileManager.default.createDirectory(atPath: directory.path("db"), withIntermediateDirectories: true)
        let config = try directory.write("slapd.conf", """
            include /etc/ldap/schema/core.schema
            pidfile \(root)/slapd.pid
            argsfile \(root)/slapd.args
            modulepath /usr/lib/ldap
            moduleload back_mdb
            \(tls ? "TLSCertificateFile \(certificate)\nTLSCertificateKeyFile \(key)" : "")
            database mdb
            suffix "dc=netvigil,dc=test"
            directory \(root)/db
            maxsize 10485760

            """)
        let urls = ports.sorted { $0.key < $1.key }.map { "\($0.key)://127.0.0.1:\($0.value)/" }.joined(separator: " ")
        return try ServiceProcess(name: "slapd", executable: "/usr/sbin/slapd", arguments: ["-d", "0", "-h", urls, "-f", config],
                                  directory: directory, ports: ports, stopSignal: SIGKILL)
        // slapd keeps the test process's blocked SIGTERM/SIGINT and would wait out stop()'s grace period; its
        // database is scratch, so it is killed at once.
    }
}
