import Foundation

/// An `openssl ca` hierarchy that issues and revokes, built with the OpenSSL CLI in a temporary directory:
/// root → intermediate → leaves `good` and `revoked` (revoked with keyCompromise). Every certificate carries a CRL
/// distribution point under `crlBase` (`root.crl` for the intermediate, `intermediate.crl` for the leaves).
///
/// CRLs (PEM, in `directory`): `root.crl` (nothing revoked), `root-revoked.crl` (the intermediate revoked),
/// `intermediate.crl` (the `revoked` leaf listed), `intermediate-expired.crl` (the same, nextUpdate in 2020),
/// `intermediate-wrong-key.crl` (the intermediate's name, signed by another key, nothing listed);
/// `intermediate.der.crl` is `intermediate.crl` in DER.
public final class RevocationPKI: @unchecked Sendable {  // immutable after init
    public let directory: TemporaryDirectory
    public let crlBase: String

    public init(crlBase: String) throws {
        directory = try TemporaryDirectory()
        self.crlBase = crlBase
        try makeCA("root", subject: "/CN=netvigil revocation test root", issuer: nil)
        try makeCA("intermediate", subject: "/CN=netvigil revocation test intermediate", issuer: "root")
        for leaf in ["good", "revoked"] {
            try issue(leaf, by: "intermediate", subject: "/CN=localhost", section: "leaf")
        }
        try gencrl("root", to: "root.crl")
        try openssl(["ca", "-config", config("root"), "-revoke", path("intermediate.crt"), "-crl_reason", "cACompromise"])
        try gencrl("root", to: "root-revoked.crl")
        try openssl(["ca", "-config", config("intermediate"), "-revoke", path("revoked.crt"), "-crl_reason", "keyCompromise"])
        try gencrl("intermediate", to: "intermediate.crl")
        try gencrl("intermediate", to: "intermediate-expired.crl",
                   extra: ["-crl_lastupdate", "20200101000000Z", "-crl_nextupdate", "20200108000000Z"])
        try openssl(["crl", "-in", path("intermediate.crl"), "-outform", "DER", "-out", path("intermediate.der.crl")])
        // Same issuer name, another key: a CRL nobody may believe.
        try makeCA("impostor", subject: "/CN=netvigil revocation test intermediate", issuer: nil)
        try gencrl("impostor", to: "intermediate-wrong-key.crl")
    }

    /// The path of a file in the hierarchy's directory.
    public func path(_ name: String) -> String { directory.path(name) }

    /// A chain file (leaf, intermediate) for `leaf`.
    public func chain(_ leaf: String) throws -> String {
        let text = try String(contentsOfFile: path("\(leaf).crt"), encoding: .utf8)
            + String(contentsOfFile: path("intermediate.crt"), encoding: .utf8)
        return try directory.write("\(leaf)-chain.pem", text)
    }

    private func config(_ ca: String) -> String { path("\(ca)/openssl.cnf") }

    private func makeCA(_ name: String, subject: String, issuer: String?) throws {
        let dir = path(name)
        try FileManager.default.createDirectory(atPath: dir + "/newcerts", withIntermediateDirectories: true)
        try "".write(toFile: dir + "/index.txt", atomically: true, encoding: .utf8)
        try "1000\n".write(toFile: dir + "/crlnumber", atomically: true, encoding: .utf8)
        try """
            [ ca ]
            default_ca = CA_default
            [ CA_default ]
            dir = \(dir)
            database = $dir/index.txt
            new_certs_dir = $dir/newcerts
            serial = $dir/serial
            crlnumber = $dir/crlnumber
            certificate = \(path("\(name).crt"))
            private_key = \(path("\(name).key"))
            default_md = sha256
            default_days = 90
            default_crl_days = 7
            policy = policy_any
            unique_subject = no
            copy_extensions = none
            [ policy_any ]
            commonName = supplied
            [ subca ]
            basicConstraints = critical,CA:TRUE
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid
            crlDistributionPoints = URI:\(crlBase)/root.crl
            [ leaf ]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = DNS:localhost,IP:127.0.0.1
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid
            crlDistributionPoints = URI:\(crlBase)/intermediate.crl
            [ crl_ext ]
            authorityKeyIdentifier = keyid
            """.write(toFile: dir + "/openssl.cnf", atomically: true, encoding: .utf8)
        try openssl(["rand", "-hex", "-out", dir + "/serial", "16"])
        if let issuer {
            try issue(name, by: issuer, subject: subject, section: "subca")
        } else {
            try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                         "-keyout", path("\(name).key"), "-out", path("\(name).crt"), "-subj", subject, "-days", "3650",
                         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                         "-addext", "subjectKeyIdentifier=hash"])
        }
    }

    private func issue(_ name: String, by issuer: String, subject: String, section: String) throws {
        try openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                     "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", subject])
        try openssl(["ca", "-batch", "-config", config(issuer), "-extensions", section, "-in", path("\(name).csr"),
                     "-out", path("\(name).crt"), "-notext"])
    }

    private func gencrl(_ ca: String, to name: String, extra: [String] = []) throws {
        try openssl(["ca", "-gencrl", "-config", config(ca), "-crlexts", "crl_ext", "-out", path(name)] + extra)
    }

    private func openssl(_ arguments: [String]) throws {
        try LoopbackPKI.openssl(arguments)
    }
}
