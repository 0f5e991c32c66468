import Foundation
import Synchronization

/// A small blocking TCP server on 127.0.0.1 that answers every connection with a scripted behaviour,
/// on its own thread. For malformed and hostile responses.
public final class HostileServer: Sendable {
    public let port: Int
    private let listener: Int32
    /// Whether `stop()` ran, and the connections still open.
    private let state = Mutex<(stopped: Bool, clients: [Int32])>((false, []))

    /// - Parameter behaviour: called with the connected socket after the request head was read (or at once when
    ///   `readRequest` is false); the socket is closed afterwards.
    public init(readRequest: Bool = true, behaviour: @escaping @Sendable (Int32) -> Void) throws {
        let socket = try LoopbackListener()
        port = socket.port
        listener = socket.descriptor
        let listener = socket.descriptor
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                let accepted = state.withLock { state -> Bool in
                    if state.stopped { return false }
                    state.clients.append(client)
                    return true
                }
                if !accepted {
                    close(client)
                    return
                }
                Thread.detachNewThread {
                    if readRequest { Self.readHead(client) }
                    behaviour(client)
                    self.finish(client)
                }
            }
        }
    }

    /// Reads until the end of the request head (or EOF).
    public static func readHead(_ fd: Int32) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { return }
            received += buffer[0..<count]
        }
    }

    /// Writes all of `text`.
    public static func send(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            offset += count
        }
    }

    public static func send(_ fd: Int32, _ text: String) { send(fd, Array(text.utf8)) }

    private func finish(_ client: Int32) {
        let owned = state.withLock { state -> Bool in
            guard let index = state.clients.firstIndex(of: client) else { return false }  // stop() already shut it down
            state.clients.remove(at: index)
            return true
        }
        guard owned else { return }
        shutdown(client, Int32(SHUT_RDWR))
        close(client)
    }

    public func stop() {
        let (wasStopped, open) = state.withLock { state -> (Bool, [Int32]) in
            defer { state = (true, []) }
            return state
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for client in open { shutdown(client, Int32(SHUT_RDWR)) }
    }

    deinit { stop() }
}
