/// Reading the rows view of `/v1/status` (`?view=rows`): each target an array whose positions `target_columns` names.
/// An array decodes faster than an object of the same fields, whose every key `JSONDecoder` indexes; with thousands
/// of targets that indexing was most of `netvigil status`'s time.
extension StatusDocument {
    /// A position of a row, by its `target_columns` name; the table reads these and skips the others.
    enum Column {
        case name, status, consecutiveFailures, lastProbeAt, firingAlerts, addresses
        case time, outcome, errorKind, httpStatus, trustVerdict, pinVerdict, reachabilityStatus, certificateDaysLeft
        /// A column the table does not show (one from a newer daemon).
        case other

        init(_ name: String) {
            switch name {
            case "name": self = .name
            case "status": self = .status
            case "consecutive_failures": self = .consecutiveFailures
            case "last_probe_at": self = .lastProbeAt
            case "firing_alerts": self = .firingAlerts
            case "addresses": self = .addresses
            case "last_result.time": self = .time
            case "last_result.outcome": self = .outcome
            case "last_result.error_kind": self = .errorKind
            case "last_result.http_status": self = .httpStatus
            case "last_result.trust_verdict": self = .trustVerdict
            case "last_result.pin_verdict": self = .pinVerdict
            case "last_result.reachability_status": self = .reachabilityStatus
            case "last_result.certificate_days_left": self = .certificateDaysLeft
            default: self = .other
            }
        }
    }

    /// The targets of a rows document, each row read position by position as `columns` name them: a value of another
    /// type is nil, a row that is not an array (or is shorter than `columns`) leaves the rest nil. Nil when `targets`
    /// is not an array.
    static func targets(rows container: KeyedDecodingContainer<CodingKeys>, columns: [String]) -> [Target]? {
        guard var rows = try? container.nestedUnkeyedContainer(forKey: .targets) else { return nil }
        let layout = columns.map(Column.init)
        var targets: [Target] = []
        targets.reserveCapacity(rows.count ?? 0)
        while !rows.isAtEnd {
            if var row = try? rows.nestedUnkeyedContainer() {
                targets.append(Target(row: &row, layout: layout))
            } else {
                guard rows.skipValue() else { break }
                targets.append(Target())
            }
        }
        return targets
    }
}

extension StatusDocument.Target {
    /// A target from one row of the rows view; its last result is nil when the row holds none of its members.
    init(row: inout any UnkeyedDecodingContainer, layout: [StatusDocument.Column]) {
        self.init()
        var last = StatusDocument.LastResult()
        var hasLast = false
        /// A member of the last result: any one present means the target has one.
        func member<Value>(_ value: Value?) -> Value? {
            if value != nil { hasLast = true }
            return value
        }
        columns: for column in layout where !row.isAtEnd {
            switch column {
            case .name: name = row.looseString()
            case .status: status = row.looseString()
            case .consecutiveFailures: consecutiveFailures = row.looseInt()
            case .lastProbeAt: lastProbeAt = row.looseString()
            case .firingAlerts: firingAlerts = row.looseAlerts()
            case .addresses: addresses = row.loose([StatusDocument.Address].self)
            case .time: last.time = member(row.looseString())
            case .outcome: _ = member(row.looseString())
            case .errorKind: last.errorKind = member(row.looseString())
            case .httpStatus: last.httpStatus = member(row.looseInt())
            case .trustVerdict: last.trustVerdict = member(row.looseString())
            case .pinVerdict: last.pinVerdict = member(row.looseString())
            case .reachabilityStatus: last.reachabilityStatus = member(row.looseString())
            case .certificateDaysLeft: last.certificateDaysLeft = member(row.looseInt())
            case .other: if !row.skipValue() { break columns }
            }
        }
        if hasLast { lastResult = last }
    }
}

extension UnkeyedDecodingContainer {
    // Each reader below consumes exactly one value, whatever it holds: null and a value of another type are nil.
    // `decodeNil()` goes first, as a failed `decode` costs a thrown error. Strings and integers (most cells) go to the
    // decoder's typed entry points, as the keyed ``Loose`` overloads do, rather than through the generic one.

    /// The next value as a string.
    mutating func looseString() -> String? {
        if (try? decodeNil()) != false { return nil }
        if let value = try? decode(String.self) { return value }
        skipValue()
        return nil
    }

    /// The next value as an integer.
    mutating func looseInt() -> Int? {
        if (try? decodeNil()) != false { return nil }
        if let value = try? decode(Int.self) { return value }
        skipValue()
        return nil
    }

    /// The next value as a `Value`.
    mutating func loose<Value: Decodable>(_ type: Value.Type) -> Value? {
        if (try? decodeNil()) != false { return nil }
        if let value = try? decode(Value.self) { return value }
        skipValue()
        return nil
    }

    /// The next value as alert kinds (`firing_alerts`): an alert whose kind is not a string has a nil kind.
    mutating func looseAlerts() -> [StatusDocument.Alert]? {
        if (try? decodeNil()) != false { return nil }
        guard var kinds = try? nestedUnkeyedContainer() else {
            skipValue()
            return nil
        }
        var alerts: [StatusDocument.Alert] = []
        while !kinds.isAtEnd {
            let before = kinds.currentIndex
            var alert = StatusDocument.Alert()
            alert.kind = kinds.looseString()
            alerts.append(alert)
            if kinds.currentIndex == before { break }
        }
        return alerts
    }

    /// Passes over the next value, whatever it is; false at the end.
    @discardableResult
    mutating func skipValue() -> Bool {
        (try? decode(AnyValue.self)) != nil
    }
}

/// Any JSON value, decoded as nothing: what ``UnkeyedDecodingContainer/skipValue()`` passes over.
private struct AnyValue: Decodable {
    init(from decoder: any Decoder) throws {}
}
