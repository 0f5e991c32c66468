import Foundation
import NetVigilTestSupport
import XCTest

/// The test servers' ports: never the kernel's own picks, never the same twice, free when handed out.
final class FreePortTests: XCTestCase {
    func testPortsAreDistinctFreeAndBelowTheEphemeralRange() throws {
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let ephemeralStart = try XCTUnwrap(range.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) })
        let ports = (0..<200).map { _ in ProcessRunner.freePort() }
        XCTAssertEqual(Set(ports).count, ports.count, "a port was handed out twice")
        for port in ports {
            XCTAssertTrue((1024..<ephemeralStart).contains(port), "\(port) is in the kernel's ephemeral range")
        }
        // Free: a listener can take each of them.
        for port in ports.prefix(20) {
            let listener = try LoopbackListener(port: port, reuseAddress: false)
            XCTAssertEqual(listener.port, port)
            listener.close()
        }
    }
}
