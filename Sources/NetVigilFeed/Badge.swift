/// A shields-style badge: a grey label on the left, a coloured message on the right, as a small SVG.
///
/// Widths are estimated from Verdana 11 px glyph widths (the font shields.io measures with), so text fits without
/// a font on the server. Label and message are XML-escaped: a target name is configuration, not markup.
struct Badge: Equatable {
    enum Color: String {
        case brightGreen = "#4c1", green = "#97ca00", yellow = "#dfb317", orange = "#fe7d37", red = "#e05d44",
             grey = "#9f9f9f", blue = "#007ec6"
    }

    var label: String
    var message: String
    var color: Color

    /// The SVG document.
    var svg: String {
        let labelWidth = Self.textWidth(label) + 10
        let messageWidth = Self.textWidth(message) + 10
        let width = labelWidth + messageWidth
        let title = "\(label): \(message)".markupEscaped
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="20" role="img" aria-label="\(title)">\
            <title>\(title)</title>\
            <linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>\
            <stop offset="1" stop-opacity=".1"/></linearGradient>\
            <clipPath id="r"><rect width="\(width)" height="20" rx="3" fill="#fff"/></clipPath>\
            <g clip-path="url(#r)"><rect width="\(labelWidth)" height="20" fill="#555"/>\
            <rect x="\(labelWidth)" width="\(messageWidth)" height="20" fill="\(color.rawValue)"/>\
            <rect width="\(width)" height="20" fill="url(#s)"/></g>\
            <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">\
            <text x="\(labelWidth / 2)" y="14">\(label.markupEscaped)</text>\
            <text x="\(labelWidth + messageWidth / 2)" y="14">\(message.markupEscaped)</text></g></svg>

            """
    }

    /// Approximate width in pixels of `text` in Verdana 11 px.
    static func textWidth(_ text: String) -> Int {
        var width = 0.0
        for character in text {
            switch character {
            case "i", "l", "j", "!", "|", ".", ",", ":", ";", "'", "I": width += 3.5
            case "f", "r", "t", "(", ")", "[", "]", " ", "-": width += 4.5
            case "m", "w", "M", "W", "%", "@": width += 10.5
            case _ where character.isUppercase: width += 7.5
            case _ where character.isNumber: width += 7
            default: width += 6.5
            }
        }
        return Int(width.rounded(.up))
    }
}
