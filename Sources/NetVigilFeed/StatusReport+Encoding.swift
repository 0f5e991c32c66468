import Foundation
import NIOCore

extension StatusReport {
    /// The report as `jsonResponse` would encode it (sorted keys, unescaped slashes, a final newline), with each
    /// target's JSON taken from `cache` when its snapshot has not changed since the last request.
    func encodedJSON(cache: TargetFragmentCache) throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let targetJSON = try cache.json(for: targets, encoder: encoder)
        // The members in the order `.sortedKeys` puts them; absent optionals are left out as the synthesized
        // `encode(to:)` leaves them out.
        var members: [(CodingKeys, Data?)] = [
            (.captivePortal, try captivePortal.map { try encoder.encode($0) }),
            (.health, try health.map { try encoder.encode($0) }),
            (.reachability, try encoder.encode(reachability)),
            (.startedAt, try encoder.encode(startedAt)),
            (.store, try encoder.encode(store)),
            (.targets, nil),
            (.uptimeSeconds, try encoder.encode(uptimeSeconds)),
            (.version, try encoder.encode(version)),
        ]
        members.removeAll { $0.0 != .targets && $0.1 == nil }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(targetJSON.reduce(4_096) { $0 + $1.count + 1 })
        buffer.writeStaticString("{")
        for (index, (key, json)) in members.enumerated() {
            if index > 0 { buffer.writeStaticString(",") }
            buffer.writeString("\"\(key.stringValue)\":")
            if let json {
                buffer.writeBytes(json)
                continue
            }
            buffer.writeStaticString("[")
            for (position, target) in targetJSON.enumerated() {
                if position > 0 { buffer.writeStaticString(",") }
                buffer.writeBytes(target)
            }
            buffer.writeStaticString("]")
        }
        buffer.writeStaticString("}\n")
        return buffer
    }
}
