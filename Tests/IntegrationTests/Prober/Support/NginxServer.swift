import Foundation
import NetVigilTestSupport

/// The request-stack tests' sites on one ``NginxProcess`` (127.0.0.1, temporary prefix): a TLS 1.2-only site, a
/// TLS 1.3-only site (both with the test CA's leaf) and a plain HTTP site. Endpoints: /json, /text, /null-json,
/// /status500, /redirect (→ the other host name).
final class NginxServer {
    let tls12Port = freePort()
    let tls13Port = freePort()
    let plainPort = freePort()
    let prefix: String
    private let nginx: NginxProcess

    init(pki: TestPKI = .shared) throws {
        prefix = NSTemporaryDirectory() + "netvigil-nginx-\(UUID().uuidString)"
        let locations = """
                location = /json { default_type application/json; return 200 '{"status":"UP","nested":{"count":3},"list":[1,2]}'; }
                location = /null-json { default_type application/json; return 200 '{"a":null,"b":1}'; }
                location = /text { default_type text/plain; return 200 'hello netvigil'; }
                location = /status500 { default_type application/json; return 500 '{"error":"boom"}'; }
                location = /empty { default_type application/json; return 200 ''; }
            """
        func tlsServer(port: Int, protocols: String, redirectTo: String) -> String {
            """
                server {
                    listen 127.0.0.1:\(port) ssl;
                    server_name localhost;
                    ssl_certificate \(pki.path("ca-leaf.crt"));
                    ssl_certificate_key \(pki.path("ca-leaf.key"));
                    ssl_protocols \(protocols);
            \(locations)
                    location = /redirect { return 302 \(redirectTo); }
                    location = /loop { return 302 /loop; }
                }
            """
        }
        let servers = """
            \(tlsServer(port: tls12Port, protocols: "TLSv1.2", redirectTo: "https://localhost:\(tls13Port)/json"))
            \(tlsServer(port: tls13Port, protocols: "TLSv1.3", redirectTo: "https://127.0.0.1:\(tls12Port)/json"))
                server {
                    listen 127.0.0.1:\(plainPort);
            \(locations)
                    location = /redirect { return 301 https://localhost:\(tls13Port)/json; }
                }
            """
        nginx = try NginxProcess(prefix: prefix, servers: servers, ports: [tls12Port, tls13Port, plainPort])
    }

    func stop() {
        nginx.stop()
        try? FileManager.default.removeItem(atPath: prefix)
    }

    deinit { stop() }
}
