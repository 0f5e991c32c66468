import Foundation

/// The HTTP tests' PKI: two `LoopbackPKI`s, the test CA and an unrelated CA, each with one leaf for
/// localhost / 127.0.0.1 (no `*.localhost`: a wildcard over a public suffix, which the webpki profile refuses).
/// Files are named as the tests use them: `ca.crt`, `ca-leaf.crt`,
/// `ca-leaf.key`, `other.crt`, `other-leaf.crt`, `other-leaf.key`; other names are scratch files beside them.
public final class TestPKI: @unchecked Sendable {
    public static let shared: TestPKI = {
        do { return try TestPKI() } catch { fatalError("cannot build the HTTP test PKI: \(error)") }
    }()

    private let authorities: [String: LoopbackPKI]

    /// The path of `name` (see above).
    public func path(_ name: String) -> String {
        let base = (name as NSString).deletingPathExtension, suffix = (name as NSString).pathExtension
        let parts = base.split(separator: "-", maxSplits: 1).map(String.init)
        guard let authority = authorities[parts[0]], ["crt", "key"].contains(suffix), parts.count == 1 || parts[1] == "leaf" else {
            return authorities["ca"]!.directory.path(name)
        }
        return authority.directory.path((parts.count == 1 ? "ca" : "leaf") + (suffix == "crt" ? ".pem" : ".key"))
    }

    private init() throws {
        var authorities: [String: LoopbackPKI] = [:]
        for name in ["ca", "other"] {
            authorities[name] = try LoopbackPKI(in: try TemporaryDirectory(), caName: "netvigil \(name) test CA",
                                                leaves: [("leaf", "/CN=localhost")],
                                                subjectAltName: "DNS:localhost,IP:127.0.0.1")
        }
        self.authorities = authorities
    }
}
