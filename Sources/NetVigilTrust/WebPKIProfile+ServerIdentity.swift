import COpenSSL
import Foundation

extension WebPKIProfile {
    /// Every subjectAltName of the leaf is a valid server name; the host (when checked) is one of them.
    /// The commonName is never used (Chrome 58+, Go 1.15+, rustls-webpki).
    static func serverIdentity(_ leaf: Certificate, host: HostCheck?) -> ServerTrustFailureReason? {
        let names = leaf.rawSubjectAlternativeNames
        for name in names {
            switch name {
            case .dns(let text):
                if let problem = dnsNameProblem(text) {
                    return .invalidServerName(ChainRuleViolation(leaf, at: 0, rule: problem.rule,
                                                                 "the subjectAltName DNS:\(text) \(problem.detail)"))
                }
            case .ip(let bytes) where bytes.count != 4 && bytes.count != 16:
                return .invalidServerName(ChainRuleViolation(leaf, at: 0, rule: "ip_address_malformed",
                                                             "a subjectAltName IP address has \(bytes.count) bytes; it must have 4 (IPv4) or 16 (IPv6)"))
            default:
                continue
            }
        }
        guard let host else { return nil }
        if names.contains(where: { matches($0, host: host) }) { return nil }
        let presented = names.compactMap { name -> String? in
            switch name {
            case .dns(let text): return text
            case .ip(let bytes): return Certificate.ipText(bytes)
            case .other: return nil
            }
        }
        return .hostnameMismatch(expected: host.name, presented: presented)
    }

    /// True when `name` identifies `host`: IP addresses compared as addresses, DNS names case-insensitively with
    /// a wildcard standing for exactly one whole leftmost label.
    static func matches(_ name: RawSubjectAlternativeName, host: HostCheck) -> Bool {
        switch name {
        case .ip(let bytes):
            guard host.isIP else { return false }
            return addressBytes(host.name) == bytes
        case .dns(let text):
            guard !host.isIP else { return false }
            var pattern = text.lowercased()
            if pattern.hasSuffix(".") { pattern.removeLast() }
            if pattern.hasPrefix("*.") {
                let base = pattern.dropFirst(2)
                guard host.name.hasSuffix("." + base) else { return false }
                let label = host.name.dropLast(base.count + 1)
                return !label.isEmpty && !label.contains(".")
            }
            return pattern == host.name
        case .other:
            return false
        }
    }

    /// The bytes of an IPv4 or IPv6 literal.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// Why `name` is not a valid presented DNS identifier (RFC 6125/9525 as browsers apply it), or nil.
    static func dnsNameProblem(_ name: String) -> (rule: String, detail: String)? {
        guard !name.isEmpty else { return ("dns_name_empty", "is empty") }
        guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            return ("dns_name_not_ascii", "is not ASCII; internationalized names must be IDNA A-labels (xn--)")
        }
        guard name.utf8.count <= 253 else { return ("dns_name_too_long", "is longer than 253 characters") }
        let labels = name.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        if labels.contains(where: \.isEmpty) {
            return ("dns_name_empty_label", "has an empty label (a leading, trailing or doubled dot)")
        }
        for (index, label) in labels.enumerated() {
            if label == "*" {
                guard index == 0 else { return ("wildcard_not_leftmost", "has a wildcard that is not the leftmost label") }
                continue
            }
            if label.contains("*") {
                return ("wildcard_partial_label", "has a wildcard that is not a whole label (only \"*.\" at the start is allowed)")
            }
            if label.contains("_") {
                return ("dns_name_underscore", "contains an underscore, which host names may not contain")
            }
            if label.count > 63 { return ("dns_label_too_long", "has a label longer than 63 characters") }
            if label.contains(where: { !($0.isLetter || $0.isNumber || $0 == "-") }) {
                return ("dns_name_bad_character", "contains a character other than letters, digits, hyphens and dots")
            }
            if label.hasPrefix("-") || label.hasSuffix("-") {
                return ("dns_label_hyphen", "has a label that starts or ends with a hyphen")
            }
        }
        if labels.first == "*" {
            let base = labels.dropFirst().joined(separator: ".")
            switch PublicSuffixList.shared {
            case .failure(let error):
                return ("public_suffix_list_unavailable", "is a wildcard that cannot be checked: \(error)")
            case .success(let list):
                if list.isPublicSuffix(base) {
                    return ("wildcard_over_public_suffix",
                            "is a wildcard over the public suffix \(base); browsers refuse such wildcards: list the host names instead")
                }
            }
        }
        return nil
    }
}
