/// Text from a configuration made safe to print on a terminal: control characters (C0, DEL, C1) are shown as
/// escapes (`\r`, `\n`, `\t`, `\0`, `\u{1B}`), so a URL holding CR, LF or NUL cannot forge lines of `check-config`'s
/// output or drive the terminal.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0D: result += "\\r"
            case 0x0A: result += "\\n"
            case 0x09: result += "\\t"
            case 0x00: result += "\\0"
            case 0x01..<0x20, 0x7F..<0xA0: result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
