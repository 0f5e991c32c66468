import Foundation
@testable import NetVigilReachability
import XCTest

/// The watcher's decisions without sockets: netlink messages, lookups and the clock are Swift values, and
/// every test asserts the exact sequence of actions the state machine returns.
final class WatcherStateMachineTests: XCTestCase {
    private typealias Machine = WatcherStateMachine
    private let start = ContinuousClock.now
    private let date = Date(timeIntervalSince1970: 1_000_000)
    private let targets: [ReachabilityTarget] = [
        .default, .address("10.0.0.9"), .address("10.0.0.10"), .address("10.0.0.11"), .address("10.0.0.12"),
    ]

    /// What the fake kernel answers: lookups by address (others are unreachable) and the IPv4 route dump.
    private struct Kernel {
        var lookups: [IPAddress: RouteLookup] = [:]
        var routes: [RouteInfo] = []
        var hosts: [String: [IPAddress]] = [:]
    }

    // MARK: - Fixtures

    private func ip(_ text: String) -> IPAddress { IPAddress(text)! }

    private func link(_ index: Int32, _ name: String, up: Bool = true) -> NetlinkMessage {
        let flags = up ? LinkInfo.iffUp | LinkInfo.iffRunning | LinkInfo.iffLowerUp : 0
        return .newLink(LinkInfo(
            index: index, name: name, flags: flags, operstate: up ? LinkInfo.operUp : LinkInfo.operDown,
            arphrd: LinkInfo.arphrdEther))
    }

    private func address(_ index: Int32, _ text: String) -> AddressInfo {
        AddressInfo(index: index, address: ip(text), prefixLength: 24)
    }

    private func defaultRoute(via gateway: String, link: Int32 = 2) -> RouteInfo {
        RouteInfo(family: .ipv4, outputInterface: link, gateway: ip(gateway))
    }

    /// A route to 192.0.N.0/24 on eth0 (no target's).
    private func unrelatedRoute(_ third: UInt8) -> NetlinkMessage {
        let route = RouteInfo(family: .ipv4, destination: ip("192.0.\(third).0"), destinationLength: 24, outputInterface: 2)
        return .newRoute(route, replace: false)
    }

    /// eth0 (index 2) up with 10.0.0.2/24 and a default route via 10.0.0.1.
    private var dump: [NetlinkMessage] {
        [
            link(2, "eth0"), .newAddress(address(2, "10.0.0.2")),
            .newRoute(defaultRoute(via: "10.0.0.1"), replace: false),
        ]
    }

    /// Every target's lookup answered with the route via `gateway`.
    private func kernel(via gateway: String = "10.0.0.1") -> Kernel {
        var kernel = Kernel(routes: [defaultRoute(via: gateway)])
        for case let address? in targets.map(\.ipAddress) { kernel.lookups[address] = .route(defaultRoute(via: gateway)) }
        return kernel
    }

    private func machine(_ targets: [ReachabilityTarget]? = nil) -> Machine {
        Machine(
            targets: targets ?? self.targets, interventions: [], hostResolveInterval: .seconds(60),
            linkProbe: { _, _ in (nil, false) })
    }

    /// A machine past its first recompute.
    private func connectedMachine(_ targets: [ReachabilityTarget]? = nil) -> Machine {
        var machine = machine(targets)
        machine.connected(dump: dump)
        machine.commandsReceived([])
        _ = run(&machine, kernel())
        return machine
    }

    /// Performs actions as the shell would until `wait` or `stop`; returns them as text. `pending` answers the
    /// preemption checks in order (then false).
    private func run(
        _ machine: inout Machine, _ kernel: Kernel, at offset: Duration = .zero, pending: [Bool] = []
    ) -> [String] {
        let now = start + offset
        var pending = pending
        var log: [String] = []
        while true {
            let action = machine.nextAction(now: now, date: date)
            log.append(describe(action, now: now))
            switch action {
            case .wait, .stop:
                return log
            case let .lookUpRoutes(addresses):
                for (position, address) in addresses.enumerated() {
                    let lookup = kernel.lookups[address] ?? .failure(errno: ENETUNREACH)
                    log += machine.routeLookedUp(position, lookup).map { describe($0, now: now) }
                }
            case .checkNotifications:
                machine.notificationsPending(pending.isEmpty ? false : pending.removeFirst())
            case let .redumpRoutes(family):
                machine.routesDumped(kernel.routes, family: family, now: now)
            case let .resolveHosts(names):
                for name in names { machine.hostResolved(name, addresses: kernel.hosts[name] ?? [], now: now) }
            case .publish, .reply:
                continue
            }
        }
    }

