import Foundation
import NetVigilAgent
import NIOCore

extension StatusReport {
    /// The report as `jsonResponse` would encode it (sorted keys, unescaped slashes, a final newline) with
    /// `sources`' snapshots as its targets (in place of ``targets``), each as `cache`'s view of it (the whole
    /// snapshot, or the brief one), its JSON reused when the target's source key has not changed since the last
    /// request.
    ///
    /// Everything but the targets goes through the synthesized `Encodable` (the report encoded with no targets);
    /// the cached target fragments go inside its top-level `"targets":[]`.
    func encodedJSON<View>(targets sources: [TargetStates.SnapshotSource], cache: TargetFragmentCache<View>) throws -> EncodedStatusReport {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let targetJSON = try cache.json(for: sources, encoder: encoder)
        var shell = self
        shell.targets = []
        let outer = try encoder.encode(shell)
        guard let split = Self.topLevelTargetsArray(in: outer) else {
            throw EncodingError.invalidValue(self, .init(codingPath: [CodingKeys.targets],
                                                         debugDescription: "no top-level \"targets\":[] in the encoded report"))
        }
        return EncodedStatusReport(head: outer[..<split], targets: targetJSON, tail: outer[split...] + Data("\n".utf8))
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

/// `/v1/status` as encoded: the report up to its `"targets":[`, each target's JSON, then the rest. A response
/// writes it a chunk at a time (``chunks(of:)``) rather than as one buffer: with thousands of targets the document
/// runs to megabytes, and one buffer of it was a fresh mapping faulted in and copied into on every request.
struct EncodedStatusReport: Sendable {
    var head: Data
    var targets: [Data]
    var tail: Data

    /// The whole document's size in bytes.
    var count: Int { targets.reduce(head.count + tail.count + max(0, targets.count - 1)) { $0 + $1.count } }

    /// The document in order, in buffers of about `size` bytes (a target's JSON is never split), each made when
    /// asked for.
    func chunks(of size: Int = 65_536) -> Chunks { Chunks(report: self, size: size) }

    struct Chunks: IteratorProtocol, Sendable {
        let report: EncodedStatusReport
        let size: Int
        /// The next target to write: -1 before the head, `report.targets.count + 1` once the tail is written.
        private var position = -1

        init(report: EncodedStatusReport, size: Int) {
            self.report = report
            self.size = size
        }

        mutating func next() -> ByteBuffer? {
            let targets = report.targets
            guard position <= targets.count else { return nil }
            var buffer = ByteBuffer()
            buffer.reserveCapacity(size)
            // Data through its bytes: `writeBytes(Data)` took the generic path: a seventh of the route's time at 10,000 targets.
            if position < 0 {
                report.head.withUnsafeBytes { _ = buffer.writeBytes($0) }
                position = 0
            }
            // A chunk takes whole targets while they fit, and always at least one.
            while position < targets.count,
                  buffer.readableBytes == 0 || buffer.readableBytes + targets[position].count < size {
                if position > 0 { buffer.writeStaticString(",") }
                targets[position].withUnsafeBytes { _ = buffer.writeBytes($0) }
                position += 1
            }
            if position == targets.count {
                report.tail.withUnsafeBytes { _ = buffer.writeBytes($0) }
                position += 1
            }
            return buffer
        }
    }
}
