import Foundation
import NetVigilTestSupport
import XCTest

/// The release link's function order (deploy/linker/netvigil.order, made by deploy/linker/generate-order.sh from callgrind
/// profiles through deploy/linker/order_symbols.py): the committed list is what lld's `--symbol-ordering-file` reads, and
/// the generator writes that format, grouped start-up only / both / steady only, in an order lld follows.
final class SymbolOrderingFileTests: XCTestCase {
    private let root = SchemaValidator.repositoryRoot
    /// The Swift toolchain's clang (it links with the toolchain's lld): on PATH, as `swift` is, else in /opt/swift.
    private let clang = URL(fileURLWithPath: ListeningProcess.executable(named: "clang",
                                                                         extraDirectories: ["/opt/swift/usr/bin"])
        ?? "/opt/swift/usr/bin/clang")

    func testTheCommittedListIsOneMangledNameALineAndTheReleaseLinkReadsIt() throws {
        let text = try String(contentsOf: root.appendingPathComponent("deploy/linker/netvigil.order"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertTrue(text.hasSuffix("\n"))
        XCTAssertTrue(lines.first?.hasPrefix("# ") ?? false, "the list starts with its header comment")
        let names = lines.filter { !$0.hasPrefix("#") }
        XCTAssertGreaterThan(names.count, 1_000)
        XCTAssertEqual(Set(names).count, names.count, "each name once")
        for name in names {
            XCTAssertFalse(name.isEmpty || name.contains(where: \.isWhitespace), "not one symbol name: \(name)")
        }
        XCTAssertTrue(names.contains("netvigil_main"), "the entry point is on the start-up path")

        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(#""--symbol-ordering-file=\(Context.packageDirectory)/deploy/linker/netvigil.order""#))
    }

    func testTheGeneratorWritesGroupsLLDPlacesInThatOrder() throws {
        guard FileManager.default.isExecutableFile(atPath: clang.path) else {
            return XCTFail("clang missing: the Swift toolchain's clang (with its ld.lld) must be on PATH")
        }
        let directory = try TemporaryDirectory()
        let source = try directory.write("hot.c", """
            int startupOnly(int x) { return x + 1; }
            int both(int x) { return x * 3; }
            int steadyOnly(int x) { return x - 7; }
            int neverRun(int x) { return x ^ 5; }
            int main(int argc, char **argv) { return startupOnly(argc) + both(argc) + steadyOnly(argc) + neverRun(argc); }

            """)
        let binary = directory.path("hot")
        try link(source, into: binary)
        // Callgrind's format with name compression: ids defined on cfn=/cob= lines and used on fn=/ob= lines.
        let startup = try directory.write("startup.out", """
            ob=(1) \(binary)
            fn=(1) main
            0 4
            cfn=(2) startupOnly
            calls=1 0
            0 2
            fn=(2)
            0 2
            fn=(3) both
            0 2
            ob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
            fn=(4) (below main)
            0 9

            """)
        let steady = try directory.write("steady.out", """
            ob=(1) \(binary)
            fn=(3) steadyOnly
            0 2
            fn=(4) both'2
            0 2

            """)
        let order = directory.path("hot.order")
        let script = root.appendingPathComponent("deploy/linker/order_symbols.py").path
        let run = try ProcessRunner.run([script, binary, order, startup, "--", steady],
                                        executable: URL(fileURLWithPath: "/usr/bin/python3"))
        XCTAssertEqual(run.status, 0, run.stderr)
        let written = try String(contentsOfFile: order, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(written, ["main", "startupOnly", "both", "steadyOnly"])

        // lld reads it without a warning and places the functions in that order, ahead of the one that never ran.
        let ordered = directory.path("hot-ordered")
        let stderr = try link(source, into: ordered, extra: ["-Wl,--symbol-ordering-file=\(order)"])
        XCTAssertEqual(stderr, "")
        let symbols = try ProcessRunner.run(["--defined-only", ordered], executable: URL(fileURLWithPath: "/usr/bin/nm"))
        var address: [String: UInt64] = [:]
        for line in symbols.stdout.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3, let value = UInt64(fields[0], radix: 16) { address[String(fields[2])] = value }
        }
        let placed = try ["main", "startupOnly", "both", "steadyOnly", "neverRun"].map { try XCTUnwrap(address[$0], $0) }
        XCTAssertEqual(placed, placed.sorted(), "addresses of main, startupOnly, both, steadyOnly, neverRun")
    }

    /// Compiles `source` with one section per function and links it with lld; returns the compiler's stderr.
    @discardableResult
    private func link(_ source: String, into output: String, extra: [String] = []) throws -> String {
        let result = try ProcessRunner.run(["-O1", "-ffunction-sections", "-fuse-ld=lld", "-o", output, source] + extra,
                                           executable: clang, timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stderr
    }
}
