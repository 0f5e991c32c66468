import NetVigilReachability
import XCTest

/// Classifier and flag computation on synthetic link data (hardware that cannot exist here).
final class ClassifierTests: XCTestCase {
    private let upWithCarrier = LinkInfo.iffUp | LinkInfo.iffRunning | LinkInfo.iffLowerUp

    private func link(
        _ name: String, arphrd: UInt16 = LinkInfo.arphrdEther, kind: String? = nil, devtype: String? = nil,
        wireless: Bool = false, flags: UInt32? = nil, operstate: UInt8 = LinkInfo.operUp
    ) -> LinkInfo {
        LinkInfo(index: 5, name: name, flags: flags ?? upWithCarrier, operstate: operstate, arphrd: arphrd,
                 infoKind: kind, devtype: devtype, isWireless: wireless)
    }

    func testKinds() {
        XCTAssertEqual(link("wlan0", devtype: "wlan").kind, .wifi)
        XCTAssertEqual(link("wlp2s0", wireless: true).kind, .wifi)
        XCTAssertEqual(link("mon0", arphrd: LinkInfo.arphrdIEEE80211Radiotap).kind, .wifi)
        XCTAssertEqual(link("wwan0", arphrd: LinkInfo.arphrdNone, devtype: "wwan").kind, .wwan)
        XCTAssertEqual(link("wwan0", devtype: "wwan").kind, .wwan)
        XCTAssertEqual(link("rmnet_data0", arphrd: LinkInfo.arphrdRawIP).kind, .wwan)
        XCTAssertEqual(link("rmnet_data0", arphrd: LinkInfo.arphrdNone).kind, .wwan)
        XCTAssertEqual(link("ccmni0", arphrd: LinkInfo.arphrdNone).kind, .wwan)
        XCTAssertEqual(link("mhi0", arphrd: LinkInfo.arphrdRawIP).kind, .wwan)
        // ARPHRD_NONE alone is not WWAN.
        XCTAssertEqual(link("foo0", arphrd: LinkInfo.arphrdNone).kind, .other)
        XCTAssertEqual(link("tun0", arphrd: LinkInfo.arphrdNone, kind: "tun").kind, .vpn)
        XCTAssertEqual(link("tap0", kind: "tun").kind, .virtual)
        XCTAssertEqual(link("wg0", arphrd: LinkInfo.arphrdNone, kind: "wireguard").kind, .vpn)
        XCTAssertEqual(link("ppp0", arphrd: LinkInfo.arphrdPPP).kind, .vpn)
        XCTAssertEqual(link("gre1", arphrd: LinkInfo.arphrdIPGRE).kind, .vpn)
        XCTAssertEqual(link("veth0", kind: "veth").kind, .virtual)
        XCTAssertEqual(link("vx0", kind: "vxlan").kind, .virtual)
        XCTAssertEqual(link("br0", kind: "bridge").kind, .bridge)
        XCTAssertEqual(link("lo", arphrd: LinkInfo.arphrdLoopback).kind, .loopback)
        XCTAssertEqual(link("eth0").kind, .ethernet)
        XCTAssertEqual(link("ib0", arphrd: LinkInfo.arphrdInfiniband).kind, .other)
        // INFO_KIND decides before DEVTYPE/name: a veth called rmnet0 is virtual.
        XCTAssertEqual(link("rmnet0", kind: "veth").kind, .virtual)
    }

    func testCarrierRules() {
        XCTAssertTrue(link("eth0").hasCarrier)
        // operstate UNKNOWN + LOWER_UP|RUNNING counts as carrier (netif_has_carrier)
        XCTAssertTrue(link("tun0", operstate: LinkInfo.operUnknown).hasCarrier)
        XCTAssertFalse(link("x", flags: LinkInfo.iffUp | LinkInfo.iffRunning, operstate: LinkInfo.operUnknown).hasCarrier)
        XCTAssertFalse(link("x", flags: upWithCarrier | LinkInfo.iffDormant, operstate: LinkInfo.operUnknown).hasCarrier)
        XCTAssertFalse(link("x", operstate: LinkInfo.operDown).hasCarrier)
        XCTAssertFalse(link("x", operstate: LinkInfo.operDormant).hasCarrier)
        XCTAssertFalse(link("x", operstate: LinkInfo.operLowerLayerDown).hasCarrier)
    }

    func testFlagsForSyntheticLinks() {
        let via = IPAddress("10.0.0.1")!
        let unicastViaGateway = RouteInfo(family: .ipv4, outputInterface: 5, gateway: via)
        let onLink = RouteInfo(family: .ipv4, outputInterface: 5)

        let wwan = link("rmnet_data0", arphrd: LinkInfo.arphrdRawIP)
        let wwanFlags = ReachabilityEvaluator.flags(route: unicastViaGateway, link: wwan, hasUsableSource: true)
        XCTAssertEqual(wwanFlags, [.reachable, .isWWAN, .transientConnection])
        XCTAssertEqual(ReachabilityStatus(flags: wwanFlags), .reachableViaWWAN)

        let wifi = link("wlan0", devtype: "wlan")
        let wifiFlags = ReachabilityEvaluator.flags(route: onLink, link: wifi, hasUsableSource: true)
        XCTAssertEqual(wifiFlags, [.reachable, .isDirect])
        XCTAssertEqual(ReachabilityStatus(flags: wifiFlags), .reachableViaWiFi)

        let dormantWifi = link("wlan0", devtype: "wlan", flags: upWithCarrier | LinkInfo.iffDormant, operstate: LinkInfo.operDormant)
        XCTAssertEqual(ReachabilityEvaluator.flags(route: onLink, link: dormantWifi, hasUsableSource: true),
                       [.connectionRequired, .isDirect])

        let noneLink = link("foo0", arphrd: LinkInfo.arphrdNone, flags: upWithCarrier | LinkInfo.iffPointToPoint)
        XCTAssertEqual(ReachabilityEvaluator.flags(route: onLink, link: noneLink, hasUsableSource: true),
                       [.reachable, .isDirect, .transientConnection])

        XCTAssertEqual(ReachabilityEvaluator.flags(route: onLink, link: wifi, hasUsableSource: false), [.isDirect])
        var linkDown = onLink
        linkDown.flags = RouteInfo.flagLinkDown
        XCTAssertEqual(ReachabilityEvaluator.flags(route: linkDown, link: wifi, hasUsableSource: true),
                       [.connectionRequired, .isDirect])
        for type in [RouteInfo.typeBlackhole, RouteInfo.typeUnreachable, RouteInfo.typeProhibit] {
            var route = onLink
            route.type = type
            XCTAssertEqual(ReachabilityEvaluator.flags(route: route, link: wifi, hasUsableSource: true), [])
        }
        XCTAssertEqual(ReachabilityEvaluator.flags(route: onLink, link: nil, hasUsableSource: true), [])
        let adminDown = link("eth0", flags: 0, operstate: LinkInfo.operDown)
        XCTAssertEqual(ReachabilityEvaluator.flags(route: onLink, link: adminDown, hasUsableSource: true), [.isDirect])
    }
}
