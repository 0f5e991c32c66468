import NetVigilProbeModel

extension ProbeRecord {
    /// The `findings` column: a JSON array of `{"code","severity","certificate","message"}` objects (the keys and
    /// order of `netvigil probe --json`), `[]` for a judged chain without findings, NULL when `findings` is nil.
    var findingsJSON: String? {
        guard let findings else { return nil }
        guard !findings.isEmpty else { return "[]" }
        var writer = JSONStreamWriter(output: MemoryOutput(), flushThreshold: 16 * 1_024)
        writer.raw("[")
        for (index, finding) in findings.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{"); writer.key("code"); writer.string(finding.code)
            writer.raw(","); writer.key("severity"); writer.string(finding.severity.rawValue)
            writer.raw(","); writer.key("certificate"); writer.int(Int64(finding.certificate))
            writer.raw(","); writer.key("message"); writer.string(finding.message)
            writer.raw("}")
        }
        writer.raw("]")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `findings` within `Bounds`: the first `Bounds.findings` of them, each message cut to
    /// `Bounds.findingMessageBytes`.
    static func boundedFindings(_ findings: [TrustFinding]?) -> [TrustFinding]? {
        findings.map { list in
            list.prefix(Bounds.findings).map { finding in
                guard finding.message.utf8.count > Bounds.findingMessageBytes else { return finding }
                return TrustFinding(code: finding.code, certificate: finding.certificate,
                                    message: bounded(finding.message, Bounds.findingMessageBytes) ?? finding.message,
                                    severity: finding.severity)
            }
        }
    }

    /// Whether `boundedFindings` would change anything.
    var findingsExceedBounds: Bool {
        guard let findings else { return false }
        return findings.count > Bounds.findings || findings.contains { $0.message.utf8.count > Bounds.findingMessageBytes }
    }
}
