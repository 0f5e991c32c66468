import Crypto
import Foundation

/// The SCRAM-SHA-256 verifier PostgreSQL stores for a password (RFC 5802, RFC 7677), made here so that
/// `CREATE ROLE … PASSWORD` carries only the verifier: the password itself never reaches the server, its statement
/// log or `pg_stat_activity`.
enum ScramVerifier {
    /// `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, base64 parts, as `pg_authid.rolpassword` holds it.
    static func make(password: String, salt: [UInt8], iterations: Int = 4096) -> String {
        let salted = pbkdf2(password: Array(password.utf8), salt: salt, iterations: iterations)
        let key = SymmetricKey(data: salted)
        let clientKey = Data(HMAC<SHA256>.authenticationCode(for: Data("Client Key".utf8), using: key))
        let storedKey = Data(SHA256.hash(data: clientKey))
        let serverKey = Data(HMAC<SHA256>.authenticationCode(for: Data("Server Key".utf8), using: key))
        return "SCRAM-SHA-256$\(iterations):\(Data(salt).base64EncodedString())$"
            + "\(storedKey.base64EncodedString()):\(serverKey.base64EncodedString())"
    }

    /// PBKDF2-HMAC-SHA256 with one output block (32 bytes: SCRAM's key length).
    static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        let key = SymmetricKey(data: password)
        var block = Array(HMAC<SHA256>.authenticationCode(for: salt + [0, 0, 0, 1], using: key))
        var result = block
        for _ in 1..<max(iterations, 1) {
            block = Array(HMAC<SHA256>.authenticationCode(for: block, using: key))
            for index in result.indices { result[index] ^= block[index] }
        }
        return result
    }
}
