import Foundation
import XCTest
@testable import NetVigilAgent

/// The configuration's own trimming and `${` check give what Foundation's `trimmingCharacters(in: .whitespaces)` and
/// `contains("${")` give, for plain and Unicode blanks alike.
final class ConfigTextTests: XCTestCase {
    private let samples = [
        "", " ", "\t", "  \t ", "60s", " 60s ", "\t1h30m\t", "a b", " a b ", "\n", " \n ", "\na\n", "\u{A0}x\u{A0}",
        "\u{3000}名前\u{3000}", "\u{2009}", "x\u{200B}", "\u{1680}y", " é ", "e\u{301} ", "${HOME}", "$${x}", "$ {x}",
        "https://api.example.com/?t=1", "💡 ", " \r",
    ]

    func testBlankScalarsAreFoundationsWhitespaces() {
        var differing: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if ConfigText.isBlank(scalar) != CharacterSet.whitespaces.contains(scalar) { differing.append(String(value, radix: 16)) }
        }
        XCTAssertEqual(differing, [])
    }

    func testTrimmingAndBlankMatchFoundation() {
        for text in samples {
            let foundation = text.trimmingCharacters(in: .whitespaces)
            XCTAssertEqual(String(ConfigText.trimmingBlanks(text)), foundation, "trimming \(text.debugDescription)")
            XCTAssertEqual(ConfigText.isBlank(text), foundation.isEmpty, "blank \(text.debugDescription)")
        }
    }

    func testReferencesAsFoundationFindsThem() {
        for text in samples + ["$", "{", "}${", "a$", "${"] {
            XCTAssertEqual(ConfigText.containsReference(text), text.contains("${"), text.debugDescription)
        }
    }

    func testBracketsLeaveTheHost() {
        XCTAssertEqual(ConfigText.trimmingBrackets("[::1]"), "::1")
        XCTAssertEqual(ConfigText.trimmingBrackets("[[fe80::1]]"), "fe80::1")
        XCTAssertEqual(ConfigText.trimmingBrackets("example.com"), "example.com")
        XCTAssertEqual(ConfigText.trimmingBrackets("[]"), "")
        XCTAssertEqual(ConfigText.trimmingBrackets("a[b]c"), "a[b]c")
        for host in ["[::1]", "[[fe80::1]]", "example.com", "[]", "a[b]c", "]x["] {
            XCTAssertEqual(ConfigText.trimmingBrackets(host), host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        }
    }
}
