import Foundation
@testable import NetVigilReachability
import XCTest

/// `ReachabilityEvaluator.evaluatePath` over synthetic mirrors: a path's link, its own routes and addresses decide,
/// whatever the kernel's preferred route is; a NotReachable path says why in words.
final class PathEvaluationTests: XCTestCase {
    private let target = ReachabilityTarget.host("api.example.com")

    private func ip(_ text: String) -> IPAddress { IPAddress(text)! }

    private func link(_ index: Int32, _ name: String, up: Bool = true, carrier: Bool = true, arphrd: UInt16 = LinkInfo.arphrdEther) -> NetlinkMessage {
        let flags = (up ? LinkInfo.iffUp : 0) | (carrier ? LinkInfo.iffRunning | LinkInfo.iffLowerUp : 0)
        return .newLink(LinkInfo(index: index, name: name, flags: flags, operstate: up && carrier ? LinkInfo.operUp : LinkInfo.operDown,
                                 arphrd: arphrd))
    }

    /// eth0 (2, 10.0.0.2, default metric 100) and wwan0 (3, raw IP, 100.64.0.2, default metric 600), plus `extra`.
    private func mirror(_ extra: [NetlinkMessage] = [], wwanUp: Bool = true) -> NetlinkMirror {
        var mirror = NetlinkMirror()
        let messages: [NetlinkMessage] = [
            link(2, "eth0"), link(3, "wwan0", up: wwanUp, arphrd: LinkInfo.arphrdRawIP),
            .newAddress(AddressInfo(index: 2, address: ip("10.0.0.2"), prefixLength: 24)),
            .newAddress(AddressInfo(index: 3, address: ip("100.64.0.2"), prefixLength: 30)),
            .newRoute(RouteInfo(family: .ipv4, priority: 100, outputInterface: 2, gateway: ip("10.0.0.1")), replace: false),
        ] + (wwanUp ? [.newRoute(RouteInfo(family: .ipv4, priority: 600, outputInterface: 3, gateway: ip("100.64.0.1")), replace: false)] : [])
        for message in messages + extra { mirror.apply(message) { _, _ in (nil, false) } }
        return mirror
    }

    func testAnInterfaceIsJudgedOnItsOwnRoute() {
        let path = ReachabilityEvaluator.evaluatePath(.interface("wwan0"), destination: ip("192.0.2.1"), target: target, mirror: mirror())
        XCTAssertNil(path.problem)
        XCTAssertEqual(path.evaluation.status, .reachableViaWWAN, "AFNetworking's status of the WWAN path")
        XCTAssertEqual(path.evaluation.interface, "wwan0")
        XCTAssertEqual(path.evaluation.interfaceKind, .wwan)
        XCTAssertEqual(path.evaluation.gateway, "100.64.0.1")
        XCTAssertEqual(path.evaluation.source, "100.64.0.2")

        let ethernet = ReachabilityEvaluator.evaluatePath(.interface("eth0"), destination: ip("192.0.2.1"), target: target, mirror: mirror())
        XCTAssertEqual(ethernet.evaluation.status, .reachableViaWiFi)
        XCTAssertEqual(ethernet.evaluation.interfaceKind, .ethernet)
    }

    /// The captive-portal check's verdict for one path adds `interventionRequired` (NotReachable, as AFNetworking
    /// maps a captive network) to that path only; a down interface is still named first.
    func testACaptivePortalOnOnePathMakesItNotReachable() {
        let portal = "expected HTTP 204, got 302"
        let wwan = ReachabilityEvaluator.evaluatePath(.interface("wwan0"), destination: ip("192.0.2.1"), target: target, mirror: mirror(),
                                                      captivePortal: portal)
        XCTAssertEqual(wwan.evaluation.status, .notReachable)
        XCTAssertTrue(wwan.evaluation.flags.isSuperset(of: [.reachable, .interventionRequired, .connectionRequired]), "\(wwan.evaluation.flags)")
        XCTAssertEqual(wwan.problem, "a captive portal intercepts traffic through wwan0: expected HTTP 204, got 302")
        let ethernet = ReachabilityEvaluator.evaluatePath(.interface("eth0"), destination: ip("192.0.2.1"), target: target, mirror: mirror())
        XCTAssertEqual(ethernet.evaluation.status, .reachableViaWiFi)
        let down = ReachabilityEvaluator.evaluatePath(.interface("wwan0"), destination: ip("192.0.2.1"), target: target,
                                                      mirror: mirror(wwanUp: false), captivePortal: portal)
        XCTAssertEqual(down.problem, "interface wwan0 is down")
    }

