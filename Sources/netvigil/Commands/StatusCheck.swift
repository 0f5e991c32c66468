/// `netvigil status --check`: a `/v1/status` document fails when a target is down or an alert fires.
struct StatusCheck {
    /// Names of the targets whose status is `down`.
    let downTargets: [String]
    /// `target: kind` of every firing alert.
    let firingAlerts: [String]

    init(document: StatusDocument) {
        let targets = document.targets ?? []
        downTargets = targets.filter { $0.status == "down" }.map { $0.name ?? "?" }
        firingAlerts = targets.flatMap { target in
            (target.firingAlerts ?? []).map { "\(target.name ?? "?"): \($0.kind ?? "?")" }
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
