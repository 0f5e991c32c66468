import NetVigilStore

extension AgentMetrics {
    /// The per-address series (labels `target`, `address`, and `interface` for the paths of a `source:` target) of
    /// `addresses: all` and multi-path targets; the per-target series keep meaning the whole target.
    static let addressMetricNames: Set<String> = [Name.addressProbeSuccess, Name.addressTLSTrusted, Name.addressTLSPinMatch]

    /// The per-address series' descriptions (in the catalogue after `netvigil_probes_total`).
    static let addressCatalogue: [MetricDescription] = [
        (Name.addressProbeSuccess, "1 if the last probe of this address succeeded, 0 if it failed."),
        (Name.addressTLSTrusted, "1 if the chain this address served was trusted, 0 if not; absent without a TLS verdict."),
        (Name.addressTLSPinMatch, "the pin verdict of this address, valued as netvigil_tls_pin_match; absent without a pin verdict."),
    ].map {
        MetricDescription(name: $0.0, kind: .gauge, labels: ["target", "address", "interface"],
                          help: "addresses: all and source: { interfaces: } targets (interface: the path's, only on those): " + $0.1)
    }

    /// Records the per-address rows of one `addresses: all` tick of `target`: success, trust and pin verdict per
    /// address (and path). Series of addresses no longer in the tick (DNS changed) or of skipped paths are removed; an
    /// empty list removes all.
    public func addressProbesFinished(target: String, records: [ProbeRecord]) {
        let rows = records.filter { $0.resolvedAddress != nil && $0.outcome != .skipped }
        let current = Set(rows.compactMap { row in row.resolvedAddress.map { [$0, row.interface ?? ""] } })
        // A target that had no per-address series and has none now (every target probing one address) leaves the
        // series alone: the removal below looks at every series, which with 10,000 targets costs milliseconds per probe.
        guard swapAddressSeries(of: target, to: !rows.isEmpty) || !rows.isEmpty else { return }
        removeGauges { name, labels in
            Self.addressMetricNames.contains(name) && labels.count >= 4 && labels[0] == "target" && labels[1] == target
                && !current.contains([labels[3], labels.count >= 6 && labels[4] == "interface" ? labels[5] : ""])
        }
        for row in rows {
            guard let address = row.resolvedAddress else { continue }
            let labels = [("target", target), ("address", address)] + (row.interface.map { [("interface", $0)] } ?? [])
            setGauge(Name.addressProbeSuccess, labels, row.outcome == .ok ? 1 : 0)
            setOrRemoveGauge(Name.addressTLSTrusted, labels, Self.trustedValue(row.trustVerdict))
            setOrRemoveGauge(Name.addressTLSPinMatch, labels, Self.pinMatchValue(row.pinVerdict))
        }
    }
}
