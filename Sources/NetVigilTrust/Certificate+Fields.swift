import COpenSSL
import Foundation

/// A subjectAltName entry netvigil understands.
public enum SubjectAlternativeName: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A `dNSName` (may be a wildcard such as `*.example.com`).
    case dns(String)
    /// An `iPAddress`, printed as text (IPv4 dotted, IPv6 RFC 5952).
    case ip(String)

    public var description: String {
        switch self {
        case .dns(let name): return "DNS:\(name)"
        case .ip(let address): return "IP:\(address)"
        }
    }

    /// The name or address without the type prefix.
    public var value: String {
        switch self {
        case .dns(let name): return name
        case .ip(let address): return address
        }
    }
}

/// A subjectAltName as encoded, for the `webpki` checks (which must see malformed IP addresses too).
enum RawSubjectAlternativeName: Equatable {
    case dns(String)
    case ip([UInt8])
    case other
}

/// The subject public key: algorithm and size.
public struct PublicKeyInfo: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `RSA`, `EC`, `Ed25519`, `Ed448`, `DSA` or the OpenSSL short name.
    public let algorithm: String
    /// The key size in bits as OpenSSL reports it (RSA modulus, curve order size, 256 for Ed25519).
    public let bits: Int
    /// The named curve of an EC key (`P-256`, `P-384`, ...), nil otherwise.
    public let curve: String?

    public var description: String {
        if let curve { return "\(algorithm) \(curve)" }
        return "\(algorithm) \(bits)"
    }

    /// Names an OpenSSL key type (`EVP_PKEY_get_base_id`) and EC curve NID.
    init(type: Int32, bits: Int, curveNID: Int32) {
        switch type {
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS: algorithm = "RSA"
        case EVP_PKEY_EC: algorithm = "EC"
        case EVP_PKEY_ED25519: algorithm = "Ed25519"
        case EVP_PKEY_ED448: algorithm = "Ed448"
        case EVP_PKEY_DSA: algorithm = "DSA"
        default: algorithm = type == NID_undef ? "unknown" : String(cString: OBJ_nid2sn(type))
        }
        self.bits = bits
        if type == EVP_PKEY_EC, curveNID != NID_undef {
            curve = EC_curve_nid2nist(curveNID).map { String(cString: $0) } ?? String(cString: OBJ_nid2sn(curveNID))
        } else {
            curve = nil
        }
    }
}

extension Certificate {
    /// The subject distinguished name in one line, RFC 2253 order (`CN=leaf,O=Example`).
    public var subject: String { handle.subjectLine }

    /// The issuer distinguished name in one line, RFC 2253 order.
    public var issuer: String { handle.issuerLine }

    /// The first commonName of the subject, if any.
    public var commonName: String? {
        var buffer = [CChar](repeating: 0, count: 1024)
        let length = cossl_X509_subject_common_name(handle.pointer, &buffer, Int32(buffer.count))
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The serial number, upper-case hex.
    public var serialNumber: String {
        var buffer = [CChar](repeating: 0, count: 256)
        let length = cossl_X509_serial_hex(handle.pointer, &buffer, Int32(buffer.count))
        guard length > 0 else { return "" }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Start of the validity period.
    public var notBefore: Date { Self.date(X509_get0_notBefore(handle.pointer)) }

    /// End of the validity period.
    public var notAfter: Date { Self.date(X509_get0_notAfter(handle.pointer)) }

    /// DNS names and IP addresses of the subjectAltName extension, in certificate order.
    public var subjectAlternativeNames: [SubjectAlternativeName] {
        rawSubjectAlternativeNames.compactMap { name in
            switch name {
            case .dns(let text): return .dns(text)
            case .ip(let bytes): return Self.ipText(bytes).map(SubjectAlternativeName.ip)
            case .other: return nil
            }
        }
    }

    /// Every subjectAltName as encoded: DNS text, IP address bytes of any length, other types as `.other`.
    var rawSubjectAlternativeNames: [RawSubjectAlternativeName] {
        guard let names = cossl_X509_get_subject_alt_names(handle.pointer) else { return [] }
        defer { cossl_GENERAL_NAMES_free(names) }
        var result: [RawSubjectAlternativeName] = []
        for index in 0..<cossl_sk_GENERAL_NAME_num(names) {
            guard let name = cossl_sk_GENERAL_NAME_value(names, index) else { continue }
            switch name.pointee.type {
            case GEN_DNS: result.append(.dns(Self.text(of: name.pointee.d.dNSName)))
            case GEN_IPADD: result.append(.ip(Self.bytes(of: name.pointee.d.iPAddress)))
            default: result.append(.other)
            }
        }
        return result
    }

    /// The content bytes of an ASN.1 string.
    static func bytes(of string: UnsafeMutablePointer<ASN1_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    /// The content of an ASN.1 string as UTF-8 text.
    static func text(of string: UnsafeMutablePointer<ASN1_STRING>?) -> String {
        String(decoding: bytes(of: string), as: UTF8.self)
    }

    /// The subject public key algorithm and size.
    public var publicKey: PublicKeyInfo {
        PublicKeyInfo(type: cossl_X509_key_type(handle.pointer), bits: Int(cossl_X509_key_bits(handle.pointer)),
                      curveNID: cossl_X509_ec_curve_nid(handle.pointer))
    }

    /// The signature algorithm, OpenSSL long name (`sha256WithRSAEncryption`, `ecdsa-with-SHA256`, `ED25519`).
    public var signatureAlgorithm: String {
        let nid = cossl_X509_signature_nid(handle.pointer)
        guard nid != NID_undef, let name = OBJ_nid2ln(nid) else { return "unknown" }
        return String(cString: name)
    }

    /// True for a CA certificate (basicConstraints CA:TRUE, or a version 1 self-signed root).
    public var isCA: Bool { cossl_X509_is_ca(handle.pointer) == 1 }

    /// True when subject and issuer are the same name (a root or a self-signed leaf).
    public var isSelfIssued: Bool {
        X509_NAME_cmp(X509_get_subject_name(handle.pointer), X509_get_issuer_name(handle.pointer)) == 0
    }

    /// The names a host check looks at: DNS and IP subjectAltNames, or the commonName when there is no DNS name.
    public var presentedNames: [String] {
        let sans = subjectAlternativeNames
        if sans.contains(where: { if case .dns = $0 { return true } else { return false } }) {
            return sans.map(\.value)
        }
        var names = sans.map(\.value)
        if let commonName { names.insert(commonName, at: 0) }
        return names
    }

    static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = cossl_X509_NAME_oneline_rfc2253(name, &buffer, Int32(buffer.count))
        guard length > 0 else { return "" }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var seconds: Int64 = 0
        guard cossl_ASN1_TIME_to_unix(time, &seconds) == 1 else { return Date(timeIntervalSince1970: 0) }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    static func ipText(_ bytes: [UInt8]) -> String? {
        if bytes.count == 4 {
            return bytes.map(String.init).joined(separator: ".")
        }
        guard bytes.count == 16 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }
}
