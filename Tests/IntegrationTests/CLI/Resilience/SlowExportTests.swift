import Foundation
import NetVigilStore
import NetVigilTestSupport
import XCTest

/// Five `/v1/export` readers at 1 KB/s while 100 targets are probed every second: an export pages in short read
/// transactions, so SQLite's checkpoints keep the WAL near its 16 MiB auto-checkpoint size. An export holding one
/// snapshot for its whole stream let the WAL grow with every write (here about 5 MB/s: past 64 MB in 15 s).
final class SlowExportTests: XCTestCase {
    private var daemon: DaemonUnderTest!
    private var nginx: NginxProcess?

    override func tearDown() {
        daemon?.tearDown()
        nginx?.stop()
    }

    /// `reader.py PORT SECONDS OUT`: streams `/v1/export` with a 4 KiB receive buffer, 1 KB per second; prints the
    /// bytes read and whether the export was still running when it stopped.
    private static let reader = #"""
        import socket, sys, time
        port, seconds, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
        s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", port)); s.sendall(b"GET /v1/export HTTP/1.1\r\nHost: feed\r\n\r\n")
        total, ended, deadline = 0, False, time.time() + seconds
        while time.time() < deadline:
            chunk = s.recv(1024)
            if not chunk: ended = True; break
            total += len(chunk)
            if chunk.endswith(b"0\r\n\r\n"): ended = True; break
            time.sleep(1)
        open(out, "w").write(f"read={total} ended={ended}\n")
        """#

    func testSlowExportReadersDoNotPinTheWAL() async throws {
        daemon = try DaemonUnderTest()
        // History large enough that an export outlasts every socket buffer: 20,000 results with 3 KB of details.
        let path = daemon.directory.path("n.sqlite")
        let store = try Store.open(path: path)
        let details = "{\"body\":\"" + String(repeating: "x", count: 3_000) + "\"}"
        let start = Timestamp(milliseconds: Timestamp.now().milliseconds - 86_400_000)
        for batch in 0..<20 {
            let probes = (0..<1_000).map { index in
                ProbeRecord(time: start.adding(.milliseconds(Int64(batch * 1_000 + index) * 100)), target: "old",
                            url: "http://old.example/", outcome: .ok, httpStatus: 200, detailsJSON: details)
            }
            try await store.write(WriteBatch(probes: probes))
        }
        let port = ProcessRunner.freePort()
        nginx = try NginxProcess(prefix: daemon.directory.path("nginx"), servers: """
                server { listen 127.0.0.1:\(port); location = /health { return 200 'up'; } }
            """, ports: [port])
        try daemon.start(config: daemon.configuration(targets: 100, url: "http://127.0.0.1:\(port)/health"))
        let readers = try (0..<5).map { index in
            try daemon.python("reader\(index).py", Self.reader, ["\(daemon.feedPort)", "15", daemon.directory.path("reader\(index).out")])
        }
        var peak: Int64 = 0
        let wal = path + "-wal"
        while readers.contains(where: \.isRunning) {
            let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int64) ?? 0
            peak = max(peak, size)
            try await Task.sleep(for: .milliseconds(250))
        }
        for index in 0..<5 {
            let out = (try? String(contentsOfFile: daemon.directory.path("reader\(index).out"), encoding: .utf8)) ?? ""
            XCTAssertTrue(out.contains("ended=False"), "reader \(index) must still be mid-export after 15 s: \(out)")
            let read = Int(out.split(separator: " ").first?.split(separator: "=").last ?? "") ?? 0
            XCTAssertGreaterThan(read, 8_000, "reader \(index) read at about 1 KB/s: \(out)")
        }
        print("WAL peak with 5 slow export readers and 100 targets per second: \(peak) bytes")
        XCTAssertGreaterThan(daemon.metric("netvigil_probes_total", matching: "outcome=\"ok\""), 1_000, "probing went on")
        XCTAssertLessThan(peak, 32 << 20, "the WAL stays near the 16 MiB auto-checkpoint size")
        XCTAssertEqual(daemon.health().status, 200)
    }
}
