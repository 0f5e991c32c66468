import Foundation
import NetVigilTestSupport
import Synchronization
import XCTest
@testable import NetVigilAgent

/// The reload's hooks frame every reload, applied or refused: the daemon turns its code's read-ahead on before and
/// drops the pages the reload faulted in after.
final class ConfigReloaderHooksTests: XCTestCase {
    func testEveryReloadIsFramedByTheHooksAppliedOrRefused() async throws {
        let steps = Mutex<[String]>([])
        let directory = try TemporaryDirectory()
        let path = directory.path("netvigil.yml")
        let reloader = ConfigReloader(path: path, logger: LogRecorder().logger(),
                                      willReload: { steps.withLock { $0.append("will") } },
                                      didReload: { steps.withLock { $0.append("did") } }) { _ in
            steps.withLock { $0.append("apply") }
            return .init(added: [], changed: [], removed: [], needsRestart: [])
        }
        try "storage: { retension: 30d }\n".write(toFile: path, atomically: true, encoding: .utf8)
        let refused = await reloader.reload()
        XCTAssertNil(refused)
        XCTAssertEqual(steps.withLock { $0 }, ["will", "did"], "a refused file still ends with didReload")

        try "labels: { site: fra1 }\n".write(toFile: path, atomically: true, encoding: .utf8)
        let applied = await reloader.reload()
        XCTAssertNotNil(applied)
        XCTAssertEqual(steps.withLock { $0 }, ["will", "did", "will", "apply", "did"])
    }
}
