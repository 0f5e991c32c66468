import CLibMNL
import CNetlink
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A thread inside the namespace that sets a link's `IFF_UP` through its own netlink socket on request and
/// reports the monotonic time taken just before the request was sent.
final class LinkToggler: @unchecked Sendable {
    private let request = NSCondition()
    private var command: Bool?
    private var done = true
    private var sentAt = 0.0
    private var error: Int32 = 0

    /// Starts the thread; it enters `/var/run/netns/NAMESPACE` and toggles link `index`.
    func start(namespace: String, index: Int32) {
        let thread = Thread { [self] in
            let fd = open("/var/run/netns/\(namespace)", O_RDONLY)
            guard fd >= 0, cnl_setns_net(fd) == 0 else { fail("setns into \(namespace) failed") }
            close(fd)
            guard let nl = mnl_socket_open(NETLINK_ROUTE), mnl_socket_bind(nl, 0, pid_t(MNL_SOCKET_AUTOPID)) == 0
            else { fail("netlink socket failed") }
            var buf = [UInt8](repeating: 0, count: 8192)
            var seq: UInt32 = 1
            while true {
                request.lock()
                while command == nil { request.wait() }
                let up = command!
                request.unlock()
                seq += 1
                let len = cnl_build_setlink_up(&buf, buf.count, index, up, seq)
                let t0 = monotonicNow()
                var rc: Int32 = 0
                if mnl_socket_sendto(nl, buf, len) < 0 { rc = errno } else {
                    let n = mnl_socket_recvfrom(nl, &buf, buf.count)
                    if n < 0 { rc = errno } else if cnl_nlmsg_error_code(buf) != 0 { rc = -cnl_nlmsg_error_code(buf) }
                }
                request.lock()
                sentAt = t0
                error = rc
                command = nil
                done = true
                request.broadcast()
                request.unlock()
            }
        }
        thread.start()
    }

    /// Sets the link up or down; returns the time just before the request went out.
    func toggle(up: Bool) -> Double {
        request.lock()
        command = up
        done = false
        request.broadcast()
        while !done { request.wait() }
        let t0 = sentAt
        let rc = error
        request.unlock()
        if rc != 0 { fail("RTM_NEWLINK failed: errno \(rc)") }
        return t0
    }
}
