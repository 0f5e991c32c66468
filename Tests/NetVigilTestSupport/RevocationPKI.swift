import Foundation

/// An `openssl ca` hierarchy that issues and revokes, built with the OpenSSL CLI in a temporary directory:
/// root → intermediate → leaves `good` and `revoked` (revoked with keyCompromise). Every certificate carries a CRL
/// distribution point under `crlBase` (`root.crl` for the intermediate, `intermediate.crl` for the leaves).
///
/// CRLs (PEM, in `directory`): `root.crl` (nothing revoked), `root-revoked.crl` (the intermediate revoked),
/// `intermediate.crl` (the `revoked` leaf listed), `intermediate-expired.crl` (the same, nextUpdate in 2020),
/// `intermediate-wrong-key.crl` (the intermediate's name, signed by another key, nothing listed);
/// `intermediate.der.crl` is `intermediate.crl` in DER.
///
/// OCSP responses (DER, `openssl ocsp` over the intermediate's index, 7 days): `good.ocsp`, `revoked.ocsp` (signed by
/// the intermediate), `good-delegated.ocsp` (signed by `responder`, a delegated OCSP signer the intermediate issued),
/// `good-impostor.ocsp` (signed by a key with the intermediate's name that is not the intermediate's).
public final class RevocationPKI: @unchecked Sendable {  // immutable after init
    public let directory: TemporaryDirectory
    public let crlBase: String

    /// The leaves' AIA OCSP responder, when one was given.
    public let ocspURL: String?

    public init(crlBase: String, ocspURL: String? = nil) throws {
        directory = try TemporaryDirectory()
        self.crlBase = crlBase
        self.ocspURL = ocspURL
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
        try issue("responder", by: "intermediate", subject: "/CN=netvigil revocation test OCSP responder", section: "ocsp")
        try ocsp("good", signer: "intermediate", to: "good.ocsp")
        try ocsp("revoked", signer: "intermediate", to: "revoked.ocsp")
        try ocsp("good", signer: "responder", to: "good-delegated.ocsp")
        try ocsp("good", signer: "impostor", to: "good-impostor.ocsp")
    }

    /// The path of a file in the hierarchy's directory.
    public func path(_ name: String) -> String { directory.path(name) }

    /// A chain file (leaf, intermediate) for `leaf`.
    public func chain(_ leaf: String) throws -> String {
        let text = try String(contentsOfFile: path("\(leaf).crt"), encoding: .utf8)
            + String(contentsOfFile: path("intermediate.crt"), encoding: .utf8)
        return try directory.write("\(leaf)-chain.pem", text)
    }

    /// An nginx `server` block that serves `leaf`'s chain on 127.0.0.1:`port` over TLS and answers `ok`;
    /// `extra` goes inside the block (e.g. `ssl_stapling` lines).
    public func nginxSite(port: Int, leaf: String, extra: String = "") throws -> String {
        """
            server {
                listen 127.0.0.1:\(port) ssl;
                \(extra)
                ssl_certificate \(try chain(leaf));
                ssl_certificate_key \(path("\(leaf).key"));
                location / { return 200 'ok'; }
            }
        """
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
            \(Self.section("subca", ca: true, usage: "keyCertSign,cRLSign", more: ["crlDistributionPoints = URI:\(crlBase)/root.crl"]))
            \(Self.section("leaf", ca: false, usage: "digitalSignature", more: [
                "extendedKeyUsage = serverAuth", "subjectAltName = DNS:localhost,IP:127.0.0.1",
                "crlDistributionPoints = URI:\(crlBase)/intermediate.crl"] + (ocspURL.map { ["authorityInfoAccess = OCSP;URI:\($0)"] } ?? [])))
            \(Self.section("ocsp", ca: false, usage: "digitalSignature", more: ["extendedKeyUsage = OCSPSigning"]))
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

    /// One extension section of the CA configuration.
    private static func section(_ name: String, ca: Bool, usage: String, more: [String]) -> String {
        (["[ \(name) ]", "basicConstraints = critical,CA:\(ca ? "TRUE" : "FALSE")", "keyUsage = critical,\(usage)",
          "subjectKeyIdentifier = hash", "authorityKeyIdentifier = keyid"] + more).joined(separator: "\n")
    }

    /// Starts `openssl ocsp` answering from the intermediate's index on port `port` (it binds [::]); stop it when done.
    public func startResponder(port: Int, timeout: TimeInterval = 10) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["ocsp", "-index", path("intermediate/index.txt"), "-port", "\(port)", "-CA", path("intermediate.crt"),
                             "-rsigner", path("intermediate.crt"), "-rkey", path("intermediate.key"), "-ndays", "7"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        // Not by connecting: a connection that closes without a request wedges `openssl ocsp` (3.0).
        while !Self.listensOnAnyAddress(port: port, process: process.processIdentifier) {
            guard Date() < deadline, process.isRunning else {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                throw NginxError(message: "openssl ocsp did not listen on port \(port)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return process
    }

    /// Whether `process` listens on [::]:`port` (what `openssl ocsp -port` binds), from /proc/PID/net/tcp6.
    private static func listensOnAnyAddress(port: Int, process: Int32) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(process)/net/tcp6") else { return false }
        defer { try? handle.close() }
        let local = String(repeating: "0", count: 32) + ":" + String(format: "%04X", port)
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 3 && fields[1] == local && fields[3] == "0A"
        }
    }

    /// An OCSP response about `leaf` from the intermediate's index, signed by `signer`.
    private func ocsp(_ leaf: String, signer: String, to name: String) throws {
        try openssl(["ocsp", "-issuer", path("intermediate.crt"), "-cert", path("\(leaf).crt"), "-no_nonce",
                     "-reqout", path("\(name).req")])
        try openssl(["ocsp", "-index", path("intermediate/index.txt"), "-CA", path("intermediate.crt"),
                     "-rsigner", path("\(signer).crt"), "-rkey", path("\(signer).key"), "-reqin", path("\(name).req"),
                     "-respout", path(name), "-ndays", "7"])
    }

    private func openssl(_ arguments: [String]) throws {
        try LoopbackPKI.openssl(arguments)
    }
}
