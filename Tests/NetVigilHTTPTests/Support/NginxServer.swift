import Foundation

/// nginx on 127.0.0.1 with a temporary prefix: a TLS 1.2-only site, a TLS 1.3-only site (both with the test CA's
/// leaf) and a plain HTTP site. Endpoints: /json, /text, /null-json, /status500, /redirect (→ the other host name).
final class NginxServer {
    let tls12Port = freePort()
    let tls13Port = freePort()
    let plainPort = freePort()
    let prefix: String
    private let process = Process()

    init(pki: TestPKI = .shared) throws {
        prefix = NSTemporaryDirectory() + "netvigil-nginx-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: prefix + "/logs", withIntermediateDirectories: true)
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
        let config = """
            daemon off;
            master_process off;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/logs/error.log;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(prefix)/body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
            \(tlsServer(port: tls12Port, protocols: "TLSv1.2", redirectTo: "https://localhost:\(tls13Port)/json"))
            \(tlsServer(port: tls13Port, protocols: "TLSv1.3", redirectTo: "https://127.0.0.1:\(tls12Port)/json"))
                server {
                    listen 127.0.0.1:\(plainPort);
            \(locations)
                    location = /redirect { return 301 https://localhost:\(tls13Port)/json; }
                }
            }
            """
        try config.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", prefix, "-c", prefix + "/nginx.conf", "-e", prefix + "/logs/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        do {
            for port in [tls12Port, tls13Port, plainPort] { try waitForPort(port) }
        } catch {
            stop()
            let log = (try? String(contentsOfFile: prefix + "/logs/error.log", encoding: .utf8)) ?? ""
            throw TestSetupError("nginx did not start: \(log)")
        }
    }

    func stop() {
        terminate(process)
        try? FileManager.default.removeItem(atPath: prefix)
    }

    deinit { stop() }
}
