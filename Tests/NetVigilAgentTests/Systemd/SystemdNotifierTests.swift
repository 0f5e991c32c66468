import Foundation
import NetVigilAgent
import NetVigilTestSupport
import XCTest

/// The notify protocol against real AF_UNIX datagram sockets.
final class SystemdNotifierTests: XCTestCase {
    func testSendsToAPathSocket() async throws {
        let directory = try TemporaryDirectory()
        let listener = try NotifySocketListener(path: directory.path("notify"))
        let notifier = try XCTUnwrap(try SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address]))
        try notifier.send([.ready, .status("ready: feed on 127.0.0.1:9337")])
        let ready = await listener.receive(timeout: 2)
        XCTAssertEqual(ready, "READY=1\nSTATUS=ready: feed on 127.0.0.1:9337\n")
    }

    func testSendsToAnAbstractSocket() async throws {
        let listener = try NotifySocketListener()
        XCTAssertTrue(listener.address.hasPrefix("@"))
        let notifier = try SystemdNotifier(address: listener.address)
        try notifier.send(.watchdog)
        try notifier.send(.stopping)
        let ping = await listener.receive(timeout: 2)
        XCTAssertEqual(ping, "WATCHDOG=1\n")
        let stopping = await listener.receive(timeout: 2)
        XCTAssertEqual(stopping, "STOPPING=1\n")
    }

    func testMessagesRenderAsAssignments() {
        XCTAssertEqual(SystemdNotifyMessage.status("two\nlines\r\nhere").assignment, "STATUS=two lines here")
        XCTAssertEqual(SystemdNotifyMessage.reloading(monotonicMicroseconds: 42).assignment, "RELOADING=1\nMONOTONIC_USEC=42")
        XCTAssertEqual(SystemdNotifyMessage.ready.assignment, "READY=1")
    }

    func testUnsetSocketMeansNoNotifier() throws {
        XCTAssertNil(try SystemdNotifier(environment: [:]))
        XCTAssertNil(try SystemdNotifier(environment: ["NOTIFY_SOCKET": ""]))
    }

    func testInvalidAddressesAreOneLineErrors() {
        for address in ["relative/path", "@", "/" + String(repeating: "x", count: 120)] {
            XCTAssertThrowsError(try SystemdNotifier(address: address), address) { error in
                let notifyError = error as? SystemdNotifyError
                XCTAssertEqual(notifyError?.kind, .invalidAddress)
                XCTAssertTrue("\(error)".hasPrefix("NOTIFY_SOCKET="), "\(error)")
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
    }

    func testSendingToAMissingSocketFailsWithTheAddress() throws {
        let directory = try TemporaryDirectory()
        let notifier = try SystemdNotifier(address: directory.path("nobody-listens"))
        XCTAssertThrowsError(try notifier.send(.ready)) { error in
            XCTAssertEqual((error as? SystemdNotifyError)?.kind, .send)
            XCTAssertTrue("\(error)".contains("nobody-listens"), "\(error)")
        }
    }

    func testWatchdogFollowsUsecAndPid() {
        let own = getpid()
        XCTAssertEqual(SystemdWatchdog(environment: ["WATCHDOG_USEC": "30000000"])?.pingInterval, .seconds(15))
        XCTAssertEqual(SystemdWatchdog(environment: ["WATCHDOG_USEC": "400000", "WATCHDOG_PID": "\(own)"], processID: own)?
            .pingInterval, .milliseconds(200))
        XCTAssertNil(SystemdWatchdog(environment: ["WATCHDOG_USEC": "400000", "WATCHDOG_PID": "\(own + 1)"], processID: own))
        XCTAssertNil(SystemdWatchdog(environment: ["WATCHDOG_USEC": "0"]))
        XCTAssertNil(SystemdWatchdog(environment: ["WATCHDOG_USEC": "soon"]))
        XCTAssertNil(SystemdWatchdog(environment: [:]))
    }
}
