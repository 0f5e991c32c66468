import GRDB

/// The current row of an export's probe query (`ProbeColumn.selectList`), read straight from SQLite into the
/// output buffer: no `Row`, no `String` per value.
struct StoredProbeRow: ProbeRowSource {
    typealias Failure = any Error

    let row: RawStatement
    let chains: ChainJSONCache
    /// The chain query of this page's transaction (`ChainJSONCache.sql`).
    let chainStatement: Statement

    func isNull(_ column: ProbeColumn) -> Bool { row.isNull(column.selectIndex) }

    func integer(_ column: ProbeColumn) -> Int64? { row.int64OrNil(column.selectIndex) }

    func milliseconds(_ column: ProbeColumn) -> Double? { row.doubleOrNil(column.selectIndex) }

    func writeText(_ column: ProbeColumn, to writer: inout JSONStreamWriter) {
        writer.string(utf8: row.text(column.selectIndex))
    }

    func writeChain(_ column: ProbeColumn, to writer: inout JSONStreamWriter) throws {
        try chains.write(row.int64OrNil(column.selectIndex), statement: chainStatement, to: &writer)
    }

    func writeObject(_ column: ProbeColumn, to writer: inout JSONStreamWriter) {
        writer.object(text: row.string(column.selectIndex))
    }

    func writeArray(_ column: ProbeColumn, to writer: inout JSONStreamWriter) {
        writer.array(text: row.string(column.selectIndex))
    }
}
