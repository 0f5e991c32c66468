import NetVigilStore

extension AgentMetrics {
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
    /// address (and path), labels `target`, `address` and, for the paths of a `source:` target, `interface`; the
    /// per-target series keep meaning the whole target. Series of addresses no longer in the tick (DNS changed) or of
    /// skipped paths are removed; an empty list removes all.
    public func addressProbesFinished(target: String, records: [ProbeRecord]) {
        let rows = records.compactMap { row -> TargetSeriesTable.AddressEntry? in
            guard let address = row.resolvedAddress, row.outcome != .skipped else { return nil }
            return TargetSeriesTable.AddressEntry(
                address: address, interface: row.interface, success: row.outcome == .ok ? 1 : 0,
                trusted: Self.trustedValue(row.trustVerdict), pinMatch: Self.pinMatchValue(row.pinVerdict))
        }
        targets.withLock { $0.recordAddresses(target: target, rows: rows) }
    }
}
