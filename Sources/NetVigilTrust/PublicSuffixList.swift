import Foundation

/// The ICANN section of the Public Suffix List (Debian's `publicsuffix` package), as Chrome reads it to refuse a
/// wildcard over a registry-controlled domain (`*.co.uk`). Private-section entries (`*.github.io`) are not suffixes here.
public struct PublicSuffixList: Sendable {
    /// Debian's copy of the list.
    public static let debianPath = "/usr/share/publicsuffix/public_suffix_list.dat"

    private var rules: Set<String> = []
    private var wildcards: Set<String> = []
    private var exceptions: Set<String> = []

    /// Reads the list at `path`.
    /// - Throws: `PublicSuffixListError` naming the file and the package that provides it.
    public init(path: String = PublicSuffixList.debianPath) throws(PublicSuffixListError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PublicSuffixListError(path: path, problem: "cannot be read (install the Debian package publicsuffix)")
        }
        self.init(text: String(decoding: data, as: UTF8.self))
        if rules.isEmpty && wildcards.isEmpty {
            throw PublicSuffixListError(path: path, problem: "holds no ICANN rules (is it the Public Suffix List?)")
        }
    }

    /// Parses list text; only the `===BEGIN ICANN DOMAINS===` section counts when the markers are present.
    public init(text: String) {
        let hasSections = text.contains("===BEGIN ICANN DOMAINS===")
        var inICANN = !hasSections
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("//") {
                if line.contains("===BEGIN ICANN DOMAINS===") { inICANN = true }
                if line.contains("===END ICANN DOMAINS===") { inICANN = false }
                continue
            }
            guard inICANN, let rule = line.split(separator: " ").first.map(String.init), !rule.isEmpty else { continue }
            let ascii = (Self.aLabels(rule.lowercased()))
            if ascii.hasPrefix("!") {
                exceptions.insert(String(ascii.dropFirst()))
            } else if ascii.hasPrefix("*.") {
                wildcards.insert(String(ascii.dropFirst(2)))
            } else {
                rules.insert(ascii)
            }
        }
    }

    /// True when `domain` (lower-case, no trailing dot) is itself a public suffix: a listed rule, matched by a
    /// wildcard rule and not excepted, or a single label (the list's implicit `*` rule).
    public func isPublicSuffix(_ domain: String) -> Bool {
        if exceptions.contains(domain) { return false }
        if rules.contains(domain) { return true }
        guard let dot = domain.firstIndex(of: ".") else { return true }
        return wildcards.contains(String(domain[domain.index(after: dot)...]))
    }

    /// The list's Unicode labels in the A-label (punycode) form certificates carry.
    private static func aLabels(_ rule: String) -> String {
        guard rule.unicodeScalars.contains(where: { !$0.isASCII }) else { return rule }
        return rule.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            guard label.unicodeScalars.contains(where: { !$0.isASCII }),
                  let encoded = Punycode.encode(String(label)) else { return String(label) }
            return "xn--" + encoded
        }.joined(separator: ".")
    }
}

/// The Public Suffix List cannot be used.
public struct PublicSuffixListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file read.
    public let path: String
    /// What is wrong.
    public let problem: String

    public var description: String { "public suffix list \(path) \(problem)" }
}

extension PublicSuffixList {
    /// The list `WebPKIProfile` uses: `NETVIGIL_PUBLIC_SUFFIX_LIST` or Debian's file, read once per process.
    static let shared: Result<PublicSuffixList, PublicSuffixListError> = {
        let path = ProcessInfo.processInfo.environment["NETVIGIL_PUBLIC_SUFFIX_LIST"] ?? debianPath
        return Result { () throws(PublicSuffixListError) in try PublicSuffixList(path: path) }
    }()
}
