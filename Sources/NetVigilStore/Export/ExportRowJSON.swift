import Foundation

/// Export row objects for records that are still in memory (the feed's event stream).
///
/// The fields, their order and their formatting are those `HistoryExporter` writes for a stored row in the
/// `--format json` document, except `id`: a record gets its row id only when the store writes it.
public enum ExportRowJSON {
    /// A probe record as the export's `probes[]` object, without `id`; one line of UTF-8 JSON.
    public static func probe(_ record: ProbeRecord) -> [UInt8] {
        let record = record.exceedsBounds ? record.bounded : record  // as the store keeps it
        var writer = JSONStreamWriter(output: MemoryOutput(), flushThreshold: 4_096)
        writer.raw("{"); writer.key("time"); writer.timestamp(record.time)
        writer.raw(","); writer.key("target"); writer.string(record.target)
        writer.raw(","); writer.key("url"); writer.string(record.url)
        writer.raw(","); writer.key("outcome"); writer.string(record.outcome.rawValue)
        writer.raw(","); writer.key("error")
        if let kind = record.errorKind {
            writer.raw("{"); writer.key("kind"); writer.string(kind)
            writer.raw(","); writer.key("message"); writer.string(record.errorMessage); writer.raw("}")
        } else {
            writer.null()
        }
        writer.raw(","); writer.key("http")
        if let status = record.httpStatus {
            writer.raw("{"); writer.key("status"); writer.int(Int64(status))
            writer.raw(","); writer.key("version"); writer.string(record.httpVersion)
            writer.raw(","); writer.key("content_type"); writer.string(record.contentType)
            writer.raw(","); writer.key("content_length"); writer.int(record.contentLength)
            writer.raw("}")
        } else {
            writer.null()
        }
        let timings = record.timings
        writer.raw(","); writer.key("timings_ms"); writer.raw("{")
        writer.key("resolve"); writer.milliseconds(timings.resolve)
        writer.raw(","); writer.key("connect"); writer.milliseconds(timings.connect)
        writer.raw(","); writer.key("tls"); writer.milliseconds(timings.tls)
        writer.raw(","); writer.key("processing"); writer.milliseconds(timings.processing)
        writer.raw(","); writer.key("transfer"); writer.milliseconds(timings.transfer)
        writer.raw(","); writer.key("total"); writer.milliseconds(timings.total)
        writer.raw("},"); writer.key("tls")
        if let version = record.tlsVersion {
            writer.raw("{"); writer.key("version"); writer.string(version)
            writer.raw(","); writer.key("cipher"); writer.string(record.tlsCipher)
            writer.raw(","); writer.key("alpn"); writer.string(record.alpn)
            writer.raw("}")
        } else {
            writer.null()
        }
        writer.raw(","); writer.key("trust_verdict"); writer.string(record.trustVerdict)
        writer.raw(","); writer.key("pin_verdict"); writer.string(record.pinVerdict)
        writer.raw(","); writer.key("reachability_status"); writer.string(record.reachabilityStatus)
        writer.raw(","); writer.key("resolved_address"); writer.string(record.resolvedAddress)
        writer.raw(","); writer.key("redirect_count"); writer.int(Int64(record.redirectCount))
        writer.raw(","); writer.key("served_chain"); chain(record.servedChain, into: &writer)
        writer.raw(","); writer.key("validated_chain"); chain(record.validatedChain, into: &writer)
        writer.raw(","); writer.key("details")
        if let details = record.detailsJSON, let data = details.data(using: .utf8),
           (try? JSONSerialization.jsonObject(with: data)) is [String: Any] {
            // As stored (like the exporter), re-encoded only when the text spans lines: an event is one line.
            if data.contains(0x0A) || data.contains(0x0D) { writer.rawBytes(oneLine(data)) } else { writer.rawBytes(data) }
        } else {
            writer.null()
        }
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

    private static func chain(_ certificates: [CertificateRecord], into writer: inout JSONStreamWriter) {
        writer.raw("[")
        for (index, certificate) in certificates.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{"); writer.key("subject"); writer.string(certificate.subject)
            writer.raw(","); writer.key("issuer"); writer.string(certificate.issuer)
            writer.raw(","); writer.key("not_after"); writer.timestamp(certificate.notAfter)
            writer.raw(","); writer.key("sha256"); writer.string(certificate.sha256)
            writer.raw(","); writer.key("spki_pin"); writer.string(certificate.spkiPin)
            writer.raw("}")
        }
        writer.raw("]")
    }

    private static func oneLine(_ data: Data) -> [UInt8] {
        guard let object = try? JSONSerialization.jsonObject(with: data),
              let compact = try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]) else {
            return Array("null".utf8)
        }
        return Array(compact)
    }
}
