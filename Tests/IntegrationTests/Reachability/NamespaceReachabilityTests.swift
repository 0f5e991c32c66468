import Foundation
import NetVigilTestSupport
import NetVigilReachability
import XCTest

/// Real netlink in network namespaces this test creates (root). The monitor runs in this process with its
/// watcher thread inside the namespace (setns); the host's interfaces are never touched.
final class NamespaceReachabilityTests: XCTestCase {
    /// ns with veth va (10.77.0.2/24, 2001:db8:77::2/64) <-> vb (no address), both up.
    private func makeNamespace() throws -> NetworkNamespace {
        let ns = try NetworkNamespace(for: self)
        try ns.addVethPair("va", "vb", address: "10.77.0.2/24")
        try ns.ip("-6", "addr", "add", "2001:db8:77::2/64", "dev", "va", "nodad")
        return ns
    }

    func testDefaultRouteAddedAndRemoved() async throws {
        let ns = try makeNamespace()
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [.default])
        defer { Task { await monitor.stop() } }
        let initial = try await evaluationNow(monitor, .default)
        XCTAssertEqual(initial.status, .notReachable)
        XCTAssertEqual(initial.flags, [])

        try ns.ip("route", "add", "default", "via", "10.77.0.1", "dev", "va")
        let up = try await awaitEvaluation(monitor, .default, "default route usable") { $0.status == .reachableViaWiFi }
        XCTAssertEqual(up.flags, [.reachable])
        XCTAssertEqual(up.interface, "va")
        XCTAssertEqual(up.interfaceKind, .virtual)
        XCTAssertEqual(up.gateway, "10.77.0.1")
        XCTAssertEqual(up.source, "10.77.0.2")
        XCTAssertEqual(up.family, .ipv4)
        XCTAssertEqual(up.table, 254)

        try ns.ip("route", "del", "default", "via", "10.77.0.1", "dev", "va")
        let down = try await awaitEvaluation(monitor, .default, "default route gone") { $0.status == .notReachable }
        XCTAssertEqual(down.flags, [])

