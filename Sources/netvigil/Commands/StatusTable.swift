import Foundation
import NetVigilStore

/// Renders a `/v1/status` document for a terminal. Reads the document loosely: a field the daemon does not send
/// (an older or newer daemon) shows as `-` instead of failing.
struct StatusTable {
    let document: StatusDocument
    let feed: String
    let now: Date

    func render() -> String {
        var lines = [summary()]
        if let health = document.health, health.healthy == false {
            let problems = health.problems ?? []
            lines.append("UNHEALTHY: " + (problems.isEmpty ? "see /healthz" : problems.joined(separator: "; ")))
        }
        let targets = document.targets ?? []
        lines.append("")
        if targets.isEmpty {
            lines.append("no probe targets")
        } else {
            var rows = [["TARGET", "STATUS", "LAST PROBE", "HTTP", "PIN", "DAYS LEFT", "ALERTS", "REASON"]]
            rows += targets.map(targetRow)
            lines += Self.align(rows)
            lines += Self.addressLines(targets)
        }
        let reachability = document.reachability ?? []
        if !reachability.isEmpty || document.captivePortal != nil {
            lines.append("")
            lines += reachability.map(reachabilityLine)
            if let portal = document.captivePortal {
                var line = "captive portal: \(portal.state ?? "-")"
                if let status = portal.httpStatus { line += " (HTTP \(status))" }
                if let message = portal.message, !message.isEmpty { line += ": \(message)" }
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func summary() -> String {
        var parts = ["netvigil \(document.version ?? "?") at \(feed)"]
        if let uptime = document.uptimeSeconds { parts.append("up \(Self.duration(uptime))") }
        if let store = document.store {
            if let results = store.probeResults { parts.append("\(results) results stored") }
            if let pending = store.alertsPending, pending > 0 { parts.append("\(pending) alerts pending delivery") }
        }
        return parts.joined(separator: ", ")
    }

    private func targetRow(_ target: StatusDocument.Target) -> [String] {
        let last = target.lastResult
        var status = target.status ?? "-"
        if let failures = target.consecutiveFailures, failures > 1, status == "down" { status += " (\(failures)x)" }
        let probedAt = target.lastProbeAt ?? last?.time
        let age = probedAt.flatMap(Self.parseTime).map { Self.age(of: $0, now: now) } ?? "never"
        let http = last?.httpStatus.map(String.init) ?? "-"
        let pin = last?.pinVerdict ?? "-"
        let days = last?.certificateDaysLeft.map(String.init) ?? "-"
        let alerts = (target.firingAlerts ?? []).compactMap(\.kind)
        // An up target with nothing to note has no reason (the page's "HTTP 200" is the HTTP column here).
        let words = StatusReason.words(for: target)
        let reason = status == "up" && (words.hasPrefix("HTTP ") || words == "responding") ? "-" : words
        return [target.name ?? "?", status, age, http, pin, days, alerts.isEmpty ? "-" : alerts.joined(separator: ","), reason]
    }

    private func reachabilityLine(_ evaluation: StatusDocument.Reachability) -> String {
        var line = "reachability \(evaluation.target ?? "?"): \(evaluation.status ?? "-")"
        var via: [String] = []
        if let interface = evaluation.interface { via.append(interface) }
        if let kind = evaluation.interfaceKind { via.append(kind) }
        if !via.isEmpty { line += " via \(via.joined(separator: ", "))" }
        if let flags = evaluation.flags, !flags.isEmpty { line += " [\(flags.joined(separator: ","))]" }
        return line
    }

    /// Left-aligned columns two spaces apart, without trailing spaces. Rows of plain ASCII cells (the usual case)
    /// are laid out byte by byte; other rows through Foundation's `padding(toLength:)`, as before (at 10,000 targets
    /// its bridging for every cell took longer than all the rest of the table).
    static func align(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            if row.allSatisfy(isPlainASCII) { return asciiLine(row, widths: widths) }
            return row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
    }

    /// ASCII without CR (CR LF is one character of two bytes): one byte, one UTF-16 unit and one character each.
    private static func isPlainASCII(_ cell: String) -> Bool {
        cell.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D }
    }

    /// A row of plain ASCII cells as the Foundation path lays it out: each cell but the last padded with spaces to
    /// its column's width (never longer: the width is the column's widest cell), then spaces and tabs trimmed at
    /// both ends.
    private static func asciiLine(_ row: [String], widths: [Int]) -> String {
        var bytes: [UInt8] = []
        for (index, cell) in row.enumerated() {
            if index > 0 { bytes += [0x20, 0x20] }
            bytes += cell.utf8
            if index < row.count - 1 { bytes += repeatElement(0x20, count: max(0, widths[index] - cell.utf8.count)) }
        }
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(decoding: bytes[first...last], as: UTF8.self)
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
