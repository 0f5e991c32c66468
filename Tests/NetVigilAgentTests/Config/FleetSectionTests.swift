import Foundation
import XCTest
@testable import NetVigilAgent

/// `fleet:`: defaults, where the password comes from, TLS rules, and located errors that never quote a secret.
final class FleetSectionTests: XCTestCase {
    private func load(_ yaml: String, file: String = "n.yml") throws -> AgentConfiguration {
        try AgentConfiguration(yaml: yaml, file: file)
    }

    private func message(_ yaml: String, file: String = "n.yml") -> String {
        do { _ = try load(yaml, file: file); return "(loaded)" } catch { return "\(error)" }
    }

    func testAbsentByDefault() throws {
        XCTAssertNil(try load("storage: { path: x.sqlite }").fleet)
    }

    func testRemoteHostDefaultsToVerifyFullAndTheURLUserIsTheAgent() throws {
        let fleet = try XCTUnwrap(try load("fleet: { postgres: \"postgres://web1@db.example.net:6432/netvigil\" }").fleet)
        XCTAssertEqual(fleet.url.host, "db.example.net")
        XCTAssertEqual(fleet.url.port, 6432)
        XCTAssertEqual(fleet.url.database, "netvigil")
        XCTAssertEqual(fleet.agent, "web1")
        XCTAssertEqual(fleet.url.user, "web1")
        XCTAssertEqual(fleet.tlsMode, .verifyFull)
        XCTAssertNil(fleet.password)
        XCTAssertEqual(fleet.heartbeat, .seconds(30))
    }

    func testLoopbackMayGoWithoutTLSAndTheAgentDefaultsToTheHostName() throws {
        let fleet = try XCTUnwrap(try load("fleet: { postgres: \"postgres://127.0.0.1/fleet\", heartbeat: 5s }").fleet)
        XCTAssertEqual(fleet.tlsMode, .disable)
        XCTAssertEqual(fleet.url.port, 5432)
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init)
        XCTAssertEqual(fleet.agent, host)
        XCTAssertEqual(fleet.url.user, host)
        XCTAssertEqual(fleet.heartbeat, .seconds(5))
    }

    func testPasswordFromTheEnvironmentOrAFileNeverInTheDescription() throws {
        setenv("NETVIGIL_TEST_FLEET_PASSWORD", "s3cr3t-from-env", 1)
        defer { unsetenv("NETVIGIL_TEST_FLEET_PASSWORD") }
        let fromURL = try XCTUnwrap(try load("""
            fleet: { postgres: "postgres://web1:${NETVIGIL_TEST_FLEET_PASSWORD}@db.example.net/fleet" }
            """).fleet)
        XCTAssertEqual(fromURL.password?.value, "s3cr3t-from-env")
        XCTAssertNil(fromURL.url.password)
        XCTAssertFalse("\(fromURL)".contains("s3cr3t"))
        XCTAssertEqual("\(fromURL.url)", "postgres://web1@db.example.net:5432/fleet")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "file-secret\n".write(to: directory.appendingPathComponent("fleet.pass"), atomically: true, encoding: .utf8)
        let fromFile = try XCTUnwrap(try load("""
            fleet:
              postgres: postgres://web1@db.example.net/fleet
              password_file: fleet.pass
            """, file: directory.appendingPathComponent("n.yml").path).fleet)
        XCTAssertEqual(fromFile.password?.value, "file-secret")

        let both = message("""
            fleet:
              postgres: "postgres://web1:${NETVIGIL_TEST_FLEET_PASSWORD}@db.example.net/fleet"
              password_file: fleet.pass
            """)
        XCTAssertEqual(both, "n.yml:3:18: fleet.password_file: set the password either in the URL or in password_file, not both")
        XCTAssertFalse(both.contains("s3cr3t"))
    }

    func testLocatedErrorsThatDoNotQuoteTheURL() {
        let query = message("""
            fleet:
              postgres: "postgres://web1:hunter2@db.example.net/fleet?sslmode=disable"
            """)
        XCTAssertEqual(query, "n.yml:2:13: fleet.postgres: expected postgres://USER@HOST[:PORT]/DATABASE: query parameters are not read "
                       + "(set TLS with fleet.tls or --tls)")
        XCTAssertFalse(query.contains("hunter2"))
        XCTAssertEqual(message("fleet: { postgres: \"mysql://hunter2@db/fleet\" }"),
                       "n.yml:1:20: fleet.postgres: expected postgres://USER@HOST[:PORT]/DATABASE")
        XCTAssertEqual(message("fleet: { postgres: \"postgres://db.example.net\" }"),
                       "n.yml:1:20: fleet.postgres: expected postgres://USER@HOST[:PORT]/DATABASE: the database name is missing")
        XCTAssertEqual(message("fleet: { heartbeat: 30s }"), "n.yml:1:8: fleet.postgres: required key is missing")
        XCTAssertEqual(message("""
            fleet:
              postgres: postgres://web1@db.example.net/fleet
              tls: { mode: disable }
            """), "n.yml:3:16: fleet.tls.mode: disable is allowed only for a loopback host (db.example.net is not): use verify-full or require")
        XCTAssertEqual(message("""
            fleet:
              postgres: postgres://web1@db.example.net/fleet
              agent: web2
            """), "n.yml:3:10: fleet.agent: the agent name must be the URL's user (web1): rows are accepted only under the login role's own name")
        XCTAssertEqual(message("""
            fleet:
              postgres: postgres://db.example.net/fleet
              agent: "web 2"
            """), "n.yml:3:10: fleet.agent: expected a name of letters, digits, _, - and . starting with a letter (at most 63 bytes)")
        XCTAssertEqual(message("""
            fleet:
              postgres: postgres://web1@db.example.net/fleet
              tls: { mode: require, ca: /etc/hosts }
            """), "n.yml:3:29: fleet.tls.ca: ca is used only with mode verify-full")
        XCTAssertEqual(message("""
            fleet:
              postgres: postgres://web1@db.example.net/fleet
              heartbeat: 100ms
            """), "n.yml:3:14: fleet.heartbeat: must be at least 1s")
        XCTAssertEqual(message("fleet: { postgres: postgres://web1@db.example.net/fleet, batch: 5 }"),
                       "n.yml:1:58: fleet.batch: unknown key; expected one of: postgres, password_file, tls, agent, heartbeat")
    }

    func testAgentNames() {
        XCTAssertTrue(FleetSection.isValidAgentName("web-1.eu_west"))
        XCTAssertFalse(FleetSection.isValidAgentName("1web"))
        XCTAssertFalse(FleetSection.isValidAgentName("web\"1"))
        XCTAssertFalse(FleetSection.isValidAgentName(String(repeating: "a", count: 64)))
        XCTAssertFalse(FleetSection.isValidAgentName(""))
    }
}
