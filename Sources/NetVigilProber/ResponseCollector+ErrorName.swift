extension ResponseCollector {
    /// The words of an error's type name (`ExcessivelyLargeHeaderBlock` → `excessively large header block`,
    /// `InvalidALPNToken` → `invalid ALPN token`): NIOHTTP2's and NIOHPACK's descriptions carry the Swift file and
    /// line that threw, which mean nothing to whoever reads a probe's message.
    static func plainName(of error: any Error) -> String {
        let scalars = Array(String(describing: type(of: error)).unicodeScalars)
        var words: [String] = []
        var word = ""
        for (index, scalar) in scalars.enumerated() {
            let isUpper = scalar.properties.isUppercase
            let previousIsUpper = index > 0 && scalars[index - 1].properties.isUppercase
            let nextIsLower = index + 1 < scalars.count && scalars[index + 1].properties.isLowercase
            // A word starts at an upper-case letter after a lower-case one, or at the last capital of an acronym.
            if isUpper, !word.isEmpty, !previousIsUpper || nextIsLower {
                words.append(word)
                word = ""
            }
            word.unicodeScalars.append(scalar)
        }
        if !word.isEmpty { words.append(word) }
        // Acronyms (`ALPN`, `ID`, `IO`) stay as they are; other words are lower-cased.
        return words.map { $0.count > 1 && $0.allSatisfy(\.isUppercase) ? $0 : $0.lowercased() }.joined(separator: " ")
    }
}
