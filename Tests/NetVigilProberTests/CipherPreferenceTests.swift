import COpenSSL
import XCTest
@testable import NetVigilProber

/// The client context offers OpenSSL's default cipher suites, reordered only: AES-128-GCM with SHA-256 first.
final class CipherPreferenceTests: XCTestCase {
    private func cipherNames(_ context: OpaquePointer) -> [String] {
        guard let stack = SSL_CTX_get_ciphers(context) else { return [] }
        return (0..<cossl_sk_SSL_CIPHER_num(stack)).compactMap { index in
            cossl_sk_SSL_CIPHER_value(stack, index).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) }
        }
    }

    func testSameSuitesAsOpenSSLDefaultsWithAES128GCMFirst() throws {
        let ours = cipherNames(try OpenSSLClientContext.shared(for: TLSConfiguration()).pointer)
        let plain = try XCTUnwrap(SSL_CTX_new(TLS_client_method()))
        defer { SSL_CTX_free(plain) }
        let defaults = cipherNames(plain)

        XCTAssertEqual(Set(ours), Set(defaults), "a cipher was added or dropped")
        XCTAssertEqual(ours.count, defaults.count, "a cipher appears twice")
        XCTAssertEqual(ours.first, "TLS_AES_128_GCM_SHA256")
        let tls12 = ours.filter { !$0.hasPrefix("TLS_") }
        XCTAssertEqual(Array(tls12.prefix(2)), ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"])
        // Apart from the moved ciphers, OpenSSL's order stands.
        let moved: Set = ["TLS_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"]
        XCTAssertEqual(ours.filter { !moved.contains($0) }, defaults.filter { !moved.contains($0) })
    }
}
