import Foundation
import NetVigilTestSupport
import XCTest

/// The test servers' ports: never the kernel's own picks, never the same twice, free when handed out.
final class FreePortTests: XCTestCase {
    func testPortsAreDistinctFreeAndOutsideTheEphemeralRange() throws {
        let text = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let bounds = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        let ephemeral = try XCTUnwrap(bounds.count == 2 ? bounds[0]...bounds[1] : nil)
        if ephemeral.lowerBound < 21_000 && ephemeral.upperBound > 64_536 {
            throw XCTSkip("the ephemeral range \(ephemeral) leaves no room for test ports")
        }
        let ports = (0..<200).map { _ in ProcessRunner.freePort() }
        XCTAssertEqual(Set(ports).count, ports.count, "a port was handed out twice")
        for port in ports {
            XCTAssertFalse(ephemeral.contains(port), "\(port) is in the kernel's ephemeral range \(ephemeral)")
            XCTAssertGreaterThanOrEqual(port, 1024)
        }
        // Free: a listener can take each of them.
        for port in ports.prefix(20) {
            let listener = try LoopbackListener(port: port, reuseAddress: false)
            XCTAssertEqual(listener.port, port)
            listener.close()
        }
    }
}
