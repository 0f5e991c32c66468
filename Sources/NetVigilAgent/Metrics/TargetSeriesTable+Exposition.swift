import NetVigilReachability
import NetVigilStore

extension TargetSeriesTable {
    private typealias Name = AgentMetrics.Name

    /// Which of the table's maps a family walks, and how one target's lines are written.
    enum Lines: Sendable {
        case probe(@Sendable (String, ProbeEntry, inout [UInt8]) -> Void)
        case address(@Sendable (String, [AddressEntry], inout [UInt8]) -> Void)
        case reachability(@Sendable (String, ReachabilityEntry, inout [UInt8]) -> Void)
    }

    /// One metric family of the table: its name and the lines it has for one target.
    struct Family: Sendable {
        let name: String
        let lines: Lines
    }

    /// Every family the table renders, in name order (the order the exposition lists families in).
    ///
    /// Lines are written as swift-prometheus writes its own: labels in the order given, counters as integers, gauge
    /// values by ``PrometheusText/value(_:)`` (`1.0`, `0.000233`), as the registry's are once the exposition has
    /// passed them through it.
    static let families: [Family] = ([
        lastRunFamily(Name.probeSuccess) { $0.success },
        Family(name: Name.probeSkipped, lines: .probe { target, entry, buffer in
            buffer.appendSample(Name.probeSkipped, target, nil, entry.labelSuffix, entry.skipped)
        }),
        Family(name: Name.probeDuration, lines: .probe { target, entry, buffer in
            guard let run = entry.lastRun else { return }
            for (phase, seconds) in zip(phaseNames, run.durations) {
                guard let seconds else { continue }
                buffer.appendSample(Name.probeDuration, target, ("phase", phase), entry.labelSuffix, seconds)
            }
        }),
        lastRunFamily(Name.probeHTTPStatusCode) { $0.httpStatus },
        lastRunFamily(Name.probeHTTPVersion) { $0.httpVersion },
        lastRunFamily(Name.tlsTrusted) { $0.trusted },
        lastRunFamily(Name.tlsPinMatch) { $0.pinMatch },
        lastRunFamily(Name.tlsEarliestCertExpiry) { $0.earliestExpiry },
        lastRunFamily(Name.tlsFindings) { $0.findings },
        Family(name: Name.tlsServedKeyInfo, lines: .probe { target, entry, buffer in
            guard let pin = entry.lastRun?.servedPin else { return }
            buffer.appendSample(Name.tlsServedKeyInfo, target, ("pin", pin), entry.labelSuffix, 1)
        }),
        Family(name: Name.probesTotal, lines: .probe { target, entry, buffer in
            for (outcome, count) in zip(ProbeOutcome.allCases, entry.outcomes) {
                buffer.appendSeries(Name.probesTotal, target, ("outcome", outcome.rawValue), entry.labelSuffix)
                buffer.append(contentsOf: String(count).utf8)
                buffer.append(UInt8(ascii: "\n"))
            }
        }),
        addressFamily(Name.addressProbeSuccess) { $0.success },
        addressFamily(Name.addressTLSTrusted) { $0.trusted },
        addressFamily(Name.addressTLSPinMatch) { $0.pinMatch },
        Family(name: Name.reachabilityStatus, lines: .reachability { target, entry, buffer in
            buffer.appendSample(Name.reachabilityStatus, target, nil, [], entry.status)
        }),
        Family(name: Name.reachabilityFlag, lines: .reachability { target, entry, buffer in
            for (flag, name) in ReachabilityFlags.named {
                buffer.appendSample(Name.reachabilityFlag, target, ("flag", name), [], entry.flags.contains(flag) ? 1 : 0)
            }
        }),
    ] as [Family]).sorted { $0.name < $1.name }

    /// A gauge with one line per target whose last probe that ran has a `value`.
    private static func lastRunFamily(_ name: String, _ value: @escaping @Sendable (LastRun) -> Double?) -> Family {
        Family(name: name, lines: .probe { target, entry, buffer in
            guard let run = entry.lastRun, let value = value(run) else { return }
            buffer.appendSample(name, target, nil, entry.labelSuffix, value)
        })
    }

    /// A gauge with one line per address (and path) row that has a `value`.
    private static func addressFamily(_ name: String, _ value: @escaping @Sendable (AddressEntry) -> Double?) -> Family {
        Family(name: name, lines: .address { target, rows, buffer in
            for row in rows {
                guard let value = value(row) else { continue }
                var labels: [UInt8] = []
                labels.appendLabel("address", row.address, first: false)
                if let interface = row.interface { labels.appendLabel("interface", interface, first: false) }
                buffer.appendSample(name, target, nil, labels, value)
            }
        })
    }

    /// `# HELP` and `# TYPE` by metric name, from `AgentMetrics.catalogue`.
    private static let descriptions = Dictionary(uniqueKeysWithValues: AgentMetrics.catalogue.map { ($0.name, $0) })

    /// Appends `name`'s `# HELP` and `# TYPE` lines.
    static func appendHeader(_ name: String, to buffer: inout [UInt8]) {
        guard let description = descriptions[name] else { return }
        buffer.append(contentsOf: "# HELP \(name) ".utf8)
        for byte in description.help.utf8 {
            if byte == UInt8(ascii: "\\") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(contentsOf: "\n# TYPE \(name) \(description.kind.rawValue)\n".utf8)
    }
}

extension [UInt8] {
    /// Appends `name{target="…"[,own="…"]suffix} ` (the line up to its value).
    mutating func appendSeries(_ name: String, _ target: String, _ own: (String, String)?, _ suffix: [UInt8]) {
        append(contentsOf: name.utf8)
        append(UInt8(ascii: "{"))
        appendLabel("target", target, first: true)
        if let own { appendLabel(own.0, own.1, first: false) }
        append(contentsOf: suffix)
        append(contentsOf: "} ".utf8)
    }

    /// Appends one gauge line.
    mutating func appendSample(_ name: String, _ target: String, _ own: (String, String)?, _ suffix: [UInt8], _ value: Double) {
        appendSeries(name, target, own, suffix)
        append(contentsOf: PrometheusText.value(value).utf8)
        append(UInt8(ascii: "\n"))
    }

    /// Appends `name="value"` (after a comma unless `first`), the value escaped as the text format requires:
    /// backslash, double quote and line feed.
    mutating func appendLabel(_ name: String, _ value: String, first: Bool) {
        if !first { append(UInt8(ascii: ",")) }
        append(contentsOf: name.utf8)
        append(contentsOf: "=\"".utf8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\""): append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\n"): append(contentsOf: #"\n"#.utf8)
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }
}
