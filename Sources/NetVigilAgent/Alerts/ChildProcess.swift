import Foundation
import NetVigilConcurrency
import NetVigilSystem
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program to completion with bytes on stdin, capturing the start of its output, and kills its whole
/// process group when it outlives its timeout. Blocking: call it off the cooperative thread pool.
enum ChildProcess {
    /// How the program ended.
    struct Outcome: Sendable, Equatable {
        /// Exit status when it exited.
        var exitCode: Int32?
        /// The signal that ended it.
        var signal: Int32?
        /// True when it was killed for running too long.
        var timedOut: Bool
        /// The first bytes of stdout and stderr together.
        var output: String
    }

    static let outputLimit = 4_096

    /// Spawns `executable` with `arguments` (argv[0] first), `environment` and `input` on stdin.
    /// The child gets default signal dispositions, an empty signal mask and its own process group.
    static func run(executable: String, arguments: [String], environment: [String: String], input: [UInt8],
                    timeout: Duration) throws(AlertDeliveryError) -> Outcome {
        var inputPipe: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        guard pipe(&inputPipe) == 0 else { throw AlertDeliveryError("cannot create a pipe: \(errnoText())") }
        guard pipe(&outputPipe) == 0 else {
            close(inputPipe[0]); close(inputPipe[1])
            throw AlertDeliveryError("cannot create a pipe: \(errnoText())")
        }
        // Other children spawned meanwhile must not inherit these ends (pipe2 is not exported to Swift).
        for fd in inputPipe + outputPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(inputPipe[0])
        close(outputPipe[1])
        guard spawned == 0 else {
            close(inputPipe[1]); close(outputPipe[0])
            throw AlertDeliveryError("cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        return supervise(pid: pid, stdin: inputPipe[1], output: outputPipe[0], input: input, timeout: timeout)
    }

    private static func supervise(pid: pid_t, stdin: Int32, output: Int32, input: [UInt8], timeout: Duration) -> Outcome {
        var stdinFD = stdin
        var outputFD = output
        _ = fcntl(stdinFD, F_SETFL, fcntl(stdinFD, F_GETFL) | O_NONBLOCK)
        _ = fcntl(outputFD, F_SETFL, fcntl(outputFD, F_GETFL) | O_NONBLOCK)
        // A child that closes stdin early must not kill us with SIGPIPE: block it on this thread, drop it afterwards.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        var previousMask = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var zero = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &zero)
            }
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }

        let deadline = ContinuousClock.now.advanced(by: timeout)
        var written = 0
        if input.isEmpty { close(stdinFD); stdinFD = -1 }
        var captured: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8_192)
        var outcome = Outcome(exitCode: nil, signal: nil, timedOut: false, output: "")

        func readAvailable() {
            while outputFD >= 0 {
                let count = buffer.withUnsafeMutableBytes { bytes in
                    SystemCall.retryingOnInterrupt { read(outputFD, bytes.baseAddress, bytes.count) }
                }
                if count > 0 {
                    if captured.count < outputLimit { captured += buffer.prefix(min(count, outputLimit - captured.count)) }
                } else if count == 0 || errno != EAGAIN {
                    close(outputFD)
                    outputFD = -1
                } else {
                    return
                }
            }
        }

        while true {
            var status: Int32 = 0
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid {
                readAvailable()
                outcome.exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
                outcome.signal = (status & 0x7f) != 0 ? status & 0x7f : nil
                break
            }
            let now = ContinuousClock.now
            if now >= deadline {
                kill(-pid, SIGKILL)
                kill(pid, SIGKILL)
                _ = SystemCall.retryingOnInterrupt { waitpid(pid, &status, 0) }
                readAvailable()
                outcome.timedOut = true
                outcome.signal = SIGKILL
                break
            }
            var fds: [pollfd] = []
            if outputFD >= 0 { fds.append(pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)) }
            if stdinFD >= 0 { fds.append(pollfd(fd: stdinFD, events: Int16(POLLOUT), revents: 0)) }
            let left = deadline - now
            let waitMilliseconds = Int32(min(50, max(1, left.inMilliseconds)))
            _ = poll(&fds, nfds_t(fds.count), waitMilliseconds)
            for entry in fds where entry.revents != 0 {
                if entry.fd == outputFD {
                    readAvailable()
                } else if entry.fd == stdinFD {
                    let count = input.withUnsafeBytes { bytes in
                        SystemCall.retryingOnInterrupt { write(stdinFD, bytes.baseAddress! + written, input.count - written) }
                    }
                    if count > 0 { written += count }
                    if written >= input.count || (count < 0 && errno != EAGAIN) {
                        close(stdinFD)
                        stdinFD = -1
                    }
                }
            }
        }
        if stdinFD >= 0 { close(stdinFD) }
        if outputFD >= 0 { close(outputFD) }
        outcome.output = String(decoding: captured, as: UTF8.self)
        return outcome
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
