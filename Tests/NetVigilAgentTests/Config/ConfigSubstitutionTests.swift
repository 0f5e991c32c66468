import Foundation
import NetVigilTestSupport
import XCTest
@testable import NetVigilAgent

/// `${NAME}`, `${file:PATH}` and `$${` in string values; relative paths resolve against the configuration file.
final class ConfigSubstitutionTests: XCTestCase {
    override func setUp() {
        setenv("NETVIGIL_TEST_FEED_TOKEN", "tok-from-env", 1)
        unsetenv("NETVIGIL_TEST_UNSET")
    }

    override func tearDown() {
        unsetenv("NETVIGIL_TEST_FEED_TOKEN")
    }

    func testEnvironmentVariablesAndFilesAreSubstitutedAndNeverPrinted() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("secrets"), withIntermediateDirectories: true)
        _ = try directory.write("secrets/api-password", "p4ss-from-file\n")
        let path = try directory.write("netvigil.yml", """
            feed: { token: "${NETVIGIL_TEST_FEED_TOKEN}" }
            targets:
              - name: api
                url: https://api.example.com/
                basic_auth: { user: probe, password: "${file:secrets/api-password}" }
                headers: { X-Note: "cost $${NOT_A_VARIABLE} as written" }
            """)
        let configuration = try AgentConfiguration.load(path: path)
        XCTAssertEqual(configuration.feed.token?.value, "tok-from-env")
        let request = try XCTUnwrap(configuration.targets.targets.first?.request)
        let expected = "Basic " + Data("probe:p4ss-from-file".utf8).base64EncodedString()
        XCTAssertEqual(request.headers.first { $0.name == "Authorization" }?.value, expected)
        XCTAssertEqual(request.headers.first { $0.name == "X-Note" }?.value, "cost ${NOT_A_VARIABLE} as written")
    }

    func testAMissingVariableOrFileIsALocatedErrorNamingItNotAValue() throws {
        let directory = try TemporaryDirectory()
        let unset = try directory.write("unset.yml", "feed:\n  token: \"Bearer ${NETVIGIL_TEST_UNSET}\"\n")
        XCTAssertThrowsError(try AgentConfiguration.load(path: unset)) { error in
            XCTAssertEqual("\(error)", "\(unset):2:10: feed.token: environment variable NETVIGIL_TEST_UNSET is not set")
        }
        let missing = try directory.write("missing.yml", "feed:\n  token: \"${file:nope/token}\"\n")
        XCTAssertThrowsError(try AgentConfiguration.load(path: missing)) { error in
            XCTAssertEqual("\(error)", "\(missing):2:10: feed.token: cannot read \(directory.path("nope/token")) named in ${file:nope/token}: no such file")
        }
        let open = try directory.write("open.yml", "feed:\n  token: \"${NETVIGIL_TEST_FEED_TOKEN\"\n")
        XCTAssertThrowsError(try AgentConfiguration.load(path: open)) { error in
            XCTAssertTrue("\(error)".hasSuffix("feed.token: unterminated ${ in a string (write $${ for a literal ${)"), "\(error)")
            XCTAssertFalse("\(error)".contains("tok-from-env"))
        }
        let odd = try directory.write("odd.yml", "feed:\n  token: \"${not a name}\"\n")
        XCTAssertThrowsError(try AgentConfiguration.load(path: odd)) { error in
            XCTAssertTrue("\(error)".contains("is not an environment variable name"), "\(error)")
        }
    }

    func testRelativeFilePathsResolveAgainstTheConfigurationFilesDirectory() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("etc/netvigil"), withIntermediateDirectories: true)
        _ = try directory.write("etc/netvigil/feed.token", "tok-in-file\n")
        let path = try directory.write("etc/netvigil/netvigil.yml", "feed: { token_file: feed.token }\n")
        // Loaded from another working directory: the token file is found next to the configuration.
        XCTAssertEqual(try AgentConfiguration.load(path: path).feed.token?.value, "tok-in-file")
        // A configuration given as a bare name (no directory) keeps resolving against the working directory.
        XCTAssertThrowsError(try AgentConfiguration(yaml: "feed: { token_file: feed.token }\n", file: "netvigil.yml")) { error in
            XCTAssertEqual("\(error)", "netvigil.yml:1:21: feed.token_file: cannot read token file feed.token: no such file")
        }
    }
}
