import NetVigilConcurrency
import XCTest

/// The shutdown deadline's decisions: signals before and after start-up, and a stop a failed service began.
final class ShutdownDeadlineStateTests: XCTestCase {
    func testASignalDuringStartUpExitsAtOnce() {
        var state = ShutdownDeadlineState()
        XCTAssertEqual(state.signalReceived(), .exitDuringStartUp)
        XCTAssertEqual(state.signalReceived(), .exitDuringStartUp)
    }

    func testTheFirstSignalStartsTheTimerAndTheSecondExits() {
        var state = ShutdownDeadlineState()
        state.running()
        XCTAssertEqual(state.signalReceived(), .startTimer)
        XCTAssertEqual(state.shutdownBegan(), .none, "the group's own start of shutdown does not start a second timer")
        XCTAssertEqual(state.signalReceived(), .exitNow)
    }

    func testAStopWithoutASignalStartsTheTimerOnceAndASignalAfterItIsTheFirst() {
        var state = ShutdownDeadlineState()
        state.running()
        XCTAssertEqual(state.shutdownBegan(), .startTimer)
        XCTAssertEqual(state.shutdownBegan(), .none)
        XCTAssertEqual(state.signalReceived(), .none, "the timer runs already; one signal does not force the exit")
        XCTAssertEqual(state.signalReceived(), .exitNow)
    }
}