    private func describe(_ action: Machine.Action, now: ContinuousClock.Instant) -> String {
        switch action {
        case let .lookUpRoutes(addresses): "lookUp " + addresses.map(\.description).joined(separator: " ")
        case .checkNotifications: "check"
        case let .redumpRoutes(family): "redump \(family)"
        case let .resolveHosts(names): "resolve " + names.joined(separator: " ")
        case let .publish(evaluations, thenYield):
            (thenYield ? "publish! " : "publish ")
                + evaluations.map { "\($0.target)=\($0.status)\($0.gateway.map { "@" + $0 } ?? "")" }
                    .joined(separator: " ")
        case let .reply(snapshots, acks): "reply \(snapshots) \(acks)"
        case let .wait(deadline): deadline.map { "wait \(ReachabilityWatcher.milliseconds($0 - now))ms" } ?? "wait"
        case .stop: "stop"
        }
    }

    /// A recompute of every target (after a change) that finds the address targets unreachable, up to the last
    /// lookup.
    private let unreachableInOrder = [
        "lookUp 10.0.0.9",
        "publish! 10.0.0.9=NotReachable",
        "check",
        "lookUp 10.0.0.10 10.0.0.11",
        "publish 10.0.0.10=NotReachable 10.0.0.11=NotReachable",
        "check",
        "lookUp 10.0.0.12",
    ]

    // MARK: - Tests

    func testFirstRecomputeLooksUpInGrowingChunksAndPublishesInGrowingBatches() {
        var machine = machine()
        machine.connected(dump: dump)
        machine.commandsReceived([])
        XCTAssertEqual(run(&machine, kernel()), [
            "lookUp 10.0.0.9",
            "publish! 10.0.0.9=ReachableViaWiFi@10.0.0.1",
            "lookUp 10.0.0.10 10.0.0.11",
            "publish 10.0.0.10=ReachableViaWiFi@10.0.0.1 10.0.0.11=ReachableViaWiFi@10.0.0.1",
            "lookUp 10.0.0.12",
            "publish 10.0.0.12=ReachableViaWiFi@10.0.0.1 default=ReachableViaWiFi@10.0.0.1",
            "wait",
        ])
    }

    func testUnchangedTargetsAreNotPublishedAgain() {
        var machine = connectedMachine()
        // A link no target routes over appears: nothing is affected, one chunk of 4, no evaluation changes.
        _ = machine.nextAction(now: start, date: date)
        machine.notificationReceived(link(3, "eth1"))
        XCTAssertEqual(run(&machine, kernel()), ["lookUp 10.0.0.9 10.0.0.10 10.0.0.11 10.0.0.12", "wait"])

        // A refresh looks everything up again and only acknowledges.
        _ = machine.nextAction(now: start, date: date)
        machine.commandsReceived([.refresh(ack: 7)])
        XCTAssertEqual(run(&machine, kernel()), [
            "lookUp 10.0.0.9", "check", "lookUp 10.0.0.10 10.0.0.11", "check", "lookUp 10.0.0.12", "reply [] [7]", "wait",
        ])
    }

    func testBurstOfNotificationsIsOneRecompute() {
        var machine = connectedMachine()
        XCTAssertEqual(machine.nextAction(now: start, date: date), .wait(until: nil))
        machine.notificationReceived(.deleteRoute(defaultRoute(via: "10.0.0.1")))
        machine.notificationReceived(.newRoute(defaultRoute(via: "10.0.0.254"), replace: false))
        machine.notificationReceived(.newAddress(address(2, "10.0.0.3")))
        XCTAssertEqual(run(&machine, kernel(via: "10.0.0.254")), [
            "lookUp 10.0.0.9",
            "publish! 10.0.0.9=ReachableViaWiFi@10.0.0.254",
            "check",
            "lookUp 10.0.0.10 10.0.0.11",
            "publish 10.0.0.10=ReachableViaWiFi@10.0.0.254 10.0.0.11=ReachableViaWiFi@10.0.0.254",
            "check",
            "lookUp 10.0.0.12",
            "publish 10.0.0.12=ReachableViaWiFi@10.0.0.254 default=ReachableViaWiFi@10.0.0.254",
            "wait",
        ])
    }

    func testPreemptedRecomputeIsOwedAndPreemptionIsBounded() {
        var machine = connectedMachine()
        let moved = kernel(via: "10.0.0.254")
        _ = machine.nextAction(now: start, date: date)
        machine.notificationReceived(.newRoute(defaultRoute(via: "10.0.0.254"), replace: true))
        // New notifications before the second chunk: the recompute stops after the first target.
        XCTAssertEqual(run(&machine, moved, pending: [true]), [
            "lookUp 10.0.0.9", "publish! 10.0.0.9=ReachableViaWiFi@10.0.0.254", "check", "wait",
        ])
        XCTAssertTrue(machine.recomputeOwed)
        // A storm: every wake-up brings more routes, and the recompute is preempted twice more.
        for third in 1...2 as ClosedRange<UInt8> {
            machine.notificationReceived(unrelatedRoute(third))
            XCTAssertEqual(run(&machine, moved, pending: [true]), ["lookUp 10.0.0.9", "check", "wait"])
        }
        XCTAssertEqual(machine.preemptions, 3)
        // The fourth is not preemptible any more: it runs to the end and publishes the rest.
        machine.notificationReceived(unrelatedRoute(3))
        XCTAssertEqual(run(&machine, moved, pending: [true, true]), [
            "lookUp 10.0.0.9",
            "lookUp 10.0.0.10 10.0.0.11",
            "publish! 10.0.0.10=ReachableViaWiFi@10.0.0.254",
            "lookUp 10.0.0.12",
            "publish 10.0.0.11=ReachableViaWiFi@10.0.0.254 10.0.0.12=ReachableViaWiFi@10.0.0.254",
            "publish default=ReachableViaWiFi@10.0.0.254",
            "wait",
        ])
        XCTAssertEqual(machine.preemptions, 0)
        XCTAssertFalse(machine.recomputeOwed)
    }

