import Foundation
import XCTest

/// Every relative link and `#anchor` in the repository's Markdown files resolves, and so does every pointer to a
/// document in a code comment (`docs/trust.md`, `docs/feed.md#metrics`, ...).
///
/// Anchors follow GitHub's rule: the heading text lowercased, punctuation dropped (letters, digits, `_`, `-` and
/// spaces stay), spaces turned into `-`; a repeated heading gets `-1`, `-2`, ... http(s) and mailto links are not
/// fetched.
final class DocumentationLinksTests: XCTestCase {
    /// The repository root: this file is `Tests/IntegrationTests/CLI/DocumentationLinksTests.swift`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func testEveryRelativeLinkAndAnchorInMarkdownResolves() throws {
        let files = try Self.markdownFiles()
        XCTAssertTrue(files.contains("README.md"), "README.md not found among \(files)")
        XCTAssertTrue(files.contains("docs/configuration.md"), "docs/ not found among \(files)")
        var broken: [String] = []
        var checked = 0
        for file in files {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for link in Self.links(inMarkdown: text) {
                checked += 1
                if let problem = Self.problem(with: link.target, from: file) {
                    broken.append("\(file):\(link.line): \(link.target): \(problem)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 50, "too few links found: the scanner is broken")
        XCTAssertEqual(broken, [], "broken links:\n" + broken.joined(separator: "\n"))
    }

    func testDocumentsNamedInCodeCommentsExist() throws {
        var broken: [String] = []
        var found = 0
        for file in try Self.swiftFiles() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let comment = line.range(of: "//") else { continue }
                for reference in Self.documentReferences(in: String(line[comment.lowerBound...])) {
                    found += 1
                    if let problem = Self.problem(with: reference, from: "README.md") {
                        broken.append("\(file):\(index + 1): \(reference): \(problem)")
                    }
                }
            }
        }
        // SecurityPolicy.swift, ServerTrustEvaluator.swift and ReachabilityFlags.swift name docs/ at least.
        XCTAssertGreaterThanOrEqual(found, 3, "too few document references found: the scanner is broken")
        XCTAssertEqual(broken, [], "comments point to documents that do not exist:\n" + broken.joined(separator: "\n"))
    }

    func testSlugsFollowGitHub() {
        XCTAssertEqual(Self.anchors(inMarkdown: """
            # Trust: certificates, pins and security policies (`NetVigilTrust`)
            ## Reload (SIGHUP)
            ## Tests
            ### Tests
            ```
            # not a heading
            ```
            ## `netvigil export`
            ## Performance → Request stack
            """), [
                "trust-certificates-pins-and-security-policies-netvigiltrust", "reload-sighup", "tests", "tests-1",
                "netvigil-export", "performance--request-stack",
            ])
    }

    func testAFakeBrokenLinkIsReported() {
        XCTAssertNotNil(Self.problem(with: "docs/no-such-file.md", from: "README.md"))
        XCTAssertNotNil(Self.problem(with: "docs/trust.md#no-such-heading", from: "README.md"))
        XCTAssertNotNil(Self.problem(with: "#no-such-heading", from: "README.md"))
        XCTAssertNil(Self.problem(with: "trust.md#policy-semantics", from: "docs/feed.md"))
        XCTAssertNil(Self.problem(with: "../DEVELOPERS.md", from: "docs/architecture.md"))
    }

    // MARK: - Scanning

    struct Link { var line: Int; var target: String }

    /// Tracked Markdown files (git), or every `*.md` outside hidden and build directories when git is unavailable.
    static func markdownFiles() throws -> [String] {
        if let tracked = git(["ls-files", "-z", "--", "*.md"]), !tracked.isEmpty { return tracked }
        return try walk { $0.hasSuffix(".md") }
    }

    /// Swift sources and tests.
    static func swiftFiles() throws -> [String] {
        try walk { ($0.hasPrefix("Sources/") || $0.hasPrefix("Tests/") || $0.hasPrefix("Benchmarks/")) && $0.hasSuffix(".swift") }
    }

    static func git(_ arguments: [String]) -> [String]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", root.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\0").map(String.init).filter {
            FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path)
        }
    }

    static func walk(_ include: (String) -> Bool) throws -> [String] {
        var result: [String] = []
        let keys: [URLResourceKey] = [.isDirectoryKey]
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) else { return [] }
        let prefix = root.standardizedFileURL.path + "/"
        for case let url as URL in enumerator {
            let name = url.lastPathComponent
            if name.hasPrefix(".") {
                enumerator.skipDescendants()
                continue
            }
            let path = String(url.standardizedFileURL.path.dropFirst(prefix.count))
            if include(path) { result.append(path) }
        }
        return result.sorted()
    }

    /// `[text](target)` links outside fenced code blocks and inline code spans.
    static func links(inMarkdown text: String) -> [Link] {
        var links: [Link] = []
        var inFence = false
        let pattern = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#)
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                inFence.toggle()
                continue
            }
            if inFence { continue }
            let prose = withoutCodeSpans(line)
            let range = NSRange(prose.startIndex..., in: prose)
            for match in pattern.matches(in: prose, range: range) {
                guard let targetRange = Range(match.range(at: 1), in: prose) else { continue }
                links.append(Link(line: index + 1, target: String(prose[targetRange])))
            }
        }
        return links
    }

    /// The line with every `code span` removed (a span's text is not a link), keeping a link whose text is code.
    static func withoutCodeSpans(_ line: String) -> String {
        var result = ""
        var inCode = false
        for character in line {
            if character == "`" {
                inCode.toggle()
                continue
            }
            if !inCode { result.append(character) }
        }
        return inCode ? line : result
    }

    /// Paths of documents named in a comment: `docs/….md`, `Benchmarks/….md`, `README.md`, `DEVELOPERS.md`, with
    /// an optional `#anchor`.
    static func documentReferences(in comment: String) -> [String] {
        let pattern = try! NSRegularExpression(
            pattern: #"(?<![A-Za-z0-9_./-])((?:docs|Benchmarks|deploy)/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md|README\.md|DEVELOPERS\.md)(#[a-z0-9_-]+)?"#)
        let range = NSRange(comment.startIndex..., in: comment)
        return pattern.matches(in: comment, range: range).compactMap { Range($0.range, in: comment).map { String(comment[$0]) } }
    }

    /// Nil when `target` (a link written in the Markdown file `file`, relative to the repository root) resolves,
    /// otherwise what is wrong.
    static func problem(with target: String, from file: String) -> String? {
        let lower = target.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("mailto:") { return nil }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts[0].removingPercentEncoding ?? String(parts[0])
        let anchor = parts.count > 1 ? String(parts[1]) : nil
        let base = root.appendingPathComponent(file).deletingLastPathComponent()
        let resolved = path.isEmpty ? root.appendingPathComponent(file) : base.appendingPathComponent(path)
        let resolvedPath = resolved.standardizedFileURL.path
        guard resolvedPath.hasPrefix(root.standardizedFileURL.path) else { return "points outside the repository" }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolvedPath, isDirectory: &isDirectory) else { return "no such file" }
        guard let anchor, !anchor.isEmpty else { return nil }
        guard resolvedPath.hasSuffix(".md"), !isDirectory.boolValue else { return nil }
        guard let text = try? String(contentsOfFile: resolvedPath, encoding: .utf8) else { return "unreadable" }
        return anchors(inMarkdown: text).contains(anchor) ? nil : "no heading with anchor #\(anchor)"
    }

    /// The anchors GitHub gives the headings of a Markdown text.
    static func anchors(inMarkdown text: String) -> [String] {
        var anchors: [String] = []
        var seen: [String: Int] = [:]
        var inFence = false
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(rawLine)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                inFence.toggle()
                continue
            }
            guard !inFence, line.hasPrefix("#") else { continue }
            let hashes = line.prefix { $0 == "#" }.count
            guard hashes <= 6, line.dropFirst(hashes).first == " " else { continue }
            var title = line.dropFirst(hashes).trimmingCharacters(in: .whitespaces)
            while title.hasSuffix("#") { title = String(title.dropLast()).trimmingCharacters(in: .whitespaces) }
            let slug = slug(title)
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.append(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// GitHub's heading slug: lowercase, links reduced to their text, punctuation dropped (letters, digits, `_`,
    /// `-` and spaces kept), spaces to `-`.
    static func slug(_ title: String) -> String {
        let linkText = try! NSRegularExpression(pattern: #"\[([^\]]*)\]\([^)]*\)"#)
        let plain = linkText.stringByReplacingMatches(in: title, range: NSRange(title.startIndex..., in: title),
                                                      withTemplate: "$1")
        var slug = ""
        for character in plain.lowercased() {
            if character.isLetter || character.isNumber || character == "_" || character == "-" {
                slug.append(character)
            } else if character == " " {
                slug.append("-")
            }
        }
        return slug
    }
}
