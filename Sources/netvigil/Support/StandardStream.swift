#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import NetVigilSystem

/// Standard output and standard error, written with write(2).
///
/// Foundation's `FileHandle.write(_:)` traps on any error, and SwiftNIO ignores SIGPIPE for the whole process
/// (systemd's `IgnoreSIGPIPE=yes` default does too). So a reader that went away (journald restarting, a pipe into
/// `head`) or a full disk under a redirected log would kill the daemon with SIGILL. Here a failed write is an errno.
enum StandardStream {
    case output, error

    /// How long a full non-blocking stream may hold up one write before it is given up, in milliseconds.
    static let fullStreamWait: Int32 = 1_000

    var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }

    /// Writes all of `text`; returns the errno that stopped it, nil once everything is written.
    @discardableResult
    func write(_ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { write($0) }
    }

    /// Writes all of `data`; returns the errno that stopped it, nil once everything is written.
    @discardableResult
    func write(_ data: Data) -> Int32? {
        data.withUnsafeBytes { write($0.bindMemory(to: UInt8.self)) }
    }

    /// Writes all of `bytes`, retrying interrupted writes and waiting (up to `fullStreamWait`) on a full stream.
    func write(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let written = SystemCall.retryingOnInterrupt { Glibc.write(descriptor, base + offset, bytes.count - offset) }
            if written >= 0 {
                offset += written
                continue
            }
            let code = errno
            guard code == EAGAIN else { return code }
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            if SystemCall.retryingOnInterrupt({ poll(&entry, 1, Self.fullStreamWait) }) <= 0 { return code }
        }
        return nil
    }

    /// Writes command output; a stream that cannot take it ends the command with exit 74 and one line on stderr.
    func emit(_ text: String) throws {
        if let code = write(text) { throw failure(code) }
    }

    /// Writes command output; a stream that cannot take it ends the command with exit 74 and one line on stderr.
    func emit(_ data: Data) throws {
        if let code = write(data) { throw failure(code) }
    }

    private func failure(_ code: Int32) -> CLIFailure {
        CLIFailure(.ioError, "cannot write to standard \(self == .output ? "output" : "error"): \(String(cString: strerror(code)))")
    }
}
