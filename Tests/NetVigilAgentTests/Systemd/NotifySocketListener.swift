import Foundation
import XCTest

/// A real `AF_UNIX` datagram socket standing in for systemd's notification socket (path or abstract name).
/// `receive` blocks in `poll(2)` on a Dispatch thread, never on the Swift concurrency pool.
final class NotifySocketListener: @unchecked Sendable {
    /// The `NOTIFY_SOCKET` value for the process under test.
    let address: String
    private let descriptor: Int32
    private let path: String?

    /// Binds `path` (a file-system socket) or, when `nil`, a random abstract name.
    init(path: String? = nil) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let bytes: [UInt8]
        if let path {
            bytes = Array(path.utf8) + [0]
            address = path
        } else {
            let name = "netvigil-test-\(UUID().uuidString)"
            bytes = [0] + Array(name.utf8)
            address = "@" + name
        }
        self.path = path
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t((MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2) + bytes.count)
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard result == 0 else {
            let error = errno
            close(descriptor)
            throw POSIXError(.init(rawValue: error) ?? .EIO)
        }
    }

    /// The next datagram's text, or `nil` when none arrives within `timeout`.
    func receive(timeout: TimeInterval) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.receiveBlocking(timeout: timeout)) }
        }
    }

    private func receiveBlocking(timeout: TimeInterval) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1_000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Receives datagrams until one satisfies `predicate`; returns everything received so far and whether one matched.
    func receive(until predicate: (String) -> Bool, timeout: TimeInterval) async -> (matched: Bool, received: [String]) {
        let deadline = Date().addingTimeInterval(timeout)
        var received: [String] = []
        while Date() < deadline {
            guard let datagram = await receive(timeout: deadline.timeIntervalSinceNow) else { break }
            received.append(datagram)
            if predicate(datagram) { return (true, received) }
        }
        return (false, received)
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }
}
