import NetVigilReachability
import XCTest

final class ReachabilityStatusTests: XCTestCase {
    /// AFNetworkReachabilityStatusForFlags, transcribed from AFNetworkReachabilityManager.m (bit values from
    /// SCNetworkReachability.h), independent of `ReachabilityStatus.init(flags:)`.
    private func afnetworkingStatus(_ flags: UInt32) -> Int {
        let kReachable: UInt32 = 1 << 1, kConnectionRequired: UInt32 = 1 << 2
        let kConnectionOnTraffic: UInt32 = 1 << 3, kInterventionRequired: UInt32 = 1 << 4
        let kConnectionOnDemand: UInt32 = 1 << 5, kIsWWAN: UInt32 = 1 << 18
        let isReachable = (flags & kReachable) != 0
        let needsConnection = (flags & kConnectionRequired) != 0
        let canConnectionAutomatically = (flags & kConnectionOnDemand) != 0 || (flags & kConnectionOnTraffic) != 0
        let canConnectWithoutUserInteraction = canConnectionAutomatically && (flags & kInterventionRequired) == 0
        let isNetworkReachable = isReachable && (!needsConnection || canConnectWithoutUserInteraction)
        if !isNetworkReachable { return 0 }  // AFNetworkReachabilityStatusNotReachable
        if (flags & kIsWWAN) != 0 { return 1 }  // ReachableViaWWAN
        return 2  // ReachableViaWiFi
    }

    func testAll512FlagCombinationsMatchAFNetworking() {
        let bits: [UInt32] = [1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 16, 1 << 17, 1 << 18]
        var seen = Set<UInt32>()
        var counts: [ReachabilityStatus: Int] = [:]
        for combination in 0..<512 {
            var raw: UInt32 = 0
            for (i, bit) in bits.enumerated() where combination & (1 << i) != 0 { raw |= bit }
            seen.insert(raw)
            let status = ReachabilityStatus(flags: ReachabilityFlags(rawValue: raw))
            XCTAssertEqual(status.rawValue, afnetworkingStatus(raw), "flags 0x\(String(raw, radix: 16))")
            counts[status, default: 0] += 1
        }
        XCTAssertEqual(seen.count, 512)
        XCTAssertNil(counts[.unknown], "Unknown never comes from flags")
        // reachable set in 256 combinations; usable when !connectionRequired (128) or connectionRequired with
        // (onDemand||onTraffic) && !intervention (128 * 3/4 * 1/2 = 48) → 176, half of them WWAN.
        XCTAssertEqual(counts[.reachableViaWWAN], 88)
        XCTAssertEqual(counts[.reachableViaWiFi], 88)
        XCTAssertEqual(counts[.notReachable], 512 - 176)
    }

    func testSpotValuesAndNames() {
        XCTAssertEqual(ReachabilityStatus(flags: []), .notReachable)
        XCTAssertEqual(ReachabilityStatus(flags: [.reachable]), .reachableViaWiFi)
        XCTAssertEqual(ReachabilityStatus(flags: [.reachable, .isWWAN, .transientConnection]), .reachableViaWWAN)
        XCTAssertEqual(ReachabilityStatus(flags: [.reachable, .connectionRequired]), .notReachable)
        XCTAssertEqual(ReachabilityStatus(flags: [.reachable, .connectionRequired, .connectionOnTraffic]), .reachableViaWiFi)
        XCTAssertEqual(
            ReachabilityStatus(flags: [.reachable, .connectionRequired, .connectionOnDemand, .interventionRequired]),
            .notReachable)
        XCTAssertEqual(ReachabilityStatus(flags: [.isWWAN, .connectionRequired]), .notReachable)
        XCTAssertEqual(ReachabilityStatus.unknown.rawValue, -1)
        XCTAssertEqual(ReachabilityStatus.notReachable.rawValue, 0)
        XCTAssertEqual(ReachabilityStatus.reachableViaWWAN.rawValue, 1)
        XCTAssertEqual(ReachabilityStatus.reachableViaWiFi.rawValue, 2)
        XCTAssertEqual(ReachabilityStatus.allCases.map(\.name), ["Unknown", "NotReachable", "ReachableViaWWAN", "ReachableViaWiFi"])
        XCTAssertEqual(ReachabilityFlags.isWWAN.rawValue, 0x40000)
        XCTAssertEqual(ReachabilityFlags.isLocalAddress.rawValue, 0x10000)
        XCTAssertEqual(ReachabilityFlags(rawValue: 0x70007).names,
                       ["transientConnection", "reachable", "connectionRequired", "isLocalAddress", "isDirect", "isWWAN"])
        XCTAssertEqual(ReachabilityFlags(names: ["reachable", "isDirect"]), [.reachable, .isDirect])
        XCTAssertNil(ReachabilityFlags(names: ["bogus"]))
    }

    func testTargetParsing() throws {
        XCTAssertEqual(try ReachabilityTarget(parsing: "default"), .default)
        XCTAssertEqual(try ReachabilityTarget(parsing: "192.0.2.1"), .address("192.0.2.1"))
        XCTAssertEqual(try ReachabilityTarget(parsing: "2001:DB8:0::1"), .address("2001:db8::1"))
        XCTAssertEqual(try ReachabilityTarget(parsing: "Example.COM."), .host("example.com"))
        for bad in ["", "exa mple.com", "-bad.com", "1.2.3.999", "::zz", "a..b", "fe80::1%eth0"] {
            XCTAssertThrowsError(try ReachabilityTarget(parsing: bad), bad) { error in
                XCTAssertTrue("\(error)".contains("invalid reachability target"), "\(error)")
            }
        }
    }

    func testEvaluationJSONLine() throws {
        let time = Date(timeIntervalSince1970: 1_700_000_000.25)
        let evaluation = ReachabilityEvaluation(
            target: .address("10.0.0.9"), flags: [.reachable, .isDirect], interface: "eth0",
            interfaceKind: .ethernet, gateway: nil, source: "10.0.0.2", family: .ipv4, table: 254,
            address: "10.0.0.9", time: time)
        let line = evaluation.jsonLine()
        XCTAssertFalse(line.contains("\n"))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["target"] as? String, "10.0.0.9")
        XCTAssertEqual(object["status"] as? String, "ReachableViaWiFi")
        XCTAssertEqual(object["status_code"] as? Int, 2)
        XCTAssertEqual(object["flags"] as? [String], ["reachable", "isDirect"])
        XCTAssertEqual(object["flags_raw"] as? Int, 0x20002)
        XCTAssertEqual(object["interface"] as? String, "eth0")
        XCTAssertEqual(object["interface_kind"] as? String, "ethernet")
        XCTAssertTrue(object["gateway"] is NSNull)
        XCTAssertEqual(object["source"] as? String, "10.0.0.2")
        XCTAssertEqual(object["family"] as? String, "ipv4")
        XCTAssertEqual(object["time"] as? String, "2023-11-14T22:13:20.250Z")
        let decoded = try JSONDecoder().decode(ReachabilityEvaluation.self, from: Data(line.utf8))
        XCTAssertEqual(decoded, evaluation)
        let unknown = ReachabilityEvaluation.unknown(.default)
        XCTAssertEqual(unknown.status, .unknown)
        XCTAssertTrue(unknown.jsonLine().contains("\"status_code\":-1"))
    }
}
