import NetVigilStore

extension ProbeRecord {
    /// How alerts, reports and the status name the path of a per-address or per-path row: `192.0.2.1`,
    /// `192.0.2.1 via wwan0`, or `via wwan0` (a skipped path, no address); nil when the row names neither.
    public var pathName: String? {
        switch (resolvedAddress, interface) {
        case let (address?, interface?): "\(address) via \(interface)"
        case let (address?, nil): address
        case let (nil, interface?): "via \(interface)"
        case (nil, nil): nil
        }
    }
}
