extension StatusTable {
    /// One line per `addresses: all` target: each address with its status, and for a failed one its error kind
    /// and pin verdict, e.g. `edge addresses: 192.0.2.1 up, 192.0.2.2 down (trust, pin mismatch)`.
    static func addressLines(_ targets: [StatusDocument.Target]) -> [String] {
        targets.compactMap { target in
            guard let addresses = target.addresses, !addresses.isEmpty else { return nil }
            let parts = addresses.map { entry in
                // A path (`source: { interfaces: }`) is named with its interface: `192.0.2.1 via wwan0`.
                let path = (entry.address ?? "?") + (entry.interface.map { " via \($0)" } ?? "")
                var text = "\(path) \(entry.status ?? "-")"
                if entry.status == "down" {
                    var reasons = [entry.errorKind ?? "failed"]
                    if let pin = entry.pinVerdict, pin.hasPrefix("mismatch") { reasons.append("pin \(pin)") }
                    text += " (\(reasons.joined(separator: ", ")))"
                }
                return text
            }
            return "\(target.name ?? "?") addresses: " + parts.joined(separator: ", ")
        }
    }
}
