import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NetVigilAgent
import NetVigilProbeModel
import NetVigilStore
import NetVigilTestSupport
import XCTest
@testable import NetVigilFeed

/// `/v1/events` through a real server on an ephemeral port, read by curl as an SSE client would read it.
final class EventsRouteTests: XCTestCase {
    static let base = Timestamp(milliseconds: 1_795_000_000_000)

    static let probe = ProbeRecord(
        time: base, target: "api", url: "https://api.example/health", outcome: .failed, errorKind: .trust,
        errorMessage: "pin mismatch", httpStatus: 200, httpVersion: "1.1", contentType: "application/json",
        contentLength: 15, timings: PhaseTimings(resolve: 0.125, connect: 0.5, tls: 3.25, total: 4.886),
        tlsVersion: "TLSv1.3", tlsCipher: "TLS_AES_256_GCM_SHA384", alpn: "http/1.1", trustVerdict: .trusted,
        pinVerdict: .mismatch, reachabilityStatus: "ReachableViaWiFi", resolvedAddress: "127.0.0.1",
        servedChain: [CertificateRecord(sha256: String(repeating: "cd", count: 32), pem: "PEM", subject: "CN=api",
                                        issuer: "CN=ca", serial: "02", notBefore: base, notAfter: base.adding(.seconds(86_400)),
                                        spkiPin: "sha256/BBBB")],
        detailsJSON: "{\"expected\":[\"sha256/AAAA\"],\n \"note\":\"two\\nlines\"}")

    static let reachability = ReachabilityEventRecord(
        time: base, target: "default", status: "NotReachable", statusCode: 0, flags: 0, flagNames: [],
        interface: "eth0", interfaceKind: "ethernet", gateway: nil, source: nil, family: "ipv4")

    static let alert = AlertEvent(kind: "pin_mismatch", state: .firing, target: "api", time: base,
                                  message: "api: served chain matches no pin")

    /// curl -N reading the stream into a file; stopped (killed) at teardown.
    private final class StreamReader: @unchecked Sendable {
        let process = Process()
        let body: String
        let headers: String

        init(url: String, headers extra: [String] = [], directory: URL, name: String = "events") throws {
            body = directory.appendingPathComponent("\(name).body").path
            headers = directory.appendingPathComponent("\(name).headers").path
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["-s", "-N", "-m", "60", "-D", headers, "-o", body] + extra.flatMap { ["-H", $0] } + [url]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        var text: String { (try? String(contentsOfFile: body, encoding: .utf8)) ?? "" }

        /// Polls the body until `condition` holds; fails the test after `timeout`.
        @discardableResult
        func wait(timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
                  until condition: (String) -> Bool) async throws -> String {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                let text = self.text
                if condition(text) { return text }
                try await Task.sleep(for: .milliseconds(20))
            }
            XCTFail("stream did not reach the expected state within \(timeout) s; got: \(text)", file: file, line: line)
            return text
        }

        func stop() {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }

    /// One parsed SSE event.
    struct Event: Equatable {
        var id: String
        var name: String
        var data: String
    }

