import Foundation
import XCTest
@testable import NetVigilTrust

/// Runs a program and returns its stdout; throws with stderr on failure.
@discardableResult
public func shell(_ executable: String, _ arguments: [String], cwd: String? = nil, stdin: Data? = nil) throws -> Data {
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

public struct FixtureError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
    public init(message: String) { self.message = message }
}

/// A test PKI made in process (`TestCertificateFactory`, no openssl CLI) in a temporary directory at test time.
/// Private keys never leave it.
///
/// RSA chain: rootRSA → interRSA → leafRSA (www.example.test, example.test), leafRSARenewed (same key),
/// expiredLeaf (2020–2021), notYetValidLeaf (2040–2041).
/// EC chain: rootEC → interEC → leafEC (*.wild.example.test, 127.0.0.1, ::1).
/// Other CA: rootOther → leafOther (www.example.test). Self-signed leafs: selfAltName (SAN foobar.test),
/// selfCommonName (CN foobar.test only), selfNoDomain (no host name at all), selfEd25519.
public final class PKI: @unchecked Sendable {
    public static let shared: PKI = {
        do { return try PKI() } catch { fatalError("cannot build test PKI: \(error)") }
    }()

    public static let openssl = "/usr/bin/openssl"

    public let dir: String
    public let rootRSA, interRSA, leafRSA, leafRSARenewed, expiredLeaf, notYetValidLeaf: Certificate
    public let rootEC, interEC, leafEC: Certificate
    public let rootOther, leafOther: Certificate
    public let selfAltName, selfCommonName, selfNoDomain, selfEd25519: Certificate

    /// The served RSA chain: leaf, intermediate (what a well-configured server sends).
    public var rsaChain: [Certificate] { [leafRSA, interRSA] }
    public var ecChain: [Certificate] { [leafEC, interEC] }

    public func path(_ name: String) -> String { (dir as NSString).appendingPathComponent(name) }

    public init() throws {
        dir = NSTemporaryDirectory() + "netvigil-trust-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Self.config.write(toFile: (dir as NSString).appendingPathComponent("pki.cnf"), atomically: true, encoding: .utf8)
        let d = dir
        func p(_ name: String) -> String { (d as NSString).appendingPathComponent(name) }
        // Made in process (TestCertificateFactory) as the openssl CLI made them from pki.cnf (still written, for tests
        // that issue more with the CLI): `req -x509 -days 3650` for roots and self-signed leafs, `x509 -req` for the
        // rest (intermediates 1825 days, leafs 365), `ca -startdate -enddate` for the fixed-date leafs.
        var keys: [String: TestCertificateFactory.Key] = [:]
        var issued: [String: TestCertificateFactory.Issued] = [:]
        func key(_ name: String, _ algorithm: String) throws {
            let type: TestCertificateFactory.KeyType = switch algorithm {
            case "rsa": .rsa(bits: 2048)
            case "ec": .ecdsaP256
            default: .ed25519
            }
            keys[name] = try TestCertificateFactory.Key(type)
            try keys[name]!.write(to: p(name + ".key"))
        }
        func make(_ name: String, _ subject: String, _ ext: String, by issuer: String?, keyName: String?,
                  notBefore: Date = Date(), notAfter: Date, serial: UInt64? = nil) throws {
            guard let section = Self.sections[ext] else { throw FixtureError(message: "no section \(ext)") }
            let certificate = try TestCertificateFactory.certificate(
                subject: subject, key: keys[keyName ?? name]!, issuer: issuer.map { issued[$0]! }, notBefore: notBefore,
                notAfter: notAfter, serial: serial, extensions: section)
            issued[name] = certificate
            try certificate.write(to: p(name + ".pem"))
        }
        func selfSigned(_ name: String, _ subject: String, _ ext: String, keyName: String? = nil) throws {
            try make(name, subject, ext, by: nil, keyName: keyName, notAfter: TestCertificateFactory.days(3650))
        }
        func issue(_ name: String, _ subject: String, _ ext: String, by issuer: String, keyName: String? = nil,
                   dates: (String, String)? = nil) throws {
            if let dates {
                func date(_ text: String) throws -> Date {
                    let formatter = DateFormatter()
                    formatter.locale = Locale(identifier: "en_US_POSIX")
                    formatter.timeZone = TimeZone(identifier: "UTC")
                    formatter.dateFormat = "yyyyMMddHHmmss'Z'"
                    guard let value = formatter.date(from: text) else { throw FixtureError(message: "bad date \(text)") }
                    return value
                }
                try make(name, subject, ext, by: issuer, keyName: keyName, notBefore: try date(dates.0),
                         notAfter: try date(dates.1), serial: UInt64.random(in: 16...250))
            } else {
                try make(name, subject, ext, by: issuer, keyName: keyName,
                         notAfter: TestCertificateFactory.days(name.hasPrefix("inter") ? 1825 : 365),
                         serial: UInt64.random(in: 1000...999_999_999))
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
    public func testStore() throws -> TrustStore {
        try TrustStore(systemRoots: false, anchors: [rootRSA, rootEC, rootOther])
    }

    public static let config = """
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

    /// `config`'s extension sections, in order: what the certificates above carry.
    static let sections: [String: [(name: String, value: String)]] = {
        var sections: [String: [(name: String, value: String)]] = [:]
        var current = ""
        for line in config.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
            if line.hasPrefix("[") {
                current = String(line.dropFirst().dropLast())
            } else if let equals = line.firstIndex(of: "=") {
                let name = line[..<equals].trimmingCharacters(in: .whitespaces)
                let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                sections[current, default: []].append((name, value))
            }
        }
        return sections
    }()

    public static let caConfig = """
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
    public static func utc(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }
}