        // An IPv6 default route counts too.
        try ns.ip("-6", "route", "add", "default", "via", "2001:db8:77::1", "dev", "va")
        let v6 = try await awaitEvaluation(monitor, .default, "IPv6 default usable") { $0.status == .reachableViaWiFi }
        XCTAssertEqual(v6.family, .ipv6)
        XCTAssertEqual(v6.source, "2001:db8:77::2")
        XCTAssertEqual(v6.gateway, "2001:db8:77::1")
    }

    func testCarrierLossMakesConnectionRequiredThenRecovers() async throws {
        let ns = try makeNamespace()
        let target = ReachabilityTarget.address("10.77.0.9")
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [target])
        defer { Task { await monitor.stop() } }
        let initial = try await evaluationNow(monitor, target)
        XCTAssertEqual(initial.status, .reachableViaWiFi)
        XCTAssertEqual(initial.flags, [.reachable, .isDirect])

        try ns.ip("link", "set", "vb", "down")  // peer down → va loses carrier
        let lost = try await awaitEvaluation(monitor, target, "carrier lost") { $0.flags.contains(.connectionRequired) }
        XCTAssertEqual(lost.status, .notReachable)
        XCTAssertEqual(lost.flags, [.connectionRequired, .isDirect])
        XCTAssertEqual(lost.interface, "va")

        try ns.ip("link", "set", "vb", "up")
        let back = try await awaitEvaluation(monitor, target, "carrier back") { $0.status == .reachableViaWiFi }
        XCTAssertEqual(back.flags, [.reachable, .isDirect])
    }

    func testAdminDownAndAddressRemoved() async throws {
        let ns = try makeNamespace()
        let target = ReachabilityTarget.address("10.77.0.9")
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [target, .default])
        defer { Task { await monitor.stop() } }
        try ns.ip("route", "add", "default", "via", "10.77.0.1", "dev", "va")
        _ = try await awaitEvaluation(monitor, .default, "default usable") { $0.status == .reachableViaWiFi }

        try ns.ip("addr", "del", "10.77.0.2/24", "dev", "va")
        let gone = try await awaitEvaluation(monitor, target, "address removed") { $0.status == .notReachable }
        XCTAssertFalse(gone.flags.contains(.reachable))
        // The kernel silently flushed the IPv4 default route with the last address; the mirror noticed. `.default`'s
        // stream need not show it (the route without a usable source was already NotReachable with the same flags),
        // so poll the current evaluation.
        let defaultGone = try await awaitCurrent(monitor, .default, "default flushed") {
            $0.status == .notReachable && $0.family != .ipv4
        }
        XCTAssertEqual(defaultGone.status, .notReachable)
        XCTAssertNotEqual(defaultGone.family, .ipv4)

        try ns.ip("addr", "add", "10.77.0.2/24", "dev", "va")
        _ = try await awaitEvaluation(monitor, target, "address back") { $0.status == .reachableViaWiFi }
        try ns.ip("link", "set", "va", "down")
        let adminDown = try await awaitEvaluation(monitor, target, "admin down") { $0.status == .notReachable }
        XCTAssertFalse(adminDown.flags.contains(.reachable))
    }

    func testOnLinkVersusGatewayAndLocalAddresses() async throws {
        let ns = try makeNamespace()
        try ns.ip("route", "add", "192.0.2.0/24", "via", "10.77.0.1", "dev", "va")
        let onLink = ReachabilityTarget.address("10.77.0.9")
        let viaGateway = ReachabilityTarget.address("192.0.2.10")
        let local4 = ReachabilityTarget.address("10.77.0.2")
        let local6 = ReachabilityTarget.address("2001:db8:77::2")
        let loopback = ReachabilityTarget.address("127.0.0.1")
        let monitor = try await ReachabilityMonitor.started(
            in: ns, targets: [onLink, viaGateway, local4, local6, loopback])
        defer { Task { await monitor.stop() } }

        let direct = try await evaluationNow(monitor, onLink)
        XCTAssertEqual(direct.flags, [.reachable, .isDirect])
        XCTAssertNil(direct.gateway)

        let routed = try await evaluationNow(monitor, viaGateway)
        XCTAssertEqual(routed.flags, [.reachable])
        XCTAssertEqual(routed.gateway, "10.77.0.1")
        XCTAssertEqual(routed.status, .reachableViaWiFi)

        for target in [local4, local6, loopback] {
            let local = try await evaluationNow(monitor, target)
            XCTAssertEqual(local.flags, [.reachable, .isLocalAddress, .isDirect], "\(target)")
            XCTAssertEqual(local.interfaceKind, .loopback, "\(target)")
            XCTAssertNotNil(local.table, "\(target)")
        }
    }

    func testRouteViaTunIsTransient() async throws {
        let ns = try makeNamespace()
        try ns.ip("tuntap", "add", "mode", "tun", "dev", "tun7")
        try ns.ip("link", "set", "tun7", "up")
        try ns.ip("addr", "add", "10.88.0.1/24", "dev", "tun7")
        let target = ReachabilityTarget.address("10.88.0.5")
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [target])
        defer { Task { await monitor.stop() } }
        let evaluation = try await evaluationNow(monitor, target)
        XCTAssertEqual(evaluation.interface, "tun7")
        XCTAssertEqual(evaluation.interfaceKind, .vpn)
        XCTAssertTrue(evaluation.flags.contains(.transientConnection), "\(evaluation.flags)")
        // No process has the tun device open: up without carrier → connectionRequired, NotReachable.
        XCTAssertTrue(evaluation.flags.contains(.connectionRequired), "\(evaluation.flags)")
        XCTAssertEqual(evaluation.status, .notReachable)
    }

    func testPolicyRuleToUnreachableTable() async throws {
        let ns = try makeNamespace()
        try ns.ip("route", "add", "198.51.100.0/24", "via", "10.77.0.1", "dev", "va")
        let target = ReachabilityTarget.address("198.51.100.7")
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [target])
        defer { Task { await monitor.stop() } }
        let before = try await evaluationNow(monitor, target)
        XCTAssertEqual(before.status, .reachableViaWiFi)

        try ns.ip("route", "add", "unreachable", "198.51.100.0/24", "table", "100")
        try ns.ip("rule", "add", "to", "198.51.100.7", "table", "100", "pref", "100")
        let blocked = try await awaitEvaluation(monitor, target, "rule to unreachable table") { $0.status == .notReachable }
        XCTAssertEqual(blocked.flags, [])

        try ns.ip("rule", "del", "to", "198.51.100.7", "table", "100", "pref", "100")
        let back = try await awaitEvaluation(monitor, target, "rule removed") { $0.status == .reachableViaWiFi }
        XCTAssertEqual(back.table, 254)
    }

    func testInterventionRequiredInput() async throws {
        let ns = try makeNamespace()
        let target = ReachabilityTarget.address("10.77.0.9")
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [target])
        defer { Task { await monitor.stop() } }
        let stream = await monitor.changes(for: target)
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first?.flags, [.reachable, .isDirect])
        await monitor.setInterventionRequired(true, for: target)
        let flagged = await iterator.next()
        // A captive portal: the route works but a connection needs the user, so AFNetworking's formula says
        // NotReachable (connectionRequired without onDemand/onTraffic).
        XCTAssertEqual(flagged?.flags, [.reachable, .isDirect, .interventionRequired, .connectionRequired])
        XCTAssertEqual(flagged?.status, .notReachable)
        let now = try await evaluationNow(monitor, target)
        XCTAssertTrue(now.flags.contains(.interventionRequired))
    }

    func testChangesYieldOnlyOnStatusOrFlagChange() async throws {
        let ns = try makeNamespace()
        let target = ReachabilityTarget.address("10.77.0.9")
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [target])
        defer { Task { await monitor.stop() } }
        let stream = await monitor.changes(for: target)
        var iterator = stream.makeAsyncIterator()
        let firstValue = await iterator.next()
        XCTAssertEqual(firstValue?.status, .reachableViaWiFi)  // first value at once
        // Unrelated churn: routes and addresses elsewhere do not produce values.
        for i in 1...5 { try ns.ip("route", "add", "203.0.113.\(i)/32", "via", "10.77.0.1", "dev", "va") }
        try ns.ip("link", "set", "vb", "down")
        let next = await iterator.next()
        XCTAssertEqual(next?.flags, [.connectionRequired, .isDirect], "the next value is the carrier change")
    }

    func testSubscribersGetTheirOwnTargetsStraightFromTheWatcher() async throws {
        let ns = try makeNamespace()
        let a = ReachabilityTarget.address("10.77.0.9")
        let b = ReachabilityTarget.address("10.77.0.10")
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [a, b])
        defer { Task { await monitor.stop() } }
        var both = await monitor.changes(for: [a, b, a]).makeAsyncIterator()
        var onlyB = await monitor.changes(for: b).makeAsyncIterator()
        // A subscriber that goes away: its stream ends while the watcher keeps publishing.
        let abandoned = await monitor.changes(for: a)
        let consumer = Task { for await _ in abandoned {} }

        let initial = [await both.next(), await both.next()].compactMap { $0 }
        XCTAssertEqual(Set(initial.map(\.target)), [a, b], "each target's current value once, duplicates ignored")
        XCTAssertEqual(initial.map(\.status), [.reachableViaWiFi, .reachableViaWiFi])
        let firstOfB = await onlyB.next()
        XCTAssertEqual(firstOfB?.target, b)

        try ns.ip("link", "set", "vb", "down")
        let lost = [await both.next(), await both.next()].compactMap { $0 }
        XCTAssertEqual(Set(lost.map(\.target)), [a, b])
        XCTAssertTrue(lost.allSatisfy { $0.flags == [.connectionRequired, .isDirect] })
        let lostB = await onlyB.next()
        XCTAssertEqual(lostB?.target, b)
        XCTAssertEqual(lostB?.status, .notReachable)

        consumer.cancel()
        await consumer.value
        try ns.ip("link", "set", "vb", "up")
        let back = [await both.next(), await both.next()].compactMap { $0 }
        XCTAssertEqual(Set(back.map(\.target)), [a, b])
        XCTAssertTrue(back.allSatisfy { $0.status == .reachableViaWiFi })
        let backB = await onlyB.next()
        XCTAssertEqual(backB?.status, .reachableViaWiFi)

        // A removed target: no more values, no current value; the others go on.
        await monitor.remove([a])
        let currentA = await monitor.current(a)
        XCTAssertNil(currentA)
        try ns.ip("link", "set", "vb", "down")
        let afterRemoval = await both.next()
        XCTAssertEqual(afterRemoval?.target, b)
        XCTAssertEqual(afterRemoval?.status, .notReachable)
        let currentB = try await evaluationNow(monitor, b)
        XCTAssertEqual(currentB.flags, [.connectionRequired, .isDirect])
    }

    func testOverrunResyncsMirrorToKernelDump() async throws {
        let ns = try makeNamespace()
        var options = ReachabilityMonitor.Options()
        options.receiveBufferSize = 2048
        options.forceReceiveBuffer = false
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [.default], options: options)
        defer { Task { await monitor.stop() } }

        var batch = ""
        for i in 0..<5000 { batch += "route add 10.100.\(i / 250).\(i % 250 + 1)/32 via 10.77.0.1 dev va\n" }
        for i in 0..<200 { batch += "route add 2001:db8:100::\(String(i + 1, radix: 16))/128 via 2001:db8:77::1 dev va\n" }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(ns.name)-batch").path
        try batch.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        try ns.ip("-batch", file)
        for i in 0..<1000 { batch += "route del 10.100.\(i / 250).\(i % 250 + 1)/32\n" }
        let deletions = (0..<1000).map { "route del 10.100.\($0 / 250).\($0 % 250 + 1)/32\n" }.joined()
        try deletions.write(toFile: file, atomically: true, encoding: .utf8)
        try ns.ip("-batch", file)

        let kernel = try kernelMainRoutes(ns)
        XCTAssertEqual(kernel.filter { $0.hasPrefix("10.100.") }.count, 4000)
        let deadline = ContinuousClock.now + .seconds(30)
        var mirrored: Set<String> = []
        while ContinuousClock.now < deadline {
            if let mirror = await monitor.mirrorSnapshot() {
                mirrored = Set(mirror.routes.filter { $0.table == 254 }.map {
                    "\($0.destinationText) \(mirror.links[$0.outputInterface]?.name ?? "?")"
                })
                if mirrored == kernel { break }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let resyncs = await monitor.resyncCount
        XCTAssertGreaterThanOrEqual(resyncs, 1, "a 2 KiB receive buffer must overrun during a 6,200-change burst")
        XCTAssertEqual(mirrored.count, kernel.count)
        XCTAssertEqual(mirrored, kernel, "missing: \(kernel.subtracting(mirrored).prefix(5)) extra: \(mirrored.subtracting(kernel).prefix(5))")
    }

    /// The kernel flushes IPv4 routes (link down, address removed) and sets/clears `linkdown` on carrier
    /// changes without notifications. The watcher re-dumps IPv4 routes only when that can have happened
    /// (and after publishing the targets looked up through the kernel): the mirror must still equal the
    /// kernel's IPv4 routes, linkdown flags included, after each kind of change, and `default` must follow.
    func testSilentIPv4RouteChangesStayMirrored() async throws {
        let ns = try makeNamespace()
        try ns.ip("addr", "add", "10.88.0.2/24", "dev", "vb")
        try ns.ip("route", "add", "198.51.100.0/24", "via", "10.88.0.1", "dev", "vb")
        try ns.ip("route", "add", "default", "via", "10.77.0.1", "dev", "va")
        let onVa = ReachabilityTarget.address("10.77.0.9")
        let viaVb = ReachabilityTarget.address("198.51.100.7")
        let monitor = try await ReachabilityMonitor.started(in: ns, targets: [.default, onVa, viaVb])
        defer { Task { await monitor.stop() } }
        let initial = try await evaluationNow(monitor, viaVb)
        XCTAssertEqual(initial.interface, "vb")
        XCTAssertEqual(initial.status, .reachableViaWiFi)
        try await assertMirrorMatchesKernelIPv4(monitor, ns, "initial")

        // vb down: its IPv4 routes go silently; va loses carrier (linkdown set silently on va's routes).
        try ns.ip("link", "set", "vb", "down")
        let lost = try await awaitEvaluation(monitor, .default, "default without carrier") {
            $0.flags.contains(.connectionRequired)
        }
        XCTAssertEqual(lost.status, .notReachable)
        let rerouted = try await awaitCurrent(monitor, viaVb, "198.51.100.7 via the default route") {
            $0.interface == "va" && $0.flags.contains(.connectionRequired)
        }
        XCTAssertEqual(rerouted.flags, [.connectionRequired])
        try await assertMirrorMatchesKernelIPv4(monitor, ns, "after vb down")

        // vb up: va's carrier is back (linkdown cleared silently); 198.51.100.0/24 stays flushed.
        try ns.ip("link", "set", "vb", "up")
        let back = try await awaitEvaluation(monitor, .default, "default usable again") { $0.status == .reachableViaWiFi }
        XCTAssertEqual(back.flags, [.reachable])
        let onVaBack = try await awaitEvaluation(monitor, onVa, "on-link target back") { $0.status == .reachableViaWiFi }
        XCTAssertEqual(onVaBack.flags, [.reachable, .isDirect])
        try await assertMirrorMatchesKernelIPv4(monitor, ns, "after vb up")

        // Removing vb's address silently flushes routes using it; the connected route goes with it.
        try ns.ip("route", "add", "198.51.100.0/24", "via", "10.88.0.1", "dev", "vb")
        _ = try await awaitCurrent(monitor, viaVb, "198.51.100.7 via vb again") { $0.interface == "vb" }
        try ns.ip("addr", "del", "10.88.0.2/24", "dev", "vb")
        _ = try await awaitCurrent(monitor, viaVb, "198.51.100.7 via va after address removal") {
            $0.interface == "va" && $0.status == .reachableViaWiFi
        }
        try await assertMirrorMatchesKernelIPv4(monitor, ns, "after address removal")
    }

    /// Polls `current(target)` until it satisfies `predicate` (for changes of detail such as the interface,
    /// which `changes(for:)` does not yield when status and flags stay the same), failing after 5 s.
    private func awaitCurrent(
        _ monitor: ReachabilityMonitor, _ target: ReachabilityTarget, _ what: String,
        where predicate: (ReachabilityEvaluation) -> Bool
    ) async throws -> ReachabilityEvaluation {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            if let evaluation = await monitor.current(target), predicate(evaluation) { return evaluation }
            if ContinuousClock.now >= deadline {
                let last = await monitor.current(target).map { "\($0.status) \($0.interface ?? "-") flags=\($0.flags)" }
                throw TimeoutError(description: "timed out waiting for \(target): \(what) (last: \(last ?? "none"))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Polls the monitor's mirror until its IPv4 routes (all tables, with the linkdown flag) equal the
    /// kernel's, failing after 5 s.
    private func assertMirrorMatchesKernelIPv4(
        _ monitor: ReachabilityMonitor, _ ns: NetworkNamespace, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let output = try ns.ip("-j", "-4", "route", "show", "table", "all")
        let routes = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
        var kernel = Set<String>()
        for route in routes {
            var dst = route["dst"] as? String ?? "?"
            if dst == "default" { dst = "0.0.0.0/0" }
            if !dst.contains("/") { dst += "/32" }
            let table = route["table"] as? String ?? "main"
            let linkdown = (route["flags"] as? [String] ?? []).contains("linkdown")
            kernel.insert("\(route["type"] as? String ?? "unicast") \(dst) \(table) \(route["dev"] as? String ?? "?")\(linkdown ? " linkdown" : "")")
        }
        let names: [UInt8: String] = [1: "unicast", 2: "local", 3: "broadcast", 4: "anycast", 5: "multicast"]
        let tables: [UInt32: String] = [254: "main", 255: "local", 253: "default"]
        var mirrored = Set<String>()
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let snapshot = await monitor.mirrorSnapshot()
            let mirror = try XCTUnwrap(snapshot, "monitor stopped", file: file, line: line)
            mirrored = Set(mirror.routes.filter { $0.family == .ipv4 }.map {
                let type = names[$0.type] ?? "\($0.type)"
                let table = tables[$0.table] ?? "\($0.table)"
                let dev = mirror.links[$0.outputInterface]?.name ?? "?"
                return "\(type) \($0.destinationText) \(table) \(dev)\($0.isLinkDown ? " linkdown" : "")"
            })
            if mirrored == kernel { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTAssertEqual(mirrored, kernel, "\(what): missing \(kernel.subtracting(mirrored)) extra \(mirrored.subtracting(kernel))",
                       file: file, line: line)
    }

    /// `ip -j route show` (main table, IPv4 and IPv6) as "dst/len dev" strings.
    private func kernelMainRoutes(_ ns: NetworkNamespace) throws -> Set<String> {
        var result = Set<String>()
        for family in ["-4", "-6"] {
            let output = try ns.ip("-j", family, "route", "show", "table", "main")
            let routes = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]])
            for route in routes {
                var dst = route["dst"] as? String ?? "?"
                if dst == "default" { dst = family == "-4" ? "0.0.0.0/0" : "::/0" }
                if !dst.contains("/") { dst += family == "-4" ? "/32" : "/128" }
                result.insert("\(dst) \(route["dev"] as? String ?? "?")")
            }
        }
        return result
    }
}
