/// `netvigil status --check`: a `/v1/status` document fails when a target is down or an alert fires.
struct StatusCheck {
    /// Names of the targets whose status is `down`.
    let downTargets: [String]
    /// `target: kind` of every firing alert.
    let firingAlerts: [String]

    init(document: [String: Any]) {
        let targets = document["targets"] as? [[String: Any]] ?? []
        downTargets = targets.filter { $0["status"] as? String == "down" }.map { $0["name"] as? String ?? "?" }
        firingAlerts = targets.flatMap { target in
            (target["firing_alerts"] as? [[String: Any]] ?? []).map { "\(target["name"] as? String ?? "?"): \($0["kind"] as? String ?? "?")" }
        }
    }

    /// One line naming what failed, nil when the check passes.
    var failure: String? {
        var parts: [String] = []
        if !downTargets.isEmpty {
            parts.append("\(downTargets.count) target\(downTargets.count == 1 ? "" : "s") down (\(downTargets.joined(separator: ", ")))")
        }
        if !firingAlerts.isEmpty {
            parts.append("\(firingAlerts.count) alert\(firingAlerts.count == 1 ? "" : "s") firing (\(firingAlerts.joined(separator: ", ")))")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
