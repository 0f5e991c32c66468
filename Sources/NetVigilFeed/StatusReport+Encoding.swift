import Foundation
import NIOCore

extension StatusReport {
    /// The report as `jsonResponse` would encode it (sorted keys, unescaped slashes, a final newline), each target
    /// as `cache`'s view of it (the whole snapshot, or the brief one), its JSON reused when that view has not changed
    /// since the last request.
    ///
    /// Everything but the targets goes through the synthesized `Encodable` (the report encoded with no targets);
    /// the cached target fragments are then spliced into its top-level `"targets":[]`.
    func encodedJSON<View>(cache: TargetFragmentCache<View>) throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let targetJSON = try cache.json(for: targets, encoder: encoder)
        var shell = self
        shell.targets = []
        let outer = try encoder.encode(shell)
        guard let split = Self.topLevelTargetsArray(in: outer) else {
            throw EncodingError.invalidValue(self, .init(codingPath: [CodingKeys.targets],
                                                         debugDescription: "no top-level \"targets\":[] in the encoded report"))
        }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(targetJSON.reduce(outer.count + 1) { $0 + $1.count + 1 })
        buffer.writeBytes(outer[..<split])
        for (position, target) in targetJSON.enumerated() {
            if position > 0 { buffer.writeStaticString(",") }
            buffer.writeBytes(target)
        }
        buffer.writeBytes(outer[split...])
        buffer.writeStaticString("\n")
        return buffer
    }

    /// The offset just inside the `[]` of the top-level member `"targets":[]` of compact JSON `json`, found by
    /// walking it with string and nesting awareness (a nested object's `targets` key is not taken).
    static func topLevelTargetsArray(in json: Data) -> Data.Index? {
        let member = Array(#""targets":[]"#.utf8)
        var depth = 0
        var inString = false
        var escaped = false
        var index = json.startIndex
        while index < json.endIndex {
            let byte = json[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                if depth == 1, json[index...].starts(with: member) { return index + member.count - 1 }
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