    static func events(_ text: String) -> [Event] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var event = Event(id: "", name: "", data: "")
            var fields = 0
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)); fields += 1 }
                if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)); fields += 1 }
                if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)); fields += 1 }
            }
            return fields == 3 ? event : nil
        }
    }

    /// A reader of the test server's `/v1/events`; the caller stops it (`defer`).
    private static func reader(_ client: some TestClientProtocol, _ directory: URL, headers: [String] = [],
                               name: String = "events") throws -> StreamReader {
        let port = try XCTUnwrap(client.port)
        return try StreamReader(url: "http://127.0.0.1:\(port)/v1/events", headers: headers, directory: directory, name: name)
    }

    func testPublishedEventsArriveAsServerSentEvents() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url
        let store = try Store.open(path: directory.path("n.sqlite"))
        let hub = EventHub()
        let app = FeedFixtures.makeApp(store, events: hub)
        try await app.test(.live) { client in
            let stream = try Self.reader(client, folder)
            defer { stream.stop() }
            try await stream.wait { $0.contains(": netvigil events\n\n") }
            hub.publish(.reachability(Self.reachability))
            hub.publish(.probe(Self.probe))
            hub.publish(.alert(Self.alert))
            let text = try await stream.wait { Self.events($0).count == 3 }
            let headers = try String(contentsOfFile: stream.headers, encoding: .utf8).lowercased()
            XCTAssertTrue(headers.contains("content-type: text/event-stream"), headers)
            XCTAssertTrue(headers.contains("cache-control: no-cache"), headers)

            let events = Self.events(text)
            XCTAssertEqual(events.map(\.id), ["1", "2", "3"])
            XCTAssertEqual(events.map(\.name), ["reachability", "probe", "alert"])
            XCTAssertTrue(text.contains("id: 1\nevent: reachability\ndata: {"), text)

            // probe and reachability data are the export's row objects (the exporter adds only the row id).
            try await store.write(WriteBatch(probes: [Self.probe], reachabilityEvents: [Self.reachability]))
            let output = MemoryOutput()
            _ = try HistoryExporter(store: store, version: "t").export(ExportQuery(), format: .json, to: output)
            let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.string.utf8)) as? [String: Any])
            for (event, key) in [(events[0], "reachability"), (events[1], "probes")] {
                var exported = try XCTUnwrap((document[key] as? [[String: Any]])?.first)
                exported["id"] = nil
                let data = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? NSDictionary)
                XCTAssertEqual(data, exported as NSDictionary, key)
            }
            // ... so with a row id and type they validate against the export schema.
            var lines = [#"{"type":"header","netvigil":"t","exported_at":"2026-11-18T11:06:40.000Z","range":{"since":null,"until":null,"targets":[],"kinds":["probes","reachability","alerts"]}}"#]
            for (event, type) in [(events[0], "reachability"), (events[1], "probe")] {
                lines.append(#"{"type":"\#(type)","id":7,"# + event.data.dropFirst())
            }
            try SchemaValidator.assertValid(text: lines.joined(separator: "\n") + "\n", ndjson: true)

            let alert = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(events[2].data.utf8)) as? [String: Any])
            XCTAssertEqual(alert["kind"] as? String, "pin_mismatch")
            XCTAssertEqual(alert["state"] as? String, "firing")
            XCTAssertEqual(alert["target"] as? String, "api")
            XCTAssertEqual(alert["time"] as? String, "2026-11-18T11:06:40.000Z")
            XCTAssertEqual(alert["reminder"] as? Bool, false)
            XCTAssertEqual(Set(alert.keys), ["kind", "state", "target", "time", "message", "reminder"])
            stream.stop()
        }
        withExtendedLifetime(directory) {}
    }

    func testLastEventIDReplaysWhatIsRetainedThenGoesLive() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url
        let store = try Store.open(path: directory.path("n.sqlite"))
        let hub = EventHub(capacity: 4)
        for second in 0..<6 {
            var record = Self.reachability
            record.time = Self.base.adding(.seconds(Int64(second)))
            hub.publish(.reachability(record))
        }
        let app = FeedFixtures.makeApp(store, events: hub)
        try await app.test(.live) { client in
            let resumed = try Self.reader(client, folder, headers: ["Last-Event-ID: 3"], name: "resumed")
            defer { resumed.stop() }
            try await resumed.wait { Self.events($0).count == 3 }
            var alert = Self.alert
            alert.state = .resolved
            hub.publish(.alert(alert))
            let text = try await resumed.wait { Self.events($0).count == 4 }
            XCTAssertEqual(Self.events(text).map(\.id), ["4", "5", "6", "7"])
            XCTAssertEqual(Self.events(text).last?.name, "alert")

            // Older than what is retained: the retained events (3 of 1...7 are gone).
            let old = try Self.reader(client, folder, headers: ["Last-Event-ID: 1"], name: "old")
            defer { old.stop() }
            let oldIDs = Self.events(try await old.wait { Self.events($0).count == 4 }).map(\.id)
            XCTAssertEqual(oldIDs, ["4", "5", "6", "7"])
            // From before a daemon restart (above the newest id): everything retained.
            let restarted = try Self.reader(client, folder, headers: ["Last-Event-ID: 999"], name: "restarted")
            defer { restarted.stop() }
            let restartedIDs = Self.events(try await restarted.wait { Self.events($0).count == 4 }).map(\.id)
            XCTAssertEqual(restartedIDs, ["4", "5", "6", "7"])
            // Without the header: only new events.
            let fresh = try Self.reader(client, folder, name: "fresh")
            defer { fresh.stop() }
            try await fresh.wait { $0.contains(": netvigil events") }
            hub.publish(.alert(Self.alert))
            let freshIDs = Self.events(try await fresh.wait { Self.events($0).count == 1 }).map(\.id)
            XCTAssertEqual(freshIDs, ["8"])

            try await client.execute(uri: "/v1/events", method: .get, headers: [.init("Last-Event-ID")!: "abc"]) { response in
                XCTAssertEqual(response.status, .badRequest)
                XCTAssertTrue(String(buffer: response.body).contains("Last-Event-ID: expected an event id"))
            }
            for reader in [resumed, old, restarted, fresh] { reader.stop() }
        }
        withExtendedLifetime(directory) {}
    }

    func testStreamEndsWhenTheHubFinishesOrTheClientLeaves() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url
        let store = try Store.open(path: directory.path("n.sqlite"))
        let hub = EventHub()
        let app = FeedFixtures.makeApp(store, events: hub)
        try await app.test(.live) { client in
            let port = try XCTUnwrap(client.port)
            // The client hangs up: the server notices at once (no socket left half-closed on its side).
            let leaving = try Self.reader(client, folder, name: "leaving")
            defer { leaving.stop() }
            try await leaving.wait { $0.contains(": netvigil events") }
            leaving.stop()
            let deadline = Date().addingTimeInterval(5)
            var sockets = ""
            repeat {
                try await Task.sleep(for: .milliseconds(100))
                sockets = try ProcessRunner.run(["-tanH", "state", "close-wait", "sport", "=", ":\(port)"],
                                                executable: URL(fileURLWithPath: "/usr/bin/ss")).stdout
            } while !sockets.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && Date() < deadline
            XCTAssertEqual(sockets.trimmingCharacters(in: .whitespacesAndNewlines), "", "server kept the stream open")

            // The daemon stops: the hub finishes and the response ends properly (curl exits 0 on a complete body).
            let staying = try Self.reader(client, folder, name: "staying")
            defer { staying.stop() }
            try await staying.wait { $0.contains(": netvigil events") }
            hub.publish(.alert(Self.alert))
            try await staying.wait { Self.events($0).count == 1 }
            hub.finish()
            let end = Date().addingTimeInterval(5)
            while staying.process.isRunning && Date() < end { try await Task.sleep(for: .milliseconds(20)) }
            XCTAssertFalse(staying.process.isRunning, "the stream did not end when the hub finished")
            staying.stop()
            XCTAssertEqual(staying.process.terminationStatus, 0)
        }
        withExtendedLifetime(directory) {}
    }

    func testKeepAliveCommentsOnAnIdleStream() async throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url
        let store = try Store.open(path: directory.path("n.sqlite"))
        let hub = EventHub()
        let router = Router()
        FeedRoutes.addEvents(to: router, state: FeedState(store: store, events: hub), keepAlive: .milliseconds(150))
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let stream = try Self.reader(client, folder)
            defer { stream.stop() }
            let text = try await stream.wait { $0.components(separatedBy: ": keep-alive\n\n").count > 3 }
            XCTAssertTrue(text.hasPrefix(": netvigil events\n\n: keep-alive\n\n"), text)
            XCTAssertEqual(FeedRoutes.eventsKeepAlive, .seconds(15))
            stream.stop()
        }
        withExtendedLifetime(directory) {}
    }

    func testWithoutAHubTheRouteSays503() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.open(path: directory.path("n.sqlite"))
        try await FeedFixtures.makeApp(store).test(.router) { client in
            try await client.execute(uri: "/v1/events", method: .get) { response in
                XCTAssertEqual(response.status, .serviceUnavailable)
                XCTAssertTrue(String(buffer: response.body).contains("event stream not available"))
            }
        }
    }
}
