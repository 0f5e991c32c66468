import Foundation
import XCTest
@testable import NetVigilTrust

/// Debian's Public Suffix List as the wildcard rule reads it (ICANN section, wildcard and exception rules, IDNA).
final class PublicSuffixListTests: XCTestCase {
    func testDebianListRules() throws {
        let list = try PublicSuffixList()
        for suffix in ["com", "co.uk", "localhost", "intranet", "foo.ck", "xn--55qx5d.cn"] {
            XCTAssertTrue(list.isPublicSuffix(suffix), suffix)
        }
        // Registrable domains, an exception rule (!www.ck) and a private-section suffix.
        for domain in ["example.com", "example.co.uk", "www.ck", "github.io"] {
            XCTAssertFalse(list.isPublicSuffix(domain), domain)
        }
    }

    func testMissingListIsAClearError() {
        XCTAssertThrowsError(try PublicSuffixList(path: "/nonexistent/public_suffix_list.dat")) { error in
            XCTAssertTrue("\(error)".contains("install the Debian package publicsuffix"), "\(error)")
            XCTAssertTrue("\(error)".contains("/nonexistent/public_suffix_list.dat"), "\(error)")
        }
    }

    func testPunycodeMatchesRFC3492() {
        XCTAssertEqual(Punycode.encode("bücher"), "bcher-kva")
        XCTAssertEqual(Punycode.encode("公司"), "55qx5d")
        XCTAssertEqual(Punycode.encode("münchen"), "mnchen-3ya")
    }
}
