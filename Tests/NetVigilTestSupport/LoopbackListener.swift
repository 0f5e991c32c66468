import Foundation

/// A listening TCP socket on 127.0.0.1, for tests that need a port held or a server of their own.
public struct LoopbackListener: Sendable {
    public struct SetupError: Error, CustomStringConvertible {
        public let description: String
    }

    public let descriptor: Int32
    public let port: Int

    /// - Parameters:
    ///   - port: 0 for a free port the kernel picks.
    ///   - reuseAddress: `SO_REUSEADDR`, as servers bind.
    public init(port: Int = 0, backlog: Int32 = 16, reuseAddress: Bool = true) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if reuseAddress {
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let reason = String(cString: strerror(errno))
            Foundation.close(fd)
            throw SetupError(description: "cannot listen on 127.0.0.1:\(port): \(reason)")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        descriptor = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    public func close() {
        Foundation.close(descriptor)
    }
}
