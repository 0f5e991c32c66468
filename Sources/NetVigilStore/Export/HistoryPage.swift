/// One page of history in the merged order: the export's NDJSON row objects (each with its `type`), oldest first.
public struct HistoryPage: Sendable, Equatable {
    /// Each item is one export row object as UTF-8 JSON text, byte for byte what `netvigil export --format ndjson`
    /// writes for that row (without the newline).
    public var items: [[UInt8]]
    /// Where the next page starts; nil when this page reaches the end of the range.
    public var nextCursor: HistoryCursor?

    public init(items: [[UInt8]], nextCursor: HistoryCursor?) {
        self.items = items
        self.nextCursor = nextCursor
    }

    /// `{"items":[...],"next_cursor":"..."|null}` followed by a newline.
    public var json: [UInt8] {
        var bytes: [UInt8] = Array(#"{"items":["#.utf8)
        bytes.reserveCapacity(items.reduce(64) { $0 + $1.count + 1 })
        for (index, item) in items.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += item
        }
        bytes += Array(#"],"next_cursor":"#.utf8)
        if let nextCursor {
            bytes.append(UInt8(ascii: "\""))
            bytes += Array(nextCursor.encoded.utf8)
            bytes.append(UInt8(ascii: "\""))
        } else {
            bytes += Array("null".utf8)
        }
        bytes += Array("}\n".utf8)
        return bytes
    }
}
