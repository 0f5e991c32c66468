import CLibMNL
import CNetlink
import NetVigilSystem
#if canImport(Glibc)
import Glibc
#endif

/// A `NETLINK_ROUTE` socket (libmnl). Not thread-safe: owned by the watcher thread.
final class NetlinkSocket {
    private let handle: OpaquePointer
    let fd: Int32
    private var sequence: UInt32
    private let portID: UInt32
    private let buffer: UnsafeMutableRawBufferPointer
    private let sendBuffer: UnsafeMutableRawBufferPointer
    static let bufferSize = 256 * 1024

    /// Result of one `recv`.
    enum Received {
        case messages(Int)
        case wouldBlock
        /// `ENOBUFS`: the kernel dropped notifications.
        case overrun
        /// A datagram did not fit the buffer (treated like an overrun).
        case truncated
    }

    /// Opens and binds a socket, joins `groups` with `NETLINK_ADD_MEMBERSHIP`, sets the receive buffer.
    init(groups: [UInt32] = [], receiveBufferSize: Int? = nil, forceReceiveBuffer: Bool = true) throws(ReachabilityError) {
        guard let handle = mnl_socket_open(NETLINK_ROUTE) else {
            throw .netlink(operation: "socket", errno: errno)
        }
        if mnl_socket_bind(handle, 0, pid_t(MNL_SOCKET_AUTOPID)) < 0 {
            let code = errno
            mnl_socket_close(handle)
            throw .netlink(operation: "bind", errno: code)
        }
        for group in groups {
            let rc = cnl_socket_add_membership(handle, group)
            if rc < 0 {
                mnl_socket_close(handle)
                throw .netlink(operation: "NETLINK_ADD_MEMBERSHIP \(group)", errno: -rc)
            }
        }
        if let size = receiveBufferSize {
            let rc = cnl_socket_set_rcvbuf(handle, Int32(clamping: size), forceReceiveBuffer)
            if rc < 0 {
                mnl_socket_close(handle)
                throw .netlink(operation: "SO_RCVBUF", errno: -rc)
            }
        }
        self.handle = handle
        fd = mnl_socket_get_fd(handle)
        portID = mnl_socket_get_portid(handle)
        sequence = UInt32(truncatingIfNeeded: time(nil))
        buffer = .allocate(byteCount: Self.bufferSize, alignment: 8)
        sendBuffer = .allocate(byteCount: 64 * 1024, alignment: 8)
    }

    deinit {
        mnl_socket_close(handle)
        buffer.deallocate()
        sendBuffer.deallocate()
    }

    /// One `recv`; blocking unless `dontWait`.
    func receive(dontWait: Bool) throws(ReachabilityError) -> Received {
        let flags = (dontWait ? Int32(MSG_DONTWAIT) : 0) | Int32(MSG_TRUNC)
        let n = SystemCall.retryingOnInterrupt { recv(fd, buffer.baseAddress, buffer.count, flags) }
        if n >= 0 {
            return n > buffer.count ? .truncated : .messages(n)
        }
        switch errno {
        case EAGAIN: return .wouldBlock
        case ENOBUFS: return .overrun
        case let code: throw .netlink(operation: "recv", errno: code)
        }
    }

    /// Calls `body` for each message of the last `receive` that returned `count` bytes.
    func forEachMessage(count: Int, _ body: (UnsafeRawPointer) throws(ReachabilityError) -> Void) throws(ReachabilityError) {
        var remaining = Int32(count)
        var message = UnsafeRawPointer(buffer.baseAddress!)
        while cnl_nlmsg_ok(message, remaining) {
            try body(message)
            message = cnl_nlmsg_next(message, &remaining)
        }
    }

    private func send(length: Int) throws(ReachabilityError) {
        let n = SystemCall.retryingOnInterrupt { mnl_socket_sendto(handle, sendBuffer.baseAddress, length) }
        if n < 0 { throw .netlink(operation: "send", errno: errno) }
    }

    /// Dumps one object type (`RTM_GETLINK`, ...); `body` gets each reply message.
    /// Retries (up to 5 times) when the kernel marks the dump inconsistent (`NLM_F_DUMP_INTR`).
    func dump(type: UInt16, family: UInt8, _ body: (UnsafeRawPointer) -> Void) throws(ReachabilityError) {
        var attempts = 0
        while true {
            attempts += 1
            var collected: [[UInt8]] = []
            let interrupted = try dumpOnce(type: type, family: family) { message in
                let length = Int(cnl_nlmsg_len(message))
                collected.append(Array(UnsafeRawBufferPointer(start: message, count: length)))
            }
            if interrupted && attempts < 5 { continue }
            for message in collected {
                message.withUnsafeBytes { body($0.baseAddress!) }
            }
            return
        }
    }