    func testADownOrMissingPathSaysWhy() {
        let down = ReachabilityEvaluator.evaluatePath(.interface("wwan0"), destination: ip("192.0.2.1"), target: target,
                                                      mirror: mirror(wwanUp: false))
        XCTAssertEqual(down.evaluation.status, .notReachable)
        XCTAssertEqual(down.problem, "interface wwan0 is down")
        XCTAssertEqual(down.evaluation.interface, "wwan0")

        let missing = ReachabilityEvaluator.evaluatePath(.interface("wlan0"), destination: ip("192.0.2.1"), target: target, mirror: mirror())
        XCTAssertEqual(missing.evaluation.status, .notReachable)
        XCTAssertEqual(missing.problem, "interface wlan0 does not exist")

        let noCarrier = ReachabilityEvaluator.evaluatePath(.interface("eth1"), destination: ip("192.0.2.1"), target: target,
                                                           mirror: mirror([link(4, "eth1", carrier: false)]))
        XCTAssertEqual(noCarrier.problem, "interface eth1 has no carrier")

        // Up, addressed, but its only route does not lead to the destination.
        let onlyLocal = mirror([link(4, "eth1"), .newAddress(AddressInfo(index: 4, address: ip("172.16.0.2"), prefixLength: 24)),
                                .newRoute(RouteInfo(family: .ipv4, destination: ip("172.16.0.0"), destinationLength: 24, outputInterface: 4),
                                          replace: false)])
        let noRoute = ReachabilityEvaluator.evaluatePath(.interface("eth1"), destination: ip("192.0.2.1"), target: target, mirror: onlyLocal)
        XCTAssertEqual(noRoute.problem, "no route to 192.0.2.1 through eth1")
        let onLink = ReachabilityEvaluator.evaluatePath(.interface("eth1"), destination: ip("172.16.0.9"), target: target, mirror: onlyLocal)
        XCTAssertNil(onLink.problem)
        XCTAssertTrue(onLink.evaluation.flags.contains(.isDirect))
    }

    func testASourceAddressUsesTheInterfaceHoldingIt() {
        let path = ReachabilityEvaluator.evaluatePath(.source(ip("100.64.0.2")), destination: ip("192.0.2.1"), target: target, mirror: mirror())
        XCTAssertEqual(path.evaluation.interface, "wwan0")
        XCTAssertEqual(path.evaluation.source, "100.64.0.2")
        XCTAssertEqual(path.evaluation.status, .reachableViaWWAN)

        let foreign = ReachabilityEvaluator.evaluatePath(.source(ip("192.0.2.99")), destination: nil, target: target, mirror: mirror())
        XCTAssertEqual(foreign.problem, "no interface has the address 192.0.2.99")
    }

    func testWithoutADestinationTheDefaultRouteOfThePathCounts() {
        let path = ReachabilityEvaluator.evaluatePath(.interface("wwan0"), destination: nil, target: target, mirror: mirror())
        XCTAssertEqual(path.evaluation.gateway, "100.64.0.1")
        XCTAssertEqual(path.evaluation.status, .reachableViaWWAN)
    }

    func testPrefixCover() {
        let route = RouteInfo(family: .ipv4, destination: ip("10.1.0.0"), destinationLength: 23)
        XCTAssertTrue(ReachabilityEvaluator.covers(route, ip("10.1.1.200")))
        XCTAssertFalse(ReachabilityEvaluator.covers(route, ip("10.1.2.1")))
        XCTAssertFalse(ReachabilityEvaluator.covers(route, ip("2001:db8::1")))
        XCTAssertTrue(ReachabilityEvaluator.covers(RouteInfo(family: .ipv6), ip("2001:db8::1")))
    }
}
