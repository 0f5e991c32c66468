extension StatusTable {
    /// One line per `addresses: all` target: each address with its status, and for a failed one its error kind
    /// and pin verdict, e.g. `edge addresses: 192.0.2.1 up, 192.0.2.2 down (trust, pin mismatch)`.
    static func addressLines(_ targets: [[String: Any]]) -> [String] {
        targets.compactMap { target in
            guard let addresses = target["addresses"] as? [[String: Any]], !addresses.isEmpty else { return nil }
            let parts = addresses.map { entry in
                // A path (`source: { interfaces: }`) is named with its interface: `192.0.2.1 via wwan0`.
                let path = (entry["address"] as? String ?? "?") + ((entry["interface"] as? String).map { " via \($0)" } ?? "")
                var text = "\(path) \(entry["status"] as? String ?? "-")"
                if entry["status"] as? String == "down" {
                    var reasons = [entry["error_kind"] as? String ?? "failed"]
                    if let pin = entry["pin_verdict"] as? String, pin.hasPrefix("mismatch") { reasons.append("pin \(pin)") }
                    text += " (\(reasons.joined(separator: ", ")))"
                }
                return text
            }
            return "\(target["name"] as? String ?? "?") addresses: " + parts.joined(separator: ", ")
        }
    }
}
