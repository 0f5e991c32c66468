/// How netvigil writes a sample value of the Prometheus text format: the one formatter of every value `/metrics`
/// shows, whether netvigil's per-target table wrote the line or swift-prometheus's registry did (the exposition
/// passes the registry's lines through ``rewritingValue(of:)``).
///
/// A value is rounded to 9 significant digits, or to nanoseconds where that keeps more (a Unix time keeps its
/// fraction), then printed the shortest way that reads back as that rounded value: `0.00023300000000000003` (0.233 ms
/// in seconds, as the division leaves it) is written `0.000233`. Integral values keep Swift's `1.0` form; NaN and the
/// infinities are written as the format spells them.
public enum PrometheusText {
    /// `value` as a sample value.
    public static func value(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return rounded(value).description
    }

    /// `value` rounded to 9 significant digits, or to 9 decimal places when that is finer (values of 1 and more).
    /// Values too large or small for the rounding to be exact in a `Double` are returned as they are.
    static func rounded(_ value: Double) -> Double {
        let magnitude = value.magnitude
        guard magnitude != 0, magnitude.isFinite, value != value.rounded() else { return value }
        // Decimal places kept: 9 for values of 1 and more, 9 significant digits below 1.
        guard magnitude >= 1e-14 else { return value }
        let places = magnitude >= 1 ? 9 : 8 - magnitude.log10Floor
        // scaled / 10^places is then one correctly rounded division of two exact values: the Double nearest to the
        // rounded decimal, as parsing its text would give.
        guard places < powersOfTen.count else { return value }
        let power = powersOfTen[places]
        let scaled = (value * power).rounded()
        guard scaled.magnitude < 9_007_199_254_740_992 else { return value }  // 2^53: beyond it no rounding is exact
        return scaled / power
    }

    /// 10^0 … 10^22, each exact in a `Double`.
    private static let powersOfTen: [Double] = {
        var powers: [Double] = [1]
        for _ in 1...22 { powers.append(powers[powers.count - 1] * 10) }
        return powers
    }()

    /// A sample line of the text format (`name{labels} value`, no timestamp) with its value written by
    /// ``value(_:)``; integers (counts, bucket counters) and lines that are not samples are returned unchanged.
    public static func rewritingValue(of line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard line.first != UInt8(ascii: "#"), let space = line.lastIndex(of: UInt8(ascii: " ")) else { return line }
        let text = line[(space + 1)...]
        guard text.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
              let number = Double(String(decoding: text, as: UTF8.self)) else { return line }
        let written = value(number)
        if text.elementsEqual(written.utf8) { return line }
        var rewritten = Array(line[...space])
        rewritten.append(contentsOf: written.utf8)
        return rewritten[...]
    }
}

private extension Double {
    /// ⌊log10(self)⌋ for a positive finite value, exact at powers of ten.
    var log10Floor: Int {
        var exponent = 0
        var value = self
        while value >= 10 { value /= 10; exponent += 1 }
        while value < 1 { value *= 10; exponent -= 1 }
        return exponent
    }
}
