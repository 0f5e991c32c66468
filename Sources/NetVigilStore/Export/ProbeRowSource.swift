/// A probe row the JSON row writer (`JSONStreamWriter.probeFields`) reads, column by column: a stored row
/// (`StoredProbeRow`, the export) or a record still in memory (`ProbeRecord`, the feed's events).
protocol ProbeRowSource {
    /// What writing a chain can throw (`Never` for a record).
    associatedtype Failure: Error

    /// Whether `column` is NULL.
    func isNull(_ column: ProbeColumn) -> Bool
    /// An INTEGER or timestamp column; nil for NULL.
    func integer(_ column: ProbeColumn) -> Int64?
    /// A REAL (phase timing) column; nil for NULL.
    func milliseconds(_ column: ProbeColumn) -> Double?
    /// Writes a TEXT column as a JSON string, or null.
    func writeText(_ column: ProbeColumn, to writer: inout JSONStreamWriter)
    /// Writes a chain column as the array of its certificates (`[]` for none).
    func writeChain(_ column: ProbeColumn, to writer: inout JSONStreamWriter) throws(Failure)
    /// Writes a column holding a JSON object text as that object, or null.
    func writeObject(_ column: ProbeColumn, to writer: inout JSONStreamWriter)
    /// Writes a column holding a JSON array text as that array, or null.
    func writeArray(_ column: ProbeColumn, to writer: inout JSONStreamWriter)
}
