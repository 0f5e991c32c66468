/// Export row objects for records that are still in memory (the feed's event stream).
///
/// The fields, their order and their formatting are those `HistoryExporter` writes for a stored row in the
/// `--format json` document (for probes, the same writer: `JSONStreamWriter.probeFields`), except `id`: a record
/// gets its row id only when the store writes it.
public enum ExportRowJSON {
    /// A probe record as the export's `probes[]` object, without `id`; one line of UTF-8 JSON.
    public static func probe(_ record: ProbeRecord) -> [UInt8] {
        let record = record.exceedsBounds ? record.bounded : record  // as the store keeps it
        var writer = JSONStreamWriter(output: MemoryOutput(), flushThreshold: 4_096)
        writer.raw("{")
        writer.probeFields(record, leadingComma: false)
        writer.raw("}")
        return writer.bytes
    }

    /// A reachability record as the export's `reachability[]` object, without `id`; one line of UTF-8 JSON.
    public static func reachability(_ record: ReachabilityEventRecord) -> [UInt8] {
        var writer = JSONStreamWriter(output: MemoryOutput(), flushThreshold: 4_096)
        writer.raw("{"); writer.key("time"); writer.timestamp(record.time)
        writer.raw(","); writer.key("target"); writer.string(record.target)
        writer.raw(","); writer.key("status"); writer.string(record.status)
        writer.raw(","); writer.key("status_code"); writer.int(Int64(record.statusCode))
        writer.raw(","); writer.key("flags"); writer.stringArray(record.flagNames)
        writer.raw(","); writer.key("flags_raw"); writer.int(record.flags)
        writer.raw(","); writer.key("interface"); writer.string(record.interface)
        writer.raw(","); writer.key("interface_kind"); writer.string(record.interfaceKind)
        writer.raw(","); writer.key("gateway"); writer.string(record.gateway)
        writer.raw(","); writer.key("source"); writer.string(record.source)
        writer.raw(","); writer.key("family"); writer.string(record.family)
        writer.raw("}")
        return writer.bytes
    }
}
