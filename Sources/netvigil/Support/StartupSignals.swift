import Foundation

/// Signal dispositions while `run` starts, before the service group traps SIGINT and SIGTERM itself.
enum StartupSignals {
    /// Restores the default action of SIGINT and SIGTERM: a shell starts background jobs with SIGINT ignored, and the
    /// daemon must still stop on Ctrl-C or SIGTERM while it loads its configuration and opens the store.
    static func restoreDefaults() {
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
