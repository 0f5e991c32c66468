import Foundation
import NetVigilTestSupport
import XCTest

/// A private PKI whose CRLs really live on a link-local address: inside a network namespace whose loopback also holds
/// 169.254.77.1, nginx serves the CRLs there and the site on 127.0.0.1. `netvigil probe --revocation hard` refuses
/// the fetch by default (never connecting) and, with `--revocation-allow-link-local`, fetches the CRLs and trusts the
/// chain, or fails it when the leaf is revoked.
final class RevocationLinkLocalNamespaceTests: XCTestCase {
    private var namespace: NetworkNamespace!
    private var nginx: NginxProcess?
    private var pki: RevocationPKI!
    private var prefix = ""
    private let crlPort = 8080, goodPort = 8443, revokedPort = 9443

    override func setUpWithError() throws {
        namespace = try NetworkNamespace(for: self)
        try namespace.ip("addr", "add", "169.254.77.1/16", "dev", "lo")
        pki = try RevocationPKI(crlBase: "http://169.254.77.1:\(crlPort)/crl")
        prefix = NSTemporaryDirectory() + "netvigil-nginx-\(UUID().uuidString)"
        func site(_ port: Int, _ leaf: String) throws -> String { try pki.nginxSite(port: port, leaf: leaf) }
        nginx = try NginxProcess(prefix: prefix, servers: """
                server {
                    listen 169.254.77.1:\(crlPort);
                    access_log \(prefix)/crl-access.log;
                    location /crl/ { alias \(pki.directory.url.path)/; }
                }
            \(try site(goodPort, "good"))
            \(try site(revokedPort, "revoked"))
            """, ports: [crlPort, goodPort, revokedPort], namespace: namespace.name)
    }

    override func tearDown() {
        nginx?.stop()
        try? FileManager.default.removeItem(atPath: prefix)
        namespace?.remove()
    }

    private func probe(_ port: Int, _ extra: [String] = []) throws -> ProcessRunner.Result {
        try namespace.exec([ProcessRunner.binary.path, "probe", "https://localhost:\(port)/", "--ca", pki.path("root.crt"),
                            "--no-system-roots", "--revocation", "hard", "--timeout", "5s"] + extra, check: false)
    }

    private var crlRequests: Int {
        ((try? String(contentsOfFile: "\(prefix)/crl-access.log", encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    func testALinkLocalDistributionPointIsRefusedUntilAllowedThenServesTheVerdict() throws {
        let refused = try probe(goodPort)
        XCTAssertEqual(refused.status, 1, refused.stdout + refused.stderr)
        XCTAssertTrue((refused.stdout + refused.stderr).contains("revocation fetch refused: 169.254.77.1:\(crlPort)"),
                      refused.stdout + refused.stderr)
        XCTAssertEqual(crlRequests, 0, "a refused fetch never connects")

        let allowed = try probe(goodPort, ["--revocation-allow-link-local"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout + allowed.stderr)
        XCTAssertGreaterThan(crlRequests, 0, "the CRLs came from the link-local server")

        let revoked = try probe(revokedPort, ["--revocation-allow-link-local", "--json"])
        XCTAssertEqual(revoked.status, 1, revoked.stdout + revoked.stderr)
        XCTAssertTrue(revoked.stdout.contains("untrusted:revoked"), revoked.stdout)
    }
}
