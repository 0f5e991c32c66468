import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// `feed.tls`: files resolve against the configuration's directory and are loaded at load time, so each problem is a
/// located error that never shows key material.
final class FeedTLSConfigurationTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        _ = try LoopbackPKI(in: directory, caName: "feed config CA", leaves: [("one", "/CN=one"), ("two", "/CN=two")])
    }

    private func load(_ feed: String) throws -> AgentConfiguration {
        let path = try directory.write("netvigil.yml", "feed:\n  tls: \(feed)\n")
        return try AgentConfiguration.load(path: path)
    }

    private func loadError(_ feed: String) -> String {
        do {
            _ = try load(feed)
            return "loaded"
        } catch {
            return "\(error)"
        }
    }

    func testLoadsRelativeFilesAndComparesByPath() throws {
        let configuration = try load("{ certificate: one.pem, key: one.key, client_ca: ca.pem }")
        let tls = try XCTUnwrap(configuration.feed.tls)
        XCTAssertEqual(tls.certificateFile, directory.path("one.pem"))
        XCTAssertEqual(tls.clientCAFile, directory.path("ca.pem"))
        XCTAssertTrue(tls.context.requiresClientCertificate)
        XCTAssertEqual(try load("{ certificate: one.pem, key: one.key, client_ca: ca.pem }").feed, configuration.feed)
        XCTAssertNotEqual(try load("{ certificate: one.pem, key: one.key }").feed, configuration.feed)
    }

    func testEachProblemIsLocated() throws {
        let file = directory.path("netvigil.yml")
        XCTAssertEqual(loadError("{ certificate: one.pem }"), "\(file):2:8: feed.tls.key: required key is missing")
        XCTAssertTrue(loadError("{ certificate: nope.pem, key: one.key }")
            .hasPrefix("\(file):2:23: feed.tls.certificate: cannot load the certificate chain from \(directory.path("nope.pem"))"))
        XCTAssertEqual(loadError("{ certificate: one.pem, key: two.key }"),
                       "\(file):2:37: feed.tls.key: the key in \(directory.path("two.key")) does not match the certificate in \(directory.path("one.pem"))")
        let notPEM = loadError("{ certificate: one.pem, key: one.csr }")
        XCTAssertTrue(notPEM.hasPrefix("\(file):2:37: feed.tls.key: cannot load the private key from"), notPEM)
        let key = try String(contentsOfFile: directory.path("one.key"), encoding: .utf8)
        let body = key.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
        XCTAssertFalse(notPEM.contains(body), "no key material in errors")
        XCTAssertTrue(loadError("{ certificate: one.pem, key: one.key, client_ca: one.key }")
            .hasPrefix("\(file):2:57: feed.tls.client_ca: cannot load client CA certificates from"))
        let unknown = loadError("{ certificate: one.pem, key: one.key, ca: x }")
        XCTAssertTrue(unknown.contains("feed.tls.ca: unknown key"), unknown)
    }
}
