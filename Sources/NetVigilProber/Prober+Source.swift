import Foundation
import NIOCore
import NIOPosix

extension Prober {
    /// `initializer`, run after the socket is bound to the interface of `source` (SO_BINDTODEVICE on the fresh,
    /// not yet connected socket; since Linux 5.7 that first binding needs no capability). Other sources and none
    /// leave `initializer` as it is.
    static func bindingSource(_ source: ProbeSource?,
                              _ initializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
        guard let name = source?.interfaceName else { return initializer }
        return { channel in
            guard let provider = channel as? any SocketOptionProvider else {
                return channel.eventLoop.makeFailedFuture(ProbeError(.connect, "cannot bind to interface \(name): the channel has no socket"))
            }
            return provider.unsafeSetSocketOption(level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET),
                                                  name: NIOBSDSocket.Option(rawValue: SO_BINDTODEVICE),
                                                  value: InterfaceNameBuffer(name))
                .flatMapErrorThrowing { error in throw sourceFailure(error, source: .interface(name)) ?? error }
                .flatMap { initializer(channel) }
        }
    }

    /// `bootstrap` bound to the local address of an `.address` source before it connects to `destination`.
    static func bound(_ bootstrap: ClientBootstrap, source: ProbeSource?, destination: SocketAddress) throws(ProbeError) -> ClientBootstrap {
        guard case .address(let text)? = source else { return bootstrap }
        guard let local = try? SocketAddress(ipAddress: text, port: 0) else {
            throw ProbeError(.connect, "source address \(text) is not an IP address")
        }
        guard local.protocol == destination.protocol else {
            throw ProbeError(.connect, "source address \(text) cannot reach \(destination.ipAddress ?? "?"): "
                             + "the families differ (set ip: \(local.protocol == .inet6 ? "6" : "4") on the target)")
        }
        return bootstrap.bind(to: local)
    }

    /// The one-line error of a socket that could not take `source`: the capability when the kernel refused the
    /// binding, the missing interface or address; nil for other errors.
    static func sourceFailure(_ error: any Error, source: ProbeSource?) -> ProbeError? {
        guard let source, let ioError = error as? IOError else { return nil }
        switch (source, ioError.errnoCode) {
        case (.interface(let name), EPERM), (.interface(let name), EACCES):
            return ProbeError(.connect, "binding to interface \(name) needs CAP_NET_RAW on this kernel "
                              + "(SO_BINDTODEVICE: \(String(cString: strerror(ioError.errnoCode))); Linux 5.7 and later need none)")
        case (.interface(let name), ENODEV):
            return ProbeError(.connect, "no interface named \(name) (SO_BINDTODEVICE: no such device)")
        case (.address(let address), EADDRNOTAVAIL):
            return ProbeError(.connect, "source address \(address) is not an address of this host")
        default:
            return nil
        }
    }
}

/// An interface name as `SO_BINDTODEVICE` takes it: `IFNAMSIZ` (16) bytes, NUL-terminated.
struct InterfaceNameBuffer: Sendable {
    var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)
        = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// The first 15 bytes of `name`, then NULs.
    init(_ name: String) {
        withUnsafeMutableBytes(of: &bytes) { buffer in
            for (index, byte) in name.utf8.prefix(ProbeSource.maxInterfaceNameLength).enumerated() { buffer[index] = byte }
        }
    }
}
