#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import XCTest
@testable import NetVigilProber

/// `Prober.connectError`: a connect that failed for lack of the agent's own descriptors or memory is
/// `resourceExhausted`, never a failure of the target. (The daemon keeps descriptors in reserve so this should not
/// happen; reaching `EMFILE` for real in a test process can crash it in libdispatch, so the errors are built here.)
final class ConnectErrorTests: XCTestCase {
    private let address = try! SocketAddress(ipAddress: "192.0.2.7", port: 443)

    func testTheAgentsOwnShortagesAreResourceExhausted() {
        for (code, words) in [(EMFILE, "out of file descriptors (EMFILE"), (ENFILE, "ENFILE"), (ENOMEM, "out of memory"),
                              (ENOBUFS, "ENOBUFS")] {
            let error = Prober.connectError(IOError(errnoCode: code, reason: "socket"), address: address, cappedByDeadline: false)
            XCTAssertEqual(error.kind, .resourceExhausted, "errno \(code)")
            XCTAssertTrue(error.message.hasPrefix("cannot connect to 192.0.2.7:443: "), error.message)
            XCTAssertTrue(error.message.contains(words), error.message)
            XCTAssertFalse(error.kind.mayBeNetworkLoss)
        }
    }

    func testTheTargetsFailuresStayTheTargets() {
        let refused = Prober.connectError(IOError(errnoCode: ECONNREFUSED, reason: "connect"), address: address,
                                              cappedByDeadline: false)
        XCTAssertEqual(refused.kind, .connectRefused)
        let unreachable = Prober.connectError(IOError(errnoCode: EHOSTUNREACH, reason: "connect"), address: address,
                                                  cappedByDeadline: false)
        XCTAssertEqual(unreachable.kind, .connect)
    }
}
