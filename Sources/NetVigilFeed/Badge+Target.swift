import Foundation
import NetVigilAgent

/// The three badges of a target, from its snapshot.
extension Badge {
    /// `status.svg`: the target's name and up / down / skipped / pending.
    static func status(_ snapshot: TargetSnapshot) -> Badge {
        let color: Color = switch snapshot.status {
        case .up: .brightGreen
        case .down: .red
        case .skipped, .pending: .grey
        }
        return Badge(label: snapshot.name, message: snapshot.status.rawValue, color: color)
    }

    /// `uptime-24h.svg`: the share of successful probes over 24 hours (skipped ones excluded).
    static func uptime24h(_ snapshot: TargetSnapshot) -> Badge {
        guard let share = snapshot.uptime.lastDay else { return Badge(label: "uptime 24h", message: "no data", color: .grey) }
        let percent = share * 100
        // Rounded down, so 99.996 % never reads as 100 %.
        let text = percent >= 100 ? "100%"
            : percent >= 99 ? String(format: "%.2f%%", (percent * 100).rounded(.down) / 100)
            : String(format: "%.1f%%", (percent * 10).rounded(.down) / 10)
        let color: Color = percent >= 99.9 ? .brightGreen : percent >= 99 ? .green : percent >= 95 ? .yellow : percent >= 90 ? .orange : .red
        return Badge(label: "uptime 24h", message: text, color: color)
    }

    /// `cert-days.svg`: whole days left on the served chain's earliest-expiring certificate.
    static func certificateDays(_ snapshot: TargetSnapshot) -> Badge {
        guard let days = snapshot.lastResult?.certificateDaysLeft else {
            return Badge(label: "certificate", message: "no TLS result", color: .grey)
        }
        if days < 0 { return Badge(label: "certificate", message: "expired", color: .red) }
        let color: Color = days >= 30 ? .brightGreen : days >= 14 ? .yellow : days >= 7 ? .orange : .red
        return Badge(label: "certificate", message: days == 1 ? "1 day" : "\(days) days", color: color)
    }
}
