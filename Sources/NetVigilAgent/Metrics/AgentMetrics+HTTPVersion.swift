extension AgentMetrics {
    /// The value of `netvigil_probe_http_version` for a result's `http_version` (`HTTP/1.1` → 1.1, `HTTP/2` → 2,
    /// as blackbox_exporter's `probe_http_version`); 0 without a response or for text that is not a version.
    static func httpVersionValue(_ version: String?) -> Double {
        guard let version else { return 0 }
        let number = version.hasPrefix("HTTP/") ? version.dropFirst(5) : Substring(version)
        return Double(number) ?? 0
    }
}
