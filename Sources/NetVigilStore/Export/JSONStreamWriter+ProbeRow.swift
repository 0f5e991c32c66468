extension JSONStreamWriter {
    /// Writes a probe row's fields, without braces, in `ProbeColumn.jsonSpecs` order: the columns of a `ProbeColumn.Group`
    /// become one nested object (`null` when its lead column is NULL). `leadingComma` when fields come before
    /// (the export's `id`).
    ///
    /// The one writer of probe rows: the export (stored rows) and the feed's events (records) both use it, so their
    /// keys, order and formatting cannot drift apart.
    mutating func probeFields<Row: ProbeRowSource>(_ row: Row, leadingComma: Bool) throws(Row.Failure) {
        var needsComma = leadingComma
        var open: ProbeColumn.Group?
        var openIsNull = false
        var firstInGroup = false
        for spec in ProbeColumn.jsonSpecs {
            if spec.group != open {
                if open != nil, !openIsNull { raw("}") }
                open = spec.group
                openIsNull = false
                if let group = spec.group {
                    if needsComma { raw(",") }
                    needsComma = true
                    key(group.key)
                    if let lead = group.lead, row.isNull(lead) {
                        null()
                        openIsNull = true
                    } else {
                        raw("{")
                        firstInGroup = true
                    }
                }
            }
            if open != nil {
                if openIsNull { continue }
                if !firstInGroup { raw(",") }
                firstInGroup = false
            } else {
                if needsComma { raw(",") }
                needsComma = true
            }
            key(spec.key)
            let column = spec.column
            switch spec.value {
            case .timestamp: timestamp(row.integer(column).map(Timestamp.init(milliseconds:)))
            case .text: row.writeText(column, to: &self)
            case .integer: int(row.integer(column))
            case .milliseconds: milliseconds(row.milliseconds(column))
            case .chain: try row.writeChain(column, to: &self)
            case .object: row.writeObject(column, to: &self)
            case .array: row.writeArray(column, to: &self)
            }
        }
        if open != nil, !openIsNull { raw("}") }
    }

    /// A certificate of a chain array: `{"subject":…,"issuer":…,"not_after":…,"sha256":…,"spki_pin":…}`.
    mutating func certificate(subject: String, issuer: String, notAfter: Timestamp, sha256: String, spkiPin: String) {
        raw("{"); key("subject"); string(subject)
        raw(","); key("issuer"); string(issuer)
        raw(","); key("not_after"); timestamp(notAfter)
        raw(","); key("sha256"); string(sha256)
        raw(","); key("spki_pin"); string(spkiPin)
        raw("}")
    }
}
