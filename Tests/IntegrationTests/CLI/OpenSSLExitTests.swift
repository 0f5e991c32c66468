import Foundation
import NetVigilTestSupport
import XCTest

/// `netvigil` keeps OpenSSL's state until the process is gone (`OpenSSLPreparation.keepStateUntilExit`). With
/// OpenSSL's own `atexit` clean-up, the release binary crashed in 3 of 300 runs of `probe --bogus` and
/// `probe --help`: it exited while another thread was still inside OpenSSL. Whether that race is hit depends
/// on timing; whether the clean-up runs does not, so gdb stops at `OPENSSL_cleanup` if anything calls it.
final class OpenSSLExitTests: XCTestCase {
    private let gdb = URL(fileURLWithPath: "/usr/bin/gdb")

    func testExitLeavesOpenSSLsStateInPlace() throws {
        guard FileManager.default.isExecutableFile(atPath: gdb.path) else {
            return XCTFail("gdb missing: make test installs the Debian package gdb")
        }
        let commands = [["probe", "--bogus"], ["probe", "http://127.0.0.1:\(ProcessRunner.freePort())/"]]
        for arguments in commands {
            let result = try ProcessRunner.run(
                ["-nx", "-batch", "-ex", "set breakpoint pending on", "-ex", "break OPENSSL_cleanup", "-ex", "run",
                 "--args", ProcessRunner.binary.path] + arguments, executable: gdb, timeout: 120)
            let output = result.stdout + result.stderr
            XCTAssertTrue(output.contains("Breakpoint 1 (OPENSSL_cleanup) pending") || output.contains("Breakpoint 1 at"), output)
            XCTAssertTrue(output.contains("exited with code"), "\(arguments): \(output)")
            XCTAssertFalse(output.contains("hit Breakpoint 1"), "\(arguments) ran OpenSSL's clean-up at exit: \(output)")
        }
    }
}
