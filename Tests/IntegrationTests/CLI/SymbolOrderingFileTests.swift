import Foundation
import NetVigilTestSupport
import XCTest

/// The release link's function order (deploy/linker/netvigil.order, made by deploy/linker/generate-order.sh from callgrind
/// profiles through deploy/linker/order_symbols.py): the committed list is what lld's `--symbol-ordering-file` reads, and
/// the generator writes that format, in its five groups (start-up only, start-up and occasional, start-up and cycle,
/// cycle only, occasional only; the cycle's by calls) and then the conformance descriptors in their records' order, in
/// an order lld follows.
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
        let source = try directory.write("hot.c", #"""
            int startupOnly(int x) { return x + 1; }
            int startupAndOccasional(int x) { return x + 2; }
            int bothRare(int x) { return x * 3; }
            int bothHot(int x) { return x * 5; }
            int cycleHot(int x) { return x - 7; }
            int cycleRare(int x) { return x - 9; }
            int occasionalOnly(int x) { return x << 1; }
            int neverRun(int x) { return x ^ 5; }
            __attribute__((used)) const int plainConstant = 1;
            __attribute__((used)) const int $s3hot1BVAA1PAAMc = 2;
            __attribute__((used)) const int $s3hot1AVAA1PAAMc = 3;
            __attribute__((used)) const int $s3hot1CVAA1PAAMc = 4;
            // The conformance records, as swiftc emits them: a 32-bit offset from each to its descriptor. They list
            // C, then A; B has no record.
            __asm__(".section swift5_protocol_conformances,\"a\"\n.p2align 2\n"
                    ".long \"$s3hot1CVAA1PAAMc\" - .\n.long \"$s3hot1AVAA1PAAMc\" - .\n.text\n");
            int main(int argc, char **argv) {
                return startupOnly(argc) + startupAndOccasional(argc) + bothRare(argc) + bothHot(argc) + cycleHot(argc)
                    + cycleRare(argc) + occasionalOnly(argc) + neverRun(argc);
            }

            """#)
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
            fn=(3) bothRare
            0 2
            fn=(4) bothHot
            0 2
            fn=(5) startupAndOccasional
            0 2
            ob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
            fn=(6) (below main)
            0 9

            """)
        // The cycle: calls counted over every caller, in this binary or another object (libc here).
        let cycle = try directory.write("cycle.out", """
            ob=(1) \(binary)
            fn=(1) cycleRare
            0 2
            fn=(2) cycleHot
            0 2
            fn=(3) bothHot'2
            0 2
            fn=(4) bothRare
            0 2
            cfn=(2)
            calls=300 0
            0 1
            ob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6
            fn=(6) start_thread
            0 1
            cob=(1)
            cfn=(1)
            calls=2 0
            0 1
            cob=(1)
            cfn=(2)
            calls=100 0
            0 1
            cob=(1)
            cfn=(3)
            calls=250 0
            0 1
            cob=(1)
            cfn=(4)
            calls=3 0
            0 1

            """)
        let occasional = try directory.write("occasional.out", """
            ob=(1) \(binary)
            fn=(1) occasionalOnly
            0 2
            fn=(2) startupAndOccasional
            0 2
            fn=(3) cycleHot
            0 2

            """)
        let order = directory.path("hot.order")
        let script = root.appendingPathComponent("deploy/linker/order_symbols.py").path
        let run = try ProcessRunner.run([script, binary, order, startup, "--", cycle, "--", occasional],
                                        executable: URL(fileURLWithPath: "/usr/bin/python3"))
        XCTAssertEqual(run.status, 0, run.stderr)
        let written = try String(contentsOfFile: order, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        // Start-up only, start-up and occasional, start-up and cycle (least called first), cycle only (most called
        // first: cycleHot's 400 calls next to bothHot's 250), occasional only.
        // Then the Swift protocol conformance descriptors ($s...Mc), in the order of the records that point to them,
        // then any without a record, by name.
        let expected = ["main", "startupOnly", "startupAndOccasional", "bothRare", "bothHot", "cycleHot", "cycleRare", "occasionalOnly"]
        let descriptors = ["$s3hot1CVAA1PAAMc", "$s3hot1AVAA1PAAMc", "$s3hot1BVAA1PAAMc"]
        XCTAssertEqual(written.map(String.init), expected + descriptors)

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
        let placed = try (expected + ["neverRun"]).map { try XCTUnwrap(address[$0], $0) }
        XCTAssertEqual(placed, placed.sorted(), "addresses in the order \(expected + ["neverRun"])")
        let constants = try (descriptors + ["plainConstant"]).map { try XCTUnwrap(address[$0], $0) }
        XCTAssertEqual(constants, constants.sorted(), "addresses in the order \(descriptors + ["plainConstant"])")
    }

    /// Compiles `source` with one section per function and per constant and links it with lld; returns the
    /// compiler's stderr.
    @discardableResult
    private func link(_ source: String, into output: String, extra: [String] = []) throws -> String {
        let result = try ProcessRunner.run(["-O1", "-ffunction-sections", "-fdata-sections", "-fuse-ld=lld", "-o", output, source] + extra,
                                           executable: clang, timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stderr
    }
}
