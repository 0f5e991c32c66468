import Foundation

/// A small PKI made with the openssl CLI in a temporary directory: a test CA with a leaf for
/// localhost / *.localhost / 127.0.0.1, and an unrelated CA with a leaf for the same names.
final class TestPKI: @unchecked Sendable {
    static let shared: TestPKI = {
        do { return try TestPKI() } catch { fatalError("cannot build the HTTP test PKI: \(error)") }
    }()

    let dir: String
    func path(_ name: String) -> String { (dir as NSString).appendingPathComponent(name) }

    private init() throws {
        dir = NSTemporaryDirectory() + "netvigil-http-pki-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let openssl = "/usr/bin/openssl"
        try "subjectAltName=DNS:localhost,DNS:*.localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: path("leaf.ext"), atomically: true, encoding: .utf8)
        for name in ["ca", "other"] {
            try run(openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                              "-keyout", path("\(name).key"), "-out", path("\(name).crt"), "-days", "30",
                              "-subj", "/CN=netvigil \(name) test CA",
                              "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
            try run(openssl, ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                              "-keyout", path("\(name)-leaf.key"), "-out", path("\(name)-leaf.csr"), "-subj", "/CN=localhost"])
            try run(openssl, ["x509", "-req", "-in", path("\(name)-leaf.csr"), "-CA", path("\(name).crt"), "-CAkey", path("\(name).key"),
                              "-CAcreateserial", "-out", path("\(name)-leaf.crt"), "-days", "10", "-extfile", path("leaf.ext")])
        }
    }
}
