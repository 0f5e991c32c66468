import Dispatch
import Foundation
import Logging
import NetVigilConcurrency

/// Makes SIGTERM and SIGINT end the daemon within `deadline`, whatever state it is in.
///
/// The service group stops gracefully on the same signals (flushing the store writer, `STOPPING=1`); this is the
/// backstop for when that cannot finish (probes that ignore cancellation, a wedged executor). It runs on a
/// Dispatch queue, outside Swift concurrency's pool, so it works even when that pool is stuck:
/// - during start-up (before ``running()``), a signal ends the process at once (exit 130/143);
/// - once running, the first signal arms a timer: after `deadline` the process exits with 70 (EX_SOFTWARE), logging
///   what it could not flush (`report`); a second signal exits at once the same way.
final class ShutdownDeadline: @unchecked Sendable {
    private let deadline: Duration
    private let logger: Logger
    private let queue = DispatchQueue(label: "netvigil.shutdown-deadline")
    private var sources: [DispatchSourceSignal] = []
    // Touched only on `queue`.
    private var isRunning = false
    private var armed = false
    private var report: @Sendable () -> String = { "" }

    init(deadline: Duration, logger: Logger) {
        self.deadline = deadline
        self.logger = logger
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { self.received(signalNumber) }  // lives as long as the process
            source.resume()
            sources.append(source)
        }
    }

    /// The daemon runs: from now on a signal means graceful shutdown first; `report` says what is not flushed yet.
    func running(report: @escaping @Sendable () -> String) {
        queue.sync {
            isRunning = true
            self.report = report
        }
    }

    private func received(_ signalNumber: Int32) {
        let name = signalNumber == SIGINT ? "SIGINT" : "SIGTERM"
        guard isRunning else {
            logger.notice("\(name) during start-up: exiting")
            exit(128 + signalNumber)
        }
        if armed {
            hardExit("second \(name)")
            return
        }
        armed = true
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(deadline.inNanoseconds))) {
            self.hardExit("graceful shutdown took longer than \(self.deadline.components.seconds) s")
        }
    }

    private func hardExit(_ reason: String) {
        let unflushed = report()
        logger.critical("stopping now: \(reason)", metadata: unflushed.isEmpty ? [:] : ["not flushed": "\(unflushed)"])
        fflush(nil)  // every open stream: the log line must get out before _exit
        _exit(CLIFailure.Code.software.rawValue)
    }
}
