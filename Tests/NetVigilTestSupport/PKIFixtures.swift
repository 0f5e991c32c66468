import Foundation
import XCTest
@testable import NetVigilTrust

/// Runs a program and returns its stdout; throws with stderr on failure.
@discardableResult
func shell(_ executable: String, _ arguments: [String], cwd: String? = nil, stdin: Data? = nil) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try input.fileHandleForWriting.close()
    let output = out.fileHandleForReading.readDataToEndOfFile()
    let errors = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw FixtureError(message: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
            + String(decoding: errors, as: UTF8.self))
    }
    return output
}

struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A test PKI made with the `openssl` CLI in a temporary directory at test time. Private keys never leave it.
///
/// RSA chain: rootRSA → interRSA → leafRSA (www.example.test, example.test), leafRSARenewed (same key),
/// expiredLeaf (2020–2021), notYetValidLeaf (2040–2041).
/// EC chain: rootEC → interEC → leafEC (*.wild.example.test, 127.0.0.1, ::1).
/// Other CA: rootOther → leafOther (www.example.test). Self-signed leafs: selfAltName (SAN foobar.test),
/// selfCommonName (CN foobar.test only), selfNoDomain (no host name at all), selfEd25519.
final class PKI: @unchecked Sendable {
    static let shared: PKI = {
        do { return try PKI() } catch { fatalError("cannot build test PKI: \(error)") }
    }()

    static let openssl = "/usr/bin/openssl"

    let dir: String
    let rootRSA, interRSA, leafRSA, leafRSARenewed, expiredLeaf, notYetValidLeaf: Certificate
    let rootEC, interEC, leafEC: Certificate
    let rootOther, leafOther: Certificate
    let selfAltName, selfCommonName, selfNoDomain, selfEd25519: Certificate

    /// The served RSA chain: leaf, intermediate (what a well-configured server sends).
    var rsaChain: [Certificate] { [leafRSA, interRSA] }
    var ecChain: [Certificate] { [leafEC, interEC] }

    func path(_ name: String) -> String { (dir as NSString).appendingPathComponent(name) }

