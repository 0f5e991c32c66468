import Foundation

/// The lines of `ip monitor link` as they arrive, and per toggle the first line of any link, the first
/// line of the watched link, and the first line of the watched link that shows the expected state.
final class LinkMonitorLog: @unchecked Sendable {
    /// Arrival times of one round (nil: no such line before the timeout).
    struct Round {
        var anyLink: Double?
        var link: Double?
        var linkInState: Double?
    }

    private let condition = NSCondition()
    private var link = ""
    private var stateText = ""
    private var round = Round()
    private var armed = false

    /// Starts a round for `link`; it is complete when a line for `link` contains `stateText`.
    func arm(link: String, stateText: String) {
        condition.lock()
        self.link = link
        self.stateText = stateText
        round = Round()
        armed = true
        condition.unlock()
    }

    /// One line of `ip monitor link`, e.g. `3: va@vb: <BROADCAST,MULTICAST,UP,LOWER_UP> ... state UP ...`.
    func record(line: String, at time: Double) {
        let name = Self.linkName(line)
        condition.lock()
        if armed {
            if round.anyLink == nil { round.anyLink = time }
            if let name, name == link {
                if round.link == nil { round.link = time }
                if round.linkInState == nil, line.contains(stateText) {
                    round.linkInState = time
                    armed = false
                    condition.broadcast()
                }
            }
        }
        condition.unlock()
    }

    /// Waits until the round is complete (or `timeout`).
    func wait(timeout: Double) -> Round {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer {
            armed = false
            condition.unlock()
        }
        while round.linkInState == nil {
            if !condition.wait(until: deadline) { break }
        }
        return round
    }

    /// The interface name of an `ip monitor link` line (`[Deleted ]IDX: NAME[@PEER]: ...`).
    static func linkName(_ line: String) -> Substring? {
        var rest = Substring(line)
        if rest.hasPrefix("Deleted ") { rest = rest.dropFirst(8) }
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        let afterIndex = rest[rest.index(after: colon)...].drop { $0 == " " }
        guard let end = afterIndex.firstIndex(where: { $0 == "@" || $0 == ":" }) else { return nil }
        return afterIndex[..<end]
    }
}
