/// Small text checks of configuration values, done on Unicode scalars: Foundation's `trimmingCharacters(in:)` and
/// `contains(_:)` on a `String` go through `NSString`, a noticeable cost when thousands of targets are loaded (at
/// start and on every reload).
enum ConfigText {
    /// Whether `scalar` is one of `CharacterSet.whitespaces`: a tab, a space separator (Unicode category Zs) or, as
    /// Foundation still counts it, the zero-width space (checked against Foundation for every scalar by a test).
    static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }

    /// Whether `text` is empty or only blanks (what `trimmingCharacters(in: .whitespaces).isEmpty` tells).
    static func isBlank(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.allSatisfy(isBlank)
    }

    /// `text` without the blanks at either end (`trimmingCharacters(in: .whitespaces)`).
    static func trimmingBlanks(_ text: String) -> Substring {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }),
              let last = scalars.lastIndex(where: { !isBlank($0) }) else { return "" }
        return Substring(scalars[first...last])
    }

    /// `host` without the square brackets at either end (`[::1]` is `::1`).
    static func trimmingBrackets(_ host: String) -> String {
        var trimmed = Substring(host)
        while let first = trimmed.first, first == "[" || first == "]" { trimmed.removeFirst() }
        while let last = trimmed.last, last == "[" || last == "]" { trimmed.removeLast() }
        return String(trimmed)
    }

    /// Whether `text` holds a `${` (a substitution, or a `$${` escape).
    static func containsReference(_ text: String) -> Bool {
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if previous == UInt8(ascii: "$"), byte == UInt8(ascii: "{") { return true }
            previous = byte
        }
        return false
    }
}
