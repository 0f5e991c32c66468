/// Phase durations of one probe in milliseconds (µs precision), summed over redirect hops; nil when a phase did not
/// run. The request stack measures them, the store keeps them (`*_ms` columns; `starttls` in the row's details),
/// every JSON form shows them.
///
/// `Codable` as synthesized (a phase that did not run has no key): the `/v1/status` form. The export and
/// `netvigil probe --json` write every phase, null when it did not run.
public struct PhaseTimings: Sendable, Equatable, Codable {
    public var resolve: Double?
    public var connect: Double?
    /// Connect to the proxy and, for a tunnel, its CONNECT answer (proxied probes only; they have no `connect`).
    public var proxy: Double?
    public var tls: Double?
    /// Greeting and plaintext negotiation before TLS (STARTTLS-style schemes only).
    public var starttls: Double?
    /// Downloading revocation data (CRLs) the caches did not hold; not part of `tls`.
    public var revocation: Double?
    /// Request sent → first response byte.
    public var processing: Double?
    public var transfer: Double?
    public var total: Double?

    public init(resolve: Double? = nil, connect: Double? = nil, tls: Double? = nil,
                processing: Double? = nil, transfer: Double? = nil, total: Double? = nil, proxy: Double? = nil,
                starttls: Double? = nil, revocation: Double? = nil) {
        self.proxy = proxy
        self.revocation = revocation
        self.resolve = resolve
        self.connect = connect
        self.tls = tls
        self.starttls = starttls
        self.processing = processing
        self.transfer = transfer
        self.total = total
    }
}
