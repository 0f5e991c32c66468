import Foundation
import NetVigilStore

/// Renders a `/v1/status` document for a terminal. Reads the document loosely: a field the daemon does not send
/// (an older or newer daemon) shows as `-` instead of failing.
struct StatusTable {
    let document: [String: Any]
    let feed: String
    let now: Date

    func render() -> String {
        var lines = [summary()]
        if let health = document["health"] as? [String: Any], health["healthy"] as? Bool == false {
            let problems = health["problems"] as? [String] ?? []
            lines.append("UNHEALTHY: " + (problems.isEmpty ? "see /healthz" : problems.joined(separator: "; ")))
        }
        let targets = document["targets"] as? [[String: Any]] ?? []
        lines.append("")
        if targets.isEmpty {
            lines.append("no probe targets")
        } else {
            var rows = [["TARGET", "STATUS", "LAST PROBE", "HTTP", "PIN", "DAYS LEFT", "ALERTS", "REASON"]]
            rows += targets.map(targetRow)
            lines += Self.align(rows)
            lines += Self.addressLines(targets)
        }
        let reachability = document["reachability"] as? [[String: Any]] ?? []
        if !reachability.isEmpty || document["captive_portal"] is [String: Any] {
            lines.append("")
            lines += reachability.map(reachabilityLine)
            if let portal = document["captive_portal"] as? [String: Any] {
                var line = "captive portal: \(portal["state"] as? String ?? "-")"
                if let status = portal["http_status"] as? Int { line += " (HTTP \(status))" }
                if let message = portal["message"] as? String, !message.isEmpty { line += ": \(message)" }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func summary() -> String {
        var parts = ["netvigil \(document["version"] as? String ?? "?") at \(feed)"]
        if let uptime = document["uptime_seconds"] as? Double { parts.append("up \(Self.duration(uptime))") }
        if let store = document["store"] as? [String: Any] {
            if let results = store["probe_results"] as? Int { parts.append("\(results) results stored") }
            if let pending = store["alerts_pending"] as? Int, pending > 0 { parts.append("\(pending) alerts pending delivery") }
        }
        return parts.joined(separator: ", ")
    }

    private func targetRow(_ target: [String: Any]) -> [String] {
        let last = target["last_result"] as? [String: Any]
        var status = target["status"] as? String ?? "-"
        if let failures = target["consecutive_failures"] as? Int, failures > 1, status == "down" { status += " (\(failures)x)" }
        let probedAt = (target["last_probe_at"] as? String) ?? (last?["time"] as? String)
        let age = probedAt.flatMap(Self.parseTime).map { Self.age(of: $0, now: now) } ?? "never"
        let http = (last?["http_status"] as? Int).map(String.init) ?? "-"
        let pin = last?["pin_verdict"] as? String ?? "-"
        let days = (last?["certificate_days_left"] as? Int).map(String.init) ?? "-"
        let alerts = (target["firing_alerts"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
        // An up target with nothing to note has no reason (the page's "HTTP 200" is the HTTP column here).
        let words = StatusReason.words(for: target)
        let reason = status == "up" && (words.hasPrefix("HTTP ") || words == "responding") ? "-" : words
        return [target["name"] as? String ?? "?", status, age, http, pin, days, alerts.isEmpty ? "-" : alerts.joined(separator: ","), reason]
    }

    private func reachabilityLine(_ evaluation: [String: Any]) -> String {
        var line = "reachability \(evaluation["target"] as? String ?? "?"): \(evaluation["status"] as? String ?? "-")"
        var via: [String] = []
        if let interface = evaluation["interface"] as? String { via.append(interface) }
        if let kind = evaluation["interface_kind"] as? String { via.append(kind) }
        if !via.isEmpty { line += " via \(via.joined(separator: ", "))" }
        if let flags = evaluation["flags"] as? [String], !flags.isEmpty { line += " [\(flags.joined(separator: ","))]" }
        return line
    }

    /// Left-aligned columns two spaces apart, without trailing spaces.
    static func align(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
    }

    /// An RFC 3339 time of the document (parsed without a formatter: an `ISO8601DateFormatter` per target row was
    /// most of the command's time at 10,000 targets).
    static func parseTime(_ text: String) -> Date? {
        Timestamp.parseRFC3339(text)?.date
    }

    /// `4 s ago`, `3 min ago`, `3 h 12 min ago`, `9 days ago` (`just now` under a second, `in the future` for clock
    /// skew).
    static func age(of date: Date, now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        if seconds < -1 { return "in the future" }
        if seconds < 1 { return "just now" }
        return duration(seconds) + " ago"
    }

    /// As the status page says it: `45 s`, `3 min`, `3 h 12 min`, `9 days` (`2 days 5 h` under a week).
    static func duration(_ seconds: Double) -> String {
        let whole = max(0, Int(seconds.rounded()))
        if whole < 90 { return "\(whole) s" }
        let minutes = Int((Double(whole) / 60).rounded())
        if minutes < 60 { return "\(minutes) min" }
        let hours = minutes / 60
        if hours < 48 { return "\(hours) h" + (minutes % 60 > 0 ? " \(minutes % 60) min" : "") }
        let days = hours / 24
        return "\(days) days" + (days < 7 && hours % 24 > 0 ? " \(hours % 24) h" : "")
    }
}
