import XCTest
@testable import NetVigilFleet

/// The SCRAM-SHA-256 verifier `add-agent` sends instead of the password.
final class ScramVerifierTests: XCTestCase {
    /// RFC 7677's password and salt; the expected verifier was computed apart from this code (Python's
    /// hashlib.pbkdf2_hmac and hmac), in PostgreSQL's `rolpassword` format.
    func testMatchesAnIndependentComputation() throws {
        let salt = Array(try XCTUnwrap(Data(base64Encoded: "W22ZaJ0SNY7soEsUEjb6gQ==")))
        XCTAssertEqual(ScramVerifier.make(password: "pencil", salt: salt, iterations: 4096),
                       "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:"
                       + "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=")
    }

    func testGeneratedPasswordsAreLongDistinctAndQuoteSafe() {
        let passwords = (0..<50).map { _ in FleetAgentProvisioner.generatePassword() }
        XCTAssertEqual(Set(passwords).count, 50)
        for password in passwords {
            XCTAssertEqual(password.count, 43)
            XCTAssertTrue(password.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }, password)
        }
        let verifier = ScramVerifier.make(password: passwords[0], salt: FleetAgentProvisioner.randomBytes(16))
        XCTAssertFalse(verifier.contains("'") || verifier.contains(passwords[0]))
    }
}
