import Foundation
import NetVigilTestSupport

/// The mTLS tests' peers: a client CA (`client-ca`, with one client certificate per key type and an encrypted one),
/// an unrelated CA that issued `stranger`, and nginx with `ssl_verify_client on` on a TLS 1.2-only and a TLS 1.3-only
/// port, serving the shared test CA's leaf. `/who` answers with the verified client's subject.
final class ClientCertificateServers {
    let clientCA: LoopbackPKI
    let strangerCA: LoopbackPKI
    let tls12Port = freePort()
    let tls13Port = freePort()
    private let prefix: String
    private let nginx: NginxProcess
    static let keyPassword = "SECRET-key-password"

    init(pki: TestPKI = .shared) throws {
        clientCA = try LoopbackPKI(in: try TemporaryDirectory(), caName: "netvigil client CA", leaves: [])
        for type in LoopbackPKI.ClientKeyType.allCases {
            try clientCA.issueClientCertificate(type.rawValue, keyType: type)
        }
        try clientCA.issueClientCertificate("encrypted", keyType: .rsa, password: Self.keyPassword)
        strangerCA = try LoopbackPKI(in: try TemporaryDirectory(), caName: "netvigil stranger CA", leaves: [])
        try strangerCA.issueClientCertificate("stranger")
        prefix = NSTemporaryDirectory() + "netvigil-mtls-\(UUID().uuidString)"
        let clientCAPath = clientCA.directory.path("ca.pem")
        func server(port: Int, protocols: String) -> String {
            """
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(pki.path("ca-leaf.crt"));
                    ssl_certificate_key \(pki.path("ca-leaf.key"));
                    ssl_protocols \(protocols);
                    ssl_verify_client on;
                    ssl_client_certificate \(clientCAPath);
                    location = /who { default_type text/plain; return 200 '$ssl_client_s_dn'; }
                }
            """
        }
        let (tls12, tls13) = (tls12Port, tls13Port)
        nginx = try NginxProcess(prefix: prefix, servers: server(port: tls12, protocols: "TLSv1.2")
                                 + "\n" + server(port: tls13, protocols: "TLSv1.3"),
                                 ports: [tls12, tls13])
    }

    /// Paths of client certificate `name` of the client CA (or of the stranger CA for `stranger`).
    func files(_ name: String) -> (certificate: String, key: String, password: String) {
        let directory = name == "stranger" ? strangerCA.directory : clientCA.directory
        return (directory.path("\(name).pem"), directory.path("\(name).key"), directory.path("\(name).pass"))
    }

    /// nginx's error log (it must never hold a key or a password either).
    var errorLog: String { (try? String(contentsOfFile: prefix + "/logs/error.log", encoding: .utf8)) ?? "" }

    func stop() {
        nginx.stop()
        try? FileManager.default.removeItem(atPath: prefix)
    }

    deinit { stop() }
}
