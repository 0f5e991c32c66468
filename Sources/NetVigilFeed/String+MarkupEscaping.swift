extension String {
    /// The text with the five characters that are markup in HTML and XML (the SVG badge) as entities; `'` as the
    /// numeric `&#39;`, which both languages read (HTML 4 has no `&apos;`).
    public var markupEscaped: String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
