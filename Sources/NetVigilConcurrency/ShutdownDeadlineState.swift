/// The decisions of a daemon's shutdown deadline, apart from its signals and timers: what a SIGTERM/SIGINT, or a
/// stop that began without one (a service failed), means for the process.
///
/// - During start-up a signal ends the process at once.
/// - Once running, the first signal, or the start of any stop, starts the deadline timer (once); the process exits
///   when it fires.
/// - A second signal ends the process at once; a stop that began on its own does not count as the first signal.
public struct ShutdownDeadlineState: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case none
        /// Start the timer that ends the process at the deadline.
        case startTimer
        /// A signal during start-up: exit now, as the signal would have.
        case exitDuringStartUp
        /// A second signal: exit now, as at the deadline.
        case exitNow
    }

    private var isRunning = false
    private var signalled = false
    private var timerStarted = false

    public init() {}

    /// The daemon's services run: from now on a signal means graceful shutdown first.
    public mutating func running() {
        isRunning = true
    }

    public mutating func signalReceived() -> Action {
        guard isRunning else { return .exitDuringStartUp }
        guard !signalled else { return .exitNow }
        signalled = true
        return startTimer()
    }

    /// The services began to stop, for any reason.
    public mutating func shutdownBegan() -> Action {
        startTimer()
    }

    private mutating func startTimer() -> Action {
        guard !timerStarted else { return .none }
        timerStarted = true
        return .startTimer
    }
}
