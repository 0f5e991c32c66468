import XCTest
@testable import NetVigilAgent

/// Where first ticks fall (`ProbeScheduler+Phase.swift`): pure functions, no clock.
final class ProbeSchedulerPhaseTests: XCTestCase {
    private func window(_ targets: Int, interval: Duration = .seconds(60)) -> Duration {
        ProbeScheduler.spreadWindow(interval: interval, targets: targets, maximumSpread: .seconds(10), maximumStartRate: 100)
    }

    func testShortListsStartWithinTenSecondsAndLongListsUseTheIntervalToBoundTheStartRate() {
        XCTAssertEqual(window(1), .seconds(10), "a short list probes soon after start")
        XCTAssertEqual(window(1_000), .seconds(10), "1,000 targets in 10 s is 100 starts/s")
        XCTAssertEqual(window(3_000), .seconds(30))
        XCTAssertEqual(window(10_000), .seconds(60), "never wider than the interval")
        XCTAssertEqual(window(5, interval: .seconds(2)), .seconds(2), "never wider than the interval")
        XCTAssertEqual(window(0), .seconds(10))
        XCTAssertEqual(ProbeScheduler.spreadWindow(interval: .seconds(60), targets: Int.max, maximumSpread: .seconds(10),
                                                   maximumStartRate: 0), .seconds(60), "no overflow")
    }

    func testTheDelayIsStableWithinTheWindowAndKeepsTheWallClockPhase() {
        let window = Duration.seconds(60)
        let width = window.inNanoseconds
        for name in ["t0", "t1", "api.example.com", ""] {
            let slot = ProbeScheduler.phaseSlot(name: name, window: window)
            XCTAssertTrue((0..<width).contains(slot), name)
            XCTAssertEqual(slot, ProbeScheduler.phaseSlot(name: name, window: window), "the same name, the same place")
            // A start (or restart) at any wall-clock time lands the first tick on the same phase of the window.
            for wall in [Int64(0), 1, 59_999_999_999, 1_764_000_000_123_456_789, -7] {
                let delay = ProbeScheduler.firstTickDelay(name: name, window: window, wallClockNanoseconds: wall).inNanoseconds
                XCTAssertTrue((0..<width).contains(delay), "\(name) at \(wall): \(delay)")
                var phase = (wall + delay) % width
                if phase < 0 { phase += width }
                XCTAssertEqual(phase, slot, "\(name) at \(wall)")
            }
        }
        XCTAssertEqual(ProbeScheduler.firstTickDelay(name: "x", window: .zero, wallClockNanoseconds: 5), .zero)
    }

    func testTenThousandNamesSpreadEvenlyOverTheInterval() {
        // 10,000 targets over 60 s: 167 starts per second on average; no second may carry a burst.
        var perSecond = [Int](repeating: 0, count: 60)
        for index in 0..<10_000 {
            let slot = ProbeScheduler.phaseSlot(name: "t\(index)", window: .seconds(60))
            perSecond[Int(slot / 1_000_000_000)] += 1
        }
        XCTAssertLessThanOrEqual(perSecond.max() ?? 0, 230, "\(perSecond)")
        XCTAssertGreaterThanOrEqual(perSecond.min() ?? 0, 110, "\(perSecond)")
    }
}
