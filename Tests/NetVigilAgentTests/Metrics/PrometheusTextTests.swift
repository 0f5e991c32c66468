import XCTest
@testable import NetVigilAgent

/// Sample values are written the shortest way that reads back as the value rounded to 9 significant digits (or to
/// nanoseconds where that keeps more), never with a division's float noise.
final class PrometheusTextTests: XCTestCase {
    func testFloatNoiseIsRoundedAwayAndEverythingElseKept() {
        let cases: [(Double, String)] = [
            (0.233 / 1_000, "0.000233"),            // 0.00023300000000000003 as Swift prints it
            (0.1 + 0.2, "0.3"),                     // 0.30000000000000004
            (47.0 / 1_000, "0.047"),
            (1.0, "1.0"), (0.0, "0.0"), (-3.0, "-3.0"), (200.0, "200.0"),
            (0.0015, "0.0015"),
            (1.234567891234e-7, "1.23456789e-07"),  // 9 significant digits
            (12.345678901234567, "12.345678901"),   // nanoseconds: finer than 9 digits here
            (1_795_000_000.123, "1795000000.123"),  // a Unix time keeps its milliseconds
            (1_795_000_000.0, "1795000000.0"),
            (-0.1 - 0.2, "-0.3"),
            (1e-20, "1e-20"),                       // too small to round exactly: as it is
            (.nan, "NaN"), (.infinity, "+Inf"), (-.infinity, "-Inf"),
        ]
        for (value, text) in cases {
            XCTAssertEqual(PrometheusText.value(value), text, "\(value)")
        }
    }

    func testAWrittenValueReadsBackAsTheRoundedValue() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let value = Double.random(in: 0..<10, using: &generator) / Double([1, 1_000, 1_000_000].randomElement(using: &generator)!)
            let text = PrometheusText.value(value)
            let back = Double(text)!
            XCTAssertEqual(back, PrometheusText.rounded(value), "\(value) → \(text)")
            XCTAssertLessThanOrEqual(abs(back - value), max(abs(value) * 1e-8, 1e-9), "\(value) → \(text)")
            XCTAssertLessThanOrEqual(text.filter(\.isNumber).drop { $0 == "0" }.count, 12, "\(value) → \(text)")
        }
    }

    func testOnlyTheValueOfASampleLineIsRewritten() {
        func rewrite(_ line: String) -> String { String(decoding: PrometheusText.rewritingValue(of: Array(line.utf8)[...]), as: UTF8.self) }
        XCTAssertEqual(rewrite(#"x_sum{le="0.1"} 0.00023300000000000003"#), #"x_sum{le="0.1"} 0.000233"#)
        XCTAssertEqual(rewrite("x_count 12"), "x_count 12")
        XCTAssertEqual(rewrite("x 1.0"), "x 1.0")
        XCTAssertEqual(rewrite("# HELP x 0.30000000000000004"), "# HELP x 0.30000000000000004")
    }
}
