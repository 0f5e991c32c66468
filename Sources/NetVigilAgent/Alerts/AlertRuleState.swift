import NetVigilStore

/// The state machine of one (target, rule) pair.
///
/// `threshold` consecutive bad results fire; while firing, a reminder goes out every `reminder`, and a report that
/// differs from every report sent inside the reminder window goes out at once (identical ones do not: TrustKit's
/// dedupe); `resolveThreshold` consecutive good results resolve. Neutral results change nothing.
struct AlertRuleState {
    /// What a step asks the engine to send.
    enum Notification: Equatable {
        /// Started firing.
        case firing(message: String)
        /// Still firing: reminder window elapsed (`reminder == true`) or a new report.
        case stillFiring(message: String, reminder: Bool)
        /// Stopped firing.
        case resolved(message: String)
    }

    private(set) var isFiring = false
    private(set) var since: Timestamp?
    private(set) var message = ""
    private var badStreak = 0
    private var goodStreak = 0
    /// The last time a firing notice (first, reminder or new report) went out.
    private var lastSent: Timestamp?
    /// Reports sent while firing, by fingerprint, with when.
    private var sentReports: [String: Timestamp] = [:]
    /// Restored after a restart: the report sent before it is unknown, so the next one is taken as that one.
    private var restored = false
    static let reportMemory = 64

    init() {}

    /// Not firing and no bad result counted: every later step goes exactly as from `init()` (the good streak and
    /// the last message only matter while firing).
    var isQuiet: Bool { !isFiring && badStreak == 0 }

    /// A state that is already firing (restored from the outbox after a restart).
    init(firingSince since: Timestamp, lastSent: Timestamp, message: String, threshold: Int) {
        isFiring = true
        self.since = since
        self.lastSent = lastSent
        self.message = message
        badStreak = threshold
        restored = true
    }

    /// Feeds one observation; returns what to send, if anything.
    mutating func step(_ observation: AlertObservation, rule: AlertRule, now: Timestamp) -> Notification? {
        switch observation {
        case .neutral:
            return nil
        case .good:
            goodStreak += 1
            badStreak = 0
            guard isFiring, goodStreak >= rule.resolveThreshold else { return nil }
            let previous = message
            isFiring = false
            since = nil
            lastSent = nil
            sentReports.removeAll()
            restored = false
            return .resolved(message: previous)
        case .bad(let text, let fingerprint):
            badStreak += 1
            goodStreak = 0
            message = text
            if !isFiring {
                guard badStreak >= rule.threshold else { return nil }
                isFiring = true
                since = now
                remember(fingerprint, at: now)
                return .firing(message: text)
            }
            let window = rule.reminder.map(ConfigDuration.milliseconds)
            if let window, let lastSent, now.milliseconds - lastSent.milliseconds >= window {
                remember(fingerprint, at: now)
                return .stillFiring(message: text, reminder: true)
            }
            if restored {
                // The report that fired before the restart is unknown: take this one as it, do not page again.
                restored = false
                sentReports[fingerprint] = lastSent ?? now
                return nil
            }
            if let sent = sentReports[fingerprint] {
                // Identical report: sent before and (with reminders on) still inside the window.
                if window == nil || now.milliseconds - sent.milliseconds < window! { return nil }
            }
            remember(fingerprint, at: now)
            return .stillFiring(message: text, reminder: false)
        }
    }

    private mutating func remember(_ fingerprint: String, at now: Timestamp) {
        lastSent = now
        if sentReports.count >= Self.reportMemory, sentReports[fingerprint] == nil,
           let oldest = sentReports.min(by: { $0.value < $1.value })?.key {
            sentReports.removeValue(forKey: oldest)
        }
        sentReports[fingerprint] = now
    }
}
