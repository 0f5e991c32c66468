/// The per-target series of one scrape, in the exposition's order, rendered a piece at a time.
///
/// Made from a copy of `TargetSeriesTable` (`AgentMetrics.targetSeriesExposition()`): each map's entries sorted once
/// by target, so a family's lines come out sorted without collecting and sorting the whole text. With thousands of
/// targets the text runs to megabytes; rendered whole and sorted, its buffers stayed in the heap after every scrape.
///
/// Order: a family's lines sort by their text. Lines of one family differ first in the escaped `target` value, which
/// ends at the first unescaped `"`; no escaped value plus that quote is a prefix of another, so ordering targets by
/// `="escaped"` orders their lines, and only one target's own few lines (phases, outcomes, flags, addresses) are
/// sorted among themselves.
public struct TargetSeriesExposition: Sendable {
    private let probes: [(target: String, entry: TargetSeriesTable.ProbeEntry)]
    private let addresses: [(target: String, entry: [TargetSeriesTable.AddressEntry])]
    private let reachability: [(target: String, entry: TargetSeriesTable.ReachabilityEntry)]

    /// Where the last `append` stopped.
    private struct Cursor {
        var family = -1
        var row = 0
        var headerWritten = false
    }

    private var cursor = Cursor()
    /// One target's lines before they are sorted.
    private var scratch: [UInt8] = []

    /// The names of the families `append(family:into:limit:)` renders, by index, in name order.
    public static let familyNames = TargetSeriesTable.families.map(\.name)

    init(_ table: TargetSeriesTable) {
        probes = Self.sortedByTarget(table.probes)
        addresses = Self.sortedByTarget(table.addresses)
        reachability = Self.sortedByTarget(table.reachability)
    }

    /// Appends the next lines of family `index` (of `familyNames`) until `buffer` holds at least `limit` bytes: its
    /// `# HELP`/`# TYPE` lines before its first line (none when it has no lines), then whole targets' lines.
    /// Returns true when the family is complete; call again with the same family to go on.
    public mutating func append(family index: Int, into buffer: inout [UInt8], limit: Int) -> Bool {
        if cursor.family != index { cursor = Cursor(family: index) }
        let family = TargetSeriesTable.families[index]
        switch family.lines {
        case .probe(let lines):
            return walk(probes, family.name, into: &buffer, limit: limit) { lines($0.target, $0.entry, &$1) }
        case .address(let lines):
            return walk(addresses, family.name, into: &buffer, limit: limit) { lines($0.target, $0.entry, &$1) }
        case .reachability(let lines):
            return walk(reachability, family.name, into: &buffer, limit: limit) { lines($0.target, $0.entry, &$1) }
        }
    }

    private mutating func walk<Row>(_ rows: [Row], _ name: String, into buffer: inout [UInt8], limit: Int,
                                    _ lines: (Row, inout [UInt8]) -> Void) -> Bool {
        while cursor.row < rows.count {
            if buffer.count >= limit { return false }
            scratch.removeAll(keepingCapacity: true)
            lines(rows[cursor.row], &scratch)
            cursor.row += 1
            guard !scratch.isEmpty else { continue }
            if !cursor.headerWritten {
                TargetSeriesTable.appendHeader(name, to: &buffer)
                cursor.headerWritten = true
            }
            Self.appendSortedLines(scratch, to: &buffer)
        }
        return true
    }

    /// Appends the `\n`-terminated lines of `text` sorted by their bytes.
    private static func appendSortedLines(_ text: [UInt8], to buffer: inout [UInt8]) {
        var lines: [Range<Int>] = []
        var start = 0
        for index in text.indices where text[index] == UInt8(ascii: "\n") {
            lines.append(start..<index)
            start = index + 1
        }
        if lines.count > 1 {
            lines.sort { text[$0].lexicographicallyPrecedes(text[$1]) }
        }
        for line in lines {
            buffer.append(contentsOf: text[line])
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    /// The map's entries in the order of their `target` label as rendered (`="escaped value"`).
    private static func sortedByTarget<Value>(_ map: [String: Value]) -> [(target: String, entry: Value)] {
        map.map { target, value -> (key: [UInt8], target: String, entry: Value) in
            var key: [UInt8] = []
            key.appendLabel("", target, first: true)
            return (key, target, value)
        }
        .sorted { $0.key.lexicographicallyPrecedes($1.key) }
        .map { ($0.target, $0.entry) }
    }
}
