import Foundation
import XCTest
@testable import NetVigilFeed

/// The status pages' HTML, CSS and JavaScript are edited as files in `Sources/NetVigilFeed/Pages` and compiled in by
/// the EmbedPageAssetsPlugin build-tool plugin: what the binary serves is those files, byte for byte.
final class PageAssetsTests: XCTestCase {
    private static let pages = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/NetVigilFeed/Pages")

    private func file(_ name: String) throws -> String {
        try String(contentsOf: Self.pages.appendingPathComponent(name), encoding: .utf8)
    }

    func testTheEmbeddedTextIsTheFilesByteForByte() throws {
        XCTAssertEqual(StatusPage.style, try file("style.css"))
        XCTAssertEqual(StatusPage.overviewScript, try file("overview.js"))
        XCTAssertEqual(StatusPage.tail, try file("tail.html"), "a final newline is kept")
        XCTAssertEqual(TargetPage.markup, try file("target.html")
            .replacingOccurrences(of: "{{findingsMarkup}}", with: try file("target-findings.html")))
        XCTAssertEqual(TargetPage.pageScript, try file("target.js")
            .replacingOccurrences(of: "{{findingsScript}}", with: try file("target-findings.js")))
        // Every file of the folder is embedded: each one's text is somewhere in a page.
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.pages.path).sorted()
        XCTAssertEqual(names.count, 16, "\(names)")
        let served = StatusPage.html(nonce: "{{nonce}}") + TargetPage.html(nonce: "{{nonce}}")
            + TargetNotFoundPage.html(name: "{{name}}", nonce: "{{nonce}}")
        for name in names {
            let text = try file(name)
            // Each stretch between placeholders (`{{head}}`, `{{nonce}}`, ...) is served as it is.
            let stretches = text.components(separatedBy: "{{").enumerated()
                .map { $0.offset == 0 ? $0.element : String($0.element.split(separator: "}}", maxSplits: 1, omittingEmptySubsequences: false).last ?? "") }
                .filter { !$0.isEmpty }
            XCTAssertFalse(stretches.isEmpty, name)
            for stretch in stretches {
                XCTAssertTrue(served.contains(stretch), "\(name): \(stretch.prefix(60)) is not in any page")
            }
        }
    }
}
