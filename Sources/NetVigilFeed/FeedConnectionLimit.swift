import HummingbirdCore
import NetVigilSystem

/// The feed's connection cap (`feed.max_connections`): beyond it new connections wait in the kernel's accept queue.
/// When the last connection closes, freed heap is given back (`MemoryRelease`), so a burst of clients leaves no
/// lasting growth.
struct FeedConnectionLimit: AvailableConnectionsDelegate {
    let maxConnections: Int
    private var open = 0

    init(maxConnections: Int) {
        self.maxConnections = maxConnections
    }

    mutating func connectionOpened() {
        open += 1
    }

    mutating func connectionClosed() {
        open -= 1
        if open == 0 { MemoryRelease.trimSoon() }
    }

    func isAcceptingNewConnections() -> Bool {
        open < maxConnections
    }
}