    private func dumpOnce(type: UInt16, family: UInt8, _ body: (UnsafeRawPointer) -> Void) throws(ReachabilityError) -> Bool {
        sequence &+= 1
        let seq = sequence
        let length = cnl_build_dump(sendBuffer.baseAddress, sendBuffer.count, type, family, seq)
        try send(length: length)
        var interrupted = false
        while true {
            let received = try receive(dontWait: false)
            guard case let .messages(count) = received else {
                if case .wouldBlock = received { continue }
                throw .netlink(operation: "dump receive", errno: ENOBUFS)
            }
            var done = false
            var failure: Int32 = 0
            try forEachMessage(count: count) { message in
                guard cnl_nlmsg_seq(message) == seq, cnl_nlmsg_pid(message) == portID || cnl_nlmsg_pid(message) == 0 else {
                    return
                }
                if cnl_nlmsg_flags(message) & CNL_NLM_F_DUMP_INTR != 0 { interrupted = true }
                switch cnl_nlmsg_type(message) {
                case CNL_NLMSG_DONE: done = true
                case CNL_NLMSG_ERROR:
                    let code = cnl_nlmsg_error_code(message)
                    if code < 0 { failure = -code }
                    done = true
                case CNL_NLMSG_NOOP, CNL_NLMSG_OVERRUN: break
                default: body(message)
                }
            }
            if failure != 0 {
                // Some kernels refuse a family (e.g. IPv6 disabled): treat as an empty dump.
                if failure == EAFNOSUPPORT || failure == EOPNOTSUPP { return false }
                throw .netlink(operation: "dump \(type)", errno: failure)
            }
            if done { return interrupted }
        }
    }

    /// `RTM_GETROUTE` for each address, as `ip route get` (policy rules and tables apply).
    /// Requests are sent in batches; each gets either a route or the errno of the kernel's refusal.
    func lookupRoutes(_ addresses: [IPAddress]) throws(ReachabilityError) -> [RouteLookup] {
        var results = [RouteLookup](repeating: .failure(errno: EIO), count: addresses.count)
        try lookupRoutes(addresses) { slot, lookup in results[slot] = lookup }
        return results
    }

    /// `RTM_GETROUTE` for each address, pipelined: a batch of requests goes out in one `send` (the kernel
    /// answers them all within that call), then the replies are read; `body(index, lookup)` is called as
    /// each reply arrives, so callers can act on the first answers before the last is read. Every index
    /// gets exactly one call.
    func lookupRoutes(
        _ addresses: [IPAddress], _ body: (Int, RouteLookup) throws(ReachabilityError) -> Void
    ) throws(ReachabilityError) {
        var start = 0
        while start < addresses.count {
            let end = min(start + 128, addresses.count)
            var offset = 0
            let firstSeq = sequence &+ 1
            for index in start..<end {
                sequence &+= 1
                let length = addresses[index].withUnsafeBytes { bytes in
                    cnl_build_getroute(sendBuffer.baseAddress! + offset, sendBuffer.count - offset,
                                       addresses[index].family.rawValue,
                                       bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), sequence)
                }
                offset += cnl_nlmsg_align(length)
            }
            try send(length: offset)
            var answered = [Bool](repeating: false, count: end - start)
            var pending = end - start
            while pending > 0 {
                let received = try receive(dontWait: false)
                guard case let .messages(count) = received else {
                    if case .wouldBlock = received { continue }
                    throw .netlink(operation: "route lookup receive", errno: ENOBUFS)
                }
                try forEachMessage(count: count) { (message) throws(ReachabilityError) in
                    let slot = Int(cnl_nlmsg_seq(message) &- firstSeq)
                    guard slot >= 0, slot < end - start, !answered[slot] else { return }
                    let lookup: RouteLookup
                    switch cnl_nlmsg_type(message) {
                    case CNL_NLMSG_ERROR:
                        let code = cnl_nlmsg_error_code(message)
                        lookup = .failure(errno: code < 0 ? -code : EINVAL)
                    case CNL_RTM_NEWROUTE:
                        lookup = NetlinkMessage.route(from: message).map { .route($0) } ?? .failure(errno: EBADMSG)
                    default:
                        return
                    }
                    answered[slot] = true
                    pending -= 1
                    try body(start + slot, lookup)
                }
            }
            start = end
        }
    }

    /// Sets `IFF_UP` of a link, like `ip link set dev X up|down` (used by the benchmark). 0 or errno.
    func setLink(index: Int32, up: Bool) throws(ReachabilityError) {
        sequence &+= 1
        let seq = sequence
        let length = cnl_build_setlink_up(sendBuffer.baseAddress, sendBuffer.count, index, up, seq)
        try send(length: length)
        while true {
            guard case let .messages(count) = try receive(dontWait: false) else { continue }
            var result: Int32?
            try forEachMessage(count: count) { message in
                if cnl_nlmsg_seq(message) == seq, cnl_nlmsg_type(message) == CNL_NLMSG_ERROR {
                    result = -cnl_nlmsg_error_code(message)
                }
            }
            if let result {
                if result != 0 { throw .netlink(operation: "set link", errno: result) }
                return
            }
        }
    }
}
