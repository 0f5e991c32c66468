import Foundation
import NetVigilTestSupport
import XCTest

final class CheckConfigCommandTests: XCTestCase {
    func testVersion() throws {
        let flag = try ProcessRunner.run(["--version"])
        let command = try ProcessRunner.run(["version"])
        XCTAssertEqual(flag.status, 0)
        XCTAssertEqual(command.status, 0)
        XCTAssertEqual(flag.stdout, command.stdout)
        XCTAssertTrue(flag.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil, flag.stdout)
    }

    func testExampleConfigurationIsValid() throws {
        let example = SchemaValidator.repositoryRoot.appendingPathComponent("deploy/netvigil.example.yml").path
        let result = try ProcessRunner.run(["check-config", example])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains(": ok"))
        XCTAssertTrue(result.stdout.contains("retention 30d"))
    }

    func testTypoIsOneLocatedLineAndExit78() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("etc/typos"), withIntermediateDirectories: true)
        _ = try directory.write("etc/typos/retension.yml", "storage:\n  path: x.sqlite\n  retension: 30d\n")
        // The file is named as given on the command line, directories included.
        let result = try ProcessRunner.run(["check-config", "etc/typos/retension.yml"], currentDirectory: directory.url)
        XCTAssertEqual(result.status, 78)
        XCTAssertEqual(result.stdout, "")
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("netvigil: etc/typos/retension.yml:3:3: storage.retension: unknown key"), result.stderr)
    }

    /// The summary escapes control characters of a URL (they could forge output lines) and names what a service
    /// target does instead of an HTTP method it never sends.
    func testTargetLinesEscapeControlCharactersAndNameServiceProbes() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("netvigil.yml", #"""
            targets:
              - { name: a, url: "https://a.test/\r\nX-Injected: 1\0z" }
              - { name: t, url: "tls://b.test:443" }
              - { name: s, url: "smtp://m.test" }
            """#)
        let result = try ProcessRunner.run(["check-config", file])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.unicodeScalars.contains { $0 == "\r" || $0 == "\0" }, result.stdout)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix(#"    a: GET https://a.test/\r\nX-Injected: 1\0z every 1m,"#) }, result.stdout)
        XCTAssertFalse(lines.contains { $0.hasPrefix("X-Injected") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("    t: TLS tls://b.test:443 every 1m,") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("    s: STARTTLS smtp://m.test every 1m,") }, result.stdout)
    }

    func testBadDurationAndMissingFile() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("n.yml", "storage:\n  retention: forever\n")
        let bad = try ProcessRunner.run(["check-config", file])
        XCTAssertEqual(bad.status, 78)
        XCTAssertEqual(bad.stderr, "netvigil: \(file):2:14: storage.retention: expected a duration like 30d\n")
        let missing = try ProcessRunner.run(["check-config", directory.path("nope.yml")])
        XCTAssertEqual(missing.status, 78)
        XCTAssertTrue(missing.stderr.contains("nope.yml: no such file"), missing.stderr)
    }

    func testUsageErrorsExit64() throws {
        XCTAssertEqual(try ProcessRunner.run(["check-config"]).status, 64)
        XCTAssertEqual(try ProcessRunner.run(["no-such-command"]).status, 64)
        XCTAssertEqual(try ProcessRunner.run(["run", "--bogus"]).status, 64)
    }

    func testPinsThatAreACAKeyAreExplained() throws {
        let directory = try TemporaryDirectory()
        func sh(_ script: String) throws -> String {
            let result = try ProcessRunner.run(["-c", script], executable: URL(fileURLWithPath: "/bin/sh"), currentDirectory: directory.url)
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let pinOf = "openssl x509 -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64"
        _ = try sh("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -subj '/CN=Pin Test CA' "
                   + "-days 2 -out ca.pem 2>/dev/null")
        let caPin = "sha256/" + (try sh("cat ca.pem | \(pinOf)"))
        let rootFile = "/etc/ssl/certs/ca-certificates.crt"
        let rootPin = "sha256/" + (try sh("awk '/BEGIN CERT/{p=1} p{print} /END CERT/{exit}' \(rootFile) | \(pinOf)"))
        let rootSubject = try sh("awk '/BEGIN CERT/{p=1} p{print} /END CERT/{exit}' \(rootFile) | openssl x509 -noout -subject -nameopt RFC2253")
            .replacingOccurrences(of: "subject=", with: "")
        let leafPin = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()
        let config = try directory.write("netvigil.yml", """
            storage: { path: n.sqlite }
            targets:
              - { name: private, url: "https://a.example.test/", tls: { pins: ["\(caPin)", "\(leafPin)"], ca: [\(directory.path("ca.pem"))] } }
              - { name: public, url: "https://b.example.test/", tls: { pins: ["\(rootPin)", "\(leafPin)"] } }
              - { name: leaf, url: "https://c.example.test/", tls: { pins: ["\(leafPin)", "\(caPin)"] } }
            """)
        let result = try ProcessRunner.run(["check-config", config])
        XCTAssertEqual(result.status, 0, result.stderr)
        let notes = result.stdout.components(separatedBy: "\n").filter { $0.contains("note:") }
        XCTAssertEqual(notes, [
            "      note: \(caPin) is the key of the CA CN=Pin Test CA: it matches any certificate that CA issues, for any host, "
                + "not only a.example.test's",
            "      note: \(rootPin) is the key of the CA \(rootSubject): it matches any certificate that CA issues, for any host, "
                + "not only b.example.test's",
        ], result.stdout + "\n(the CA of `leaf` is neither configured nor a system root: no note)")
    }
}
