import NetVigilReachability
import NetVigilStore

extension TargetSeriesTable {
    private typealias Name = AgentMetrics.Name

    /// `# HELP` and `# TYPE` by metric name, from `AgentMetrics.catalogue`.
    private static let descriptions = Dictionary(uniqueKeysWithValues: AgentMetrics.catalogue.map { ($0.name, $0) })

    /// Appends the table's series in the Prometheus text format (0.0.4) as swift-prometheus writes its own: per
    /// non-empty family a `# HELP` and a `# TYPE` line, then one line per series, labels in the order they were
    /// given, gauge values as Swift prints a `Double` (`1.0`), counters as integers. A family without series has no
    /// lines at all. Order is left to the caller (the feed sorts families and series).
    func render(into buffer: inout [UInt8]) {
        let ran = probes.compactMap { target, entry in entry.lastRun.map { (target, entry.labelSuffix, $0) } }
        family(Name.probeSuccess, into: &buffer) { buffer in
            for (target, suffix, run) in ran { buffer.appendSample(Name.probeSuccess, target, nil, suffix, run.success) }
        }
        family(Name.probeSkipped, into: &buffer) { buffer in
            for (target, entry) in probes {
                buffer.appendSample(Name.probeSkipped, target, nil, entry.labelSuffix, entry.skipped)
            }
        }
        family(Name.probeDuration, into: &buffer) { buffer in
            for (target, suffix, run) in ran {
                for (phase, seconds) in zip(Self.phaseNames, run.durations) {
                    guard let seconds else { continue }
                    buffer.appendSample(Name.probeDuration, target, ("phase", phase), suffix, seconds)
                }
            }
        }
        let values: [(String, (LastRun) -> Double?)] = [
            (Name.probeHTTPStatusCode, \.httpStatus), (Name.probeHTTPVersion, \.httpVersion), (Name.tlsTrusted, \.trusted),
            (Name.tlsPinMatch, \.pinMatch), (Name.tlsEarliestCertExpiry, \.earliestExpiry), (Name.tlsFindings, \.findings),
        ]
        for (name, value) in values {
            family(name, into: &buffer) { buffer in
                for (target, suffix, run) in ran {
                    if let value = value(run) { buffer.appendSample(name, target, nil, suffix, value) }
                }
            }
        }
        family(Name.tlsServedKeyInfo, into: &buffer) { buffer in
            for (target, suffix, run) in ran {
                if let pin = run.servedPin { buffer.appendSample(Name.tlsServedKeyInfo, target, ("pin", pin), suffix, 1) }
            }
        }
        family(Name.probesTotal, into: &buffer) { buffer in
            for (target, entry) in probes {
                for (outcome, count) in zip(ProbeOutcome.allCases, entry.outcomes) {
                    buffer.appendSeries(Name.probesTotal, target, ("outcome", outcome.rawValue), entry.labelSuffix)
                    buffer.append(contentsOf: String(count).utf8)
                    buffer.append(UInt8(ascii: "\n"))
                }
            }
        }
        renderAddresses(into: &buffer)
        renderReachability(into: &buffer)
    }

    private func renderAddresses(into buffer: inout [UInt8]) {
        let values: [(String, (AddressEntry) -> Double?)] = [
            (Name.addressProbeSuccess, \.success), (Name.addressTLSTrusted, \.trusted), (Name.addressTLSPinMatch, \.pinMatch),
        ]
        for (name, value) in values {
            family(name, into: &buffer) { buffer in
                for (target, rows) in addresses {
                    for row in rows {
                        guard let value = value(row) else { continue }
                        var labels: [UInt8] = []
                        labels.appendLabel("address", row.address, first: false)
                        if let interface = row.interface { labels.appendLabel("interface", interface, first: false) }
                        buffer.appendSample(name, target, nil, labels, value)
                    }
                }
            }
        }
    }

    private func renderReachability(into buffer: inout [UInt8]) {
        family(Name.reachabilityStatus, into: &buffer) { buffer in
            for (target, entry) in reachability { buffer.appendSample(Name.reachabilityStatus, target, nil, [], entry.status) }
        }
        family(Name.reachabilityFlag, into: &buffer) { buffer in
            for (target, entry) in reachability {
                for (flag, name) in ReachabilityFlags.named {
                    buffer.appendSample(Name.reachabilityFlag, target, ("flag", name), [], entry.flags.contains(flag) ? 1 : 0)
                }
            }
        }
    }

    /// Appends `name`'s `# HELP` and `# TYPE` lines and what `samples` appends, or nothing when that is nothing.
    private func family(_ name: String, into buffer: inout [UInt8], _ samples: (inout [UInt8]) -> Void) {
        let start = buffer.count
        if let description = Self.descriptions[name] {
            buffer.append(contentsOf: "# HELP \(name) ".utf8)
            for byte in description.help.utf8 {
                if byte == UInt8(ascii: "\\") { buffer.append(byte) }
                buffer.append(byte)
            }
            buffer.append(contentsOf: "\n# TYPE \(name) \(description.kind.rawValue)\n".utf8)
        }
        let headerEnd = buffer.count
        samples(&buffer)
        if buffer.count == headerEnd { buffer.removeSubrange(start...) }
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
        append(contentsOf: value.description.utf8)
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