    func testOverrunResynchronizesFromTheDumpAndRecomputesEverything() {
        var machine = connectedMachine()
        _ = machine.nextAction(now: start, date: date)
        XCTAssertEqual(machine.overrun(), 1)
        // The dump shows eth0 down: the route lookups fail and `default` has no usable route.
        machine.resynchronized(dump: [link(2, "eth0", up: false), .newAddress(address(2, "10.0.0.2"))])
        XCTAssertEqual(run(&machine, Kernel()), unreachableInOrder + [
            "publish 10.0.0.12=NotReachable default=NotReachable",
            "wait",
        ])
        XCTAssertEqual(machine.mirror.routes, [])
        _ = machine.nextAction(now: start, date: date)
        XCTAssertEqual(machine.overrun(), 2)
    }

    func testSilentIPv4FlushIsRedumpedAndConfirmed() {
        var machine = connectedMachine()
        _ = machine.nextAction(now: start, date: date)
        // The last IPv4 address of eth0 goes: the kernel flushes its routes without RTM_DELROUTE.
        machine.notificationReceived(.deleteAddress(address(2, "10.0.0.2")))
        XCTAssertEqual(run(&machine, Kernel()), unreachableInOrder + [
            // The default route vanished from the dump: `default` changes, every target is looked up again
            // (nothing changed since, so nothing more is published).
            "redump ipv4",
            "check",
            "lookUp 10.0.0.9 10.0.0.10 10.0.0.11 10.0.0.12",
            "publish 10.0.0.12=NotReachable default=NotReachable",
            "wait 50ms",
        ])
        // The confirming re-dump, 50 ms later, re-dumps once more and asks for no further confirmation.
        _ = machine.nextAction(now: start, date: date)
        XCTAssertEqual(run(&machine, Kernel(), at: .milliseconds(60)), [
            "lookUp 10.0.0.9", "check", "lookUp 10.0.0.10 10.0.0.11", "check", "lookUp 10.0.0.12", "redump ipv4", "wait",
        ])
    }

    func testHostNamesResolveOnStartAndWhenDue() {
        let host = ReachabilityTarget.host("db.example")
        var machine = machine([.default, host])
        var kernel = kernel()
        kernel.hosts["db.example"] = [ip("10.0.0.9"), ip("10.0.0.10")]
        machine.connected(dump: dump)
        machine.commandsReceived([])
        XCTAssertEqual(run(&machine, kernel), [
            "resolve db.example",
            "lookUp 10.0.0.9 10.0.0.10",
            "publish! db.example=ReachableViaWiFi@10.0.0.1",
            "publish default=ReachableViaWiFi@10.0.0.1",
            "wait 60000ms",
        ])
        // Resolved again when due; same addresses and routes: nothing to publish.
        _ = machine.nextAction(now: start, date: date)
        XCTAssertEqual(run(&machine, kernel, at: .seconds(60)), [
            "resolve db.example", "lookUp 10.0.0.9 10.0.0.10", "wait 60000ms",
        ])
    }

    func testCommandsAddRemoveSnapshotAndStop() {
        var machine = connectedMachine([.default])
        _ = machine.nextAction(now: start, date: date)
        machine.commandsReceived([.add([.address("10.0.0.9")], ack: 1), .snapshot(2)])
        XCTAssertEqual(run(&machine, kernel()), [
            "lookUp 10.0.0.9", "publish! 10.0.0.9=ReachableViaWiFi@10.0.0.1", "reply [2] [1]", "wait",
        ])
        _ = machine.nextAction(now: start, date: date)
        machine.commandsReceived([.remove([.address("10.0.0.9")]), .stop])
        XCTAssertEqual(run(&machine, kernel()), ["stop"])
        XCTAssertEqual(machine.order, [.default])
    }

    func testFailureReportsUnknownOnce() {
        var machine = connectedMachine([.default, .address("10.0.0.9")])
        XCTAssertEqual(machine.failed(date: date), [
            .publish([.unknown(.default, time: date), .unknown(.address("10.0.0.9"), time: date)], thenYield: false),
        ])
        XCTAssertEqual(machine.failed(date: date), [])
    }
}