    init() throws {
        dir = NSTemporaryDirectory() + "netvigil-trust-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Self.config.write(toFile: (dir as NSString).appendingPathComponent("pki.cnf"), atomically: true, encoding: .utf8)
        let d = dir
        func p(_ name: String) -> String { (d as NSString).appendingPathComponent(name) }
        func key(_ name: String, _ algorithm: String) throws {
            var args = ["genpkey", "-out", p(name + ".key")]
            switch algorithm {
            case "rsa": args += ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]
            case "ec": args += ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]
            default: args += ["-algorithm", "ED25519"]
            }
            try shell(Self.openssl, args)
        }
        func selfSigned(_ name: String, _ subject: String, _ ext: String, keyName: String? = nil) throws {
            try shell(Self.openssl, ["req", "-x509", "-new", "-key", p((keyName ?? name) + ".key"), "-subj", subject,
                                   "-days", "3650", "-config", p("pki.cnf"), "-extensions", ext, "-out", p(name + ".pem")])
        }
        func issue(_ name: String, _ subject: String, _ ext: String, by issuer: String, keyName: String? = nil,
                   dates: (String, String)? = nil) throws {
            try shell(Self.openssl, ["req", "-new", "-key", p((keyName ?? name) + ".key"), "-subj", subject,
                                   "-config", p("pki.cnf"), "-out", p(name + ".csr")])
            if let dates {
                let caDir = p("ca-" + name)
                try FileManager.default.createDirectory(atPath: caDir, withIntermediateDirectories: true)
                try "".write(toFile: caDir + "/index.txt", atomically: true, encoding: .utf8)
                try String(format: "%02X\n", Int.random(in: 16...250)).write(toFile: caDir + "/serial", atomically: true, encoding: .utf8)
                let cnf = Self.caConfig.replacingOccurrences(of: "@DIR@", with: caDir)
                try cnf.write(toFile: caDir + "/ca.cnf", atomically: true, encoding: .utf8)
                try shell(Self.openssl, ["ca", "-batch", "-config", caDir + "/ca.cnf", "-cert", p(issuer + ".pem"),
                                       "-keyfile", p(issuer + ".key"), "-in", p(name + ".csr"), "-out", p(name + ".pem"),
                                       "-notext", "-startdate", dates.0, "-enddate", dates.1,
                                       "-extfile", p("pki.cnf"), "-extensions", ext])
            } else {
                try shell(Self.openssl, ["x509", "-req", "-in", p(name + ".csr"), "-CA", p(issuer + ".pem"),
                                       "-CAkey", p(issuer + ".key"), "-set_serial", String(Int.random(in: 1000...999_999_999)),
                                       "-days", name.hasPrefix("inter") ? "1825" : "365", "-sha256",
                                       "-extfile", p("pki.cnf"), "-extensions", ext, "-out", p(name + ".pem")])
            }
        }
        func load(_ name: String) throws -> Certificate {
            let all = try Certificate.load(contentsOf: p(name + ".pem"))
            guard all.count == 1 else { throw FixtureError(message: "\(name).pem has \(all.count) certificates") }
            return all[0]
        }

        for (name, algorithm) in [("rootRSA", "rsa"), ("interRSA", "rsa"), ("leafRSA", "rsa"),
                                  ("rootEC", "ec"), ("interEC", "ec"), ("leafEC", "ec"), ("rootOther", "ec"),
                                  ("leafOther", "ec"), ("expiredLeaf", "ec"), ("notYetValidLeaf", "ec"),
                                  ("selfAltName", "ec"), ("selfCommonName", "ec"), ("selfNoDomain", "ec"),
                                  ("selfEd25519", "ed25519")] {
            try key(name, algorithm)
        }
        try selfSigned("rootRSA", "/O=NetVigil Tests/CN=NetVigil Test Root RSA", "ca_ext")
        try issue("interRSA", "/O=NetVigil Tests/CN=NetVigil Test Intermediate RSA", "ca_ext", by: "rootRSA")
        try issue("leafRSA", "/O=NetVigil Tests/CN=www.example.test", "leaf_www", by: "interRSA")
        try issue("leafRSARenewed", "/O=NetVigil Tests/CN=www.example.test", "leaf_www", by: "interRSA", keyName: "leafRSA")
        try issue("expiredLeaf", "/O=NetVigil Tests/CN=www.example.test", "leaf_www", by: "interRSA",
                  dates: ("20200101000000Z", "20210101000000Z"))
        try issue("notYetValidLeaf", "/O=NetVigil Tests/CN=www.example.test", "leaf_www", by: "interRSA",
                  dates: ("20400101000000Z", "20410101000000Z"))
        try selfSigned("rootEC", "/O=NetVigil Tests/CN=NetVigil Test Root EC", "ca_ext")
        try issue("interEC", "/O=NetVigil Tests/CN=NetVigil Test Intermediate EC", "ca_ext", by: "rootEC")
        try issue("leafEC", "/O=NetVigil Tests/CN=wild.example.test", "leaf_wild", by: "interEC")
        try selfSigned("rootOther", "/O=Other CA/CN=Other Root", "ca_ext")
        try issue("leafOther", "/O=Other CA/CN=www.example.test", "leaf_www", by: "rootOther")
        try selfSigned("selfAltName", "/CN=Alt Name Leaf", "self_altname")
        try selfSigned("selfCommonName", "/CN=foobar.test", "self_plain")
        try selfSigned("selfNoDomain", "/O=No Domains Inc/CN=No Domains Here", "self_plain")
        try selfSigned("selfEd25519", "/CN=ed25519.example.test", "self_ed")

        rootRSA = try load("rootRSA"); interRSA = try load("interRSA"); leafRSA = try load("leafRSA")
        leafRSARenewed = try load("leafRSARenewed"); expiredLeaf = try load("expiredLeaf")
        notYetValidLeaf = try load("notYetValidLeaf")
        rootEC = try load("rootEC"); interEC = try load("interEC"); leafEC = try load("leafEC")
        rootOther = try load("rootOther"); leafOther = try load("leafOther")
        selfAltName = try load("selfAltName"); selfCommonName = try load("selfCommonName")
        selfNoDomain = try load("selfNoDomain"); selfEd25519 = try load("selfEd25519")

        // Anchor and chain files for CLI-style loading.
        try (rootRSA.pem + rootEC.pem).write(toFile: p("test-roots.pem"), atomically: true, encoding: .utf8)
        try (leafRSA.pem + interRSA.pem).write(toFile: p("chain-rsa.pem"), atomically: true, encoding: .utf8)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Trust store with the test roots and no system roots.
    func testStore() throws -> TrustStore {
        try TrustStore(systemRoots: false, anchors: [rootRSA, rootEC, rootOther])
    }

    static let config = """
    [req]
    distinguished_name = dn
    prompt = no
    [dn]
    CN = placeholder
    [ca_ext]
    basicConstraints = critical,CA:TRUE
    keyUsage = critical,keyCertSign,cRLSign
    subjectKeyIdentifier = hash
    authorityKeyIdentifier = keyid:always
    [leaf_www]
    basicConstraints = critical,CA:FALSE
    keyUsage = critical,digitalSignature,keyEncipherment
    extendedKeyUsage = serverAuth
    subjectKeyIdentifier = hash
    authorityKeyIdentifier = keyid:always
    subjectAltName = DNS:www.example.test,DNS:example.test
    [leaf_wild]
    basicConstraints = critical,CA:FALSE
    keyUsage = critical,digitalSignature
    extendedKeyUsage = serverAuth
    subjectAltName = DNS:*.wild.example.test,IP:127.0.0.1,IP:::1
    [self_altname]
    basicConstraints = critical,CA:FALSE
    keyUsage = critical,digitalSignature
    subjectAltName = DNS:foobar.test
    [self_plain]
    basicConstraints = critical,CA:FALSE
    keyUsage = critical,digitalSignature
    [self_ed]
    basicConstraints = critical,CA:FALSE
    subjectAltName = DNS:ed25519.example.test

    """

    static let caConfig = """
    [ca]
    default_ca = CA_default
    [CA_default]
    database = @DIR@/index.txt
    new_certs_dir = @DIR@
    serial = @DIR@/serial
    default_md = sha256
    policy = policy_any
    unique_subject = no
    email_in_dn = no
    [policy_any]
    organizationName = optional
    commonName = supplied

    """
}

extension Date {
    /// Parses `2030-01-01T00:00:00Z`.
    static func utc(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }
}
