import Dispatch
import Foundation
import Logging
import NetVigilConcurrency
import ServiceLifecycle

/// Makes SIGTERM and SIGINT end the daemon within `deadline`, whatever state it is in.
///
/// The service group stops gracefully on the same signals (flushing the store writer, `STOPPING=1`); this is the
/// backstop for when that cannot finish (probes that ignore cancellation, a wedged executor). It runs on a
/// Dispatch queue, outside Swift concurrency's pool, so it works even when that pool is stuck:
/// - during start-up (before ``running()``), a signal ends the process at once (exit 130/143);
/// - once running, the first signal arms a timer: after `deadline` the process exits with 70 (EX_SOFTWARE), logging
///   what it could not flush (`report`); a second signal exits at once the same way;
/// - a shutdown that starts without a signal (a service failed) arms the same timer through ``Watch``.
final class ShutdownDeadline: @unchecked Sendable {
    private let deadline: Duration
    private let logger: Logger
    private let queue = DispatchQueue(label: "netvigil.shutdown-deadline")
    private var sources: [DispatchSourceSignal] = []
    // Touched only on `queue`.
    private var state = ShutdownDeadlineState()
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
            state.running()
            self.report = report
        }
    }

    /// The service group began to stop, whatever the reason: the process ends within `deadline` from now on.
    func shutdownBegan() {
        queue.async { self.perform(self.state.shutdownBegan(), reason: "") }
    }

    private func received(_ signalNumber: Int32) {
        let name = signalNumber == SIGINT ? "SIGINT" : "SIGTERM"
        switch state.signalReceived() {
        case .exitDuringStartUp:
            logger.notice("\(name) during start-up: exiting")
            exit(128 + signalNumber)
        case let action:
            perform(action, reason: "second \(name)")
        }
    }

    private func perform(_ action: ShutdownDeadlineState.Action, reason: String) {
        switch action {
        case .none, .exitDuringStartUp:
            break
        case .startTimer:
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(deadline.inNanoseconds))) {
                self.hardExit("graceful shutdown took longer than \(self.deadline.components.seconds) s")
            }
        case .exitNow:
            hardExit(reason)
        }
    }

    private func hardExit(_ reason: String) {
        let unflushed = report()
        logger.critical("stopping now: \(reason)", metadata: unflushed.isEmpty ? [:] : ["not flushed": "\(unflushed)"])
        fflush(nil)  // every open stream: the log line must get out before _exit
        _exit(CLIFailure.Code.software.rawValue)
    }
}

extension ShutdownDeadline {
    /// The last service of the group, so the first to hear of graceful shutdown: it arms the deadline when the group
    /// starts to stop, also when a failed service (not a signal) stopped it, or when the group is cancelled.
    struct Watch: Service {
        let deadline: ShutdownDeadline

        func run() async {
            try? await gracefulShutdown()  // returns on graceful shutdown, throws on cancellation: both mean stopping
            deadline.shutdownBegan()
        }
    }
}
