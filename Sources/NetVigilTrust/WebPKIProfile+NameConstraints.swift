import COpenSSL
import Foundation

extension WebPKIProfile {
    /// The DNS and IP subtrees of one CA's nameConstraints (directory names are left to OpenSSL, which applies them
    /// as RFC 5280 says).
    struct NameConstraints {
        var permittedDNS: [String] = []
        var excludedDNS: [String] = []
        var permittedIP: [[UInt8]] = []
        var excludedIP: [[UInt8]] = []

        /// Reads `certificate`'s nameConstraints; nil when it has none.
        init?(_ certificate: Certificate) {
            var critical: Int32 = 0
            guard let raw = X509_get_ext_d2i(certificate.x509, NID_name_constraints, &critical, nil) else {
                cossl_clear_errors()
                return nil
            }
            let constraints = raw.assumingMemoryBound(to: NAME_CONSTRAINTS.self)
            defer { NAME_CONSTRAINTS_free(constraints) }
            (permittedDNS, permittedIP) = Self.subtrees(constraints.pointee.permittedSubtrees)
            (excludedDNS, excludedIP) = Self.subtrees(constraints.pointee.excludedSubtrees)
        }

        private static func subtrees(_ stack: OpaquePointer?) -> ([String], [[UInt8]]) {
            guard let stack else { return ([], []) }
            var dns: [String] = [], ip: [[UInt8]] = []
            for index in 0..<OPENSSL_sk_num(stack) {
                guard let subtree = OPENSSL_sk_value(stack, index)?.assumingMemoryBound(to: GENERAL_SUBTREE.self),
                      let base = subtree.pointee.base else { continue }
                switch base.pointee.type {
                case GEN_DNS: dns.append(Certificate.text(of: base.pointee.d.dNSName).lowercased())
                case GEN_IPADD: ip.append(Certificate.bytes(of: base.pointee.d.iPAddress))
                default: continue
                }
            }
            return (dns, ip)
        }
    }

    /// Every CA's nameConstraints (the anchor's included) hold for every DNS and IP subjectAltName below it and for
    /// the leaf's commonName when it looks like a host name; a wildcard must fit a permitted subtree for every label
    /// it stands for and no excluded subtree for any. Only CA certificates may carry nameConstraints.
    static func nameConstraints(_ chain: [Certificate]) -> ChainRuleViolation? {
        if NameConstraints(chain[0]) != nil, chain.count > 1 {
            return ChainRuleViolation(chain[0], at: 0, rule: "name_constraints_in_leaf",
                                      "the server certificate carries nameConstraints; only CA certificates may")
        }
        for caDepth in chain.indices.dropFirst() {
            guard let constraints = NameConstraints(chain[caDepth]) else { continue }
            for depth in 0..<caDepth {
                let certificate = chain[depth]
                var dnsNames: [String] = []
                var ips: [[UInt8]] = []
                for name in certificate.rawSubjectAlternativeNames {
                    switch name {
                    case .dns(let text): dnsNames.append(text.lowercased())
                    case .ip(let bytes): ips.append(bytes)
                    case .other: continue
                    }
                }
                if depth == 0, let commonName = certificate.commonName?.lowercased(), looksLikeHostName(commonName) {
                    dnsNames.append(commonName)
                }
                for name in dnsNames {
                    if let problem = constraints.problem(dns: name) {
                        return ChainRuleViolation(certificate, at: depth, rule: problem.rule,
                                                  "the name \(name) \(problem.detail) of the CA at depth \(caDepth) (\(chain[caDepth].subject))")
                    }
                }
                for address in ips {
                    if let problem = constraints.problem(ip: address) {
                        let text = Certificate.ipText(address) ?? "(\(address.count) bytes)"
                        return ChainRuleViolation(certificate, at: depth, rule: problem.rule,
                                                  "the address \(text) \(problem.detail) of the CA at depth \(caDepth) (\(chain[caDepth].subject))")
                    }
                }
            }
        }
        return nil
    }

    /// A commonName that a client without SAN support would take as a host name: dotted LDH labels, `*` allowed.
    static func looksLikeHostName(_ name: String) -> Bool {
        guard name.contains("."), !name.hasPrefix("."), !name.hasSuffix(".") else { return false }
        if addressBytes(name) != nil { return false }
        return name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || "-.*_".contains($0) }
    }
}

extension WebPKIProfile.NameConstraints {
    /// Why `name` (lower-case, maybe `*.base`) breaks these constraints, or nil.
    func problem(dns name: String) -> (rule: String, detail: String)? {
        let isWildcard = name.hasPrefix("*.")
        let base = isWildcard ? String(name.dropFirst(2)) : name
        if !permittedDNS.isEmpty {
            // A wildcard fits a subtree only when every name it stands for does: its base must lie inside.
            let fits = permittedDNS.contains { Self.dnsName(base, within: $0, requireSubdomain: !isWildcard) }
            if !fits {
                return ("name_not_permitted", "is outside the permitted DNS subtrees (\(permittedDNS.joined(separator: ", ")))")
            }
        }
        for excluded in excludedDNS {
            let overlaps: Bool
            if isWildcard {
                // Some label stands for a name inside: the base lies inside, or the subtree is one label under it.
                // (`.sub.base` holds only names under sub.base, which one label cannot reach.)
                let parent = excluded.hasPrefix(".") ? nil : excluded.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init)
                overlaps = Self.dnsName(base, within: excluded, requireSubdomain: false) || parent == base
            } else {
                overlaps = Self.dnsName(name, within: excluded, requireSubdomain: true)
            }
            if overlaps {
                return ("name_excluded", "lies inside the excluded DNS subtree \(excluded)\(isWildcard ? " (a wildcard covers every name it can stand for)" : "")")
            }
        }
        return nil
    }

    /// RFC 5280 4.2.1.10 as browsers read it: `example.com` holds the name and its subdomains, `.example.com` only
    /// subdomains, the empty constraint everything. With `requireSubdomain` false the leading-period form also holds
    /// its own base (used for a wildcard's base, whose names are all subdomains of it).
    static func dnsName(_ name: String, within constraint: String, requireSubdomain: Bool) -> Bool {
        var constraint = constraint
        if constraint.hasSuffix(".") { constraint.removeLast() }
        if constraint.isEmpty { return true }
        if constraint.hasPrefix(".") {
            let bare = String(constraint.dropFirst())
            return name.hasSuffix(constraint) || (!requireSubdomain && name == bare)
        }
        return name == constraint || name.hasSuffix("." + constraint)
    }

    /// Why `address` breaks the IP subtrees, or nil.
    func problem(ip address: [UInt8]) -> (rule: String, detail: String)? {
        if !permittedIP.isEmpty, !permittedIP.contains(where: { $0.count == address.count * 2 && Self.address(address, within: $0) }) {
            return ("address_not_permitted", "is outside the permitted IP subtrees")
        }
        if excludedIP.contains(where: { $0.count == address.count * 2 && Self.address(address, within: $0) }) {
            return ("address_excluded", "lies inside an excluded IP subtree")
        }
        return nil
    }

    /// `subtree` is address followed by mask, as RFC 5280 encodes it.
    static func address(_ address: [UInt8], within subtree: [UInt8]) -> Bool {
        let count = address.count
        return (0..<count).allSatisfy { address[$0] & subtree[count + $0] == subtree[$0] & subtree[count + $0] }
    }
}
