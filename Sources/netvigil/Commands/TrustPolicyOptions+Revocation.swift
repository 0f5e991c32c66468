import ArgumentParser
import Foundation
import NetVigilTrust

extension RevocationPolicy.Mode: RawValueArgument {}

extension TrustPolicyOptions {
    /// `--revocation`, `--crl` (a missing file exits 66, a file that is no CRL 65) and `--revocation-allow-link-local`.
    func revocationPolicy() throws -> RevocationPolicy {
        var policy = RevocationPolicy(mode: revocation ?? .soft)
        policy.allowsLinkLocalFetches = revocationAllowLinkLocal
        for path in crl {
            guard FileManager.default.fileExists(atPath: path) else {
                throw CLIFailure(.noInput, "--crl: \(path): no such file or directory")
            }
            do {
                policy.crls += try CertificateRevocationList.load(path: path)
            } catch {
                throw CLIFailure(.dataError, "--crl: \(error)")
            }
        }
        return policy
    }

    /// The bytes of `--ocsp-response FILE` (a missing file exits 66).
    static func ocspResponse(_ path: String?) throws -> Data? {
        guard let path else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure(.noInput, "--ocsp-response: \(path): no such file or cannot be read")
        }
        return data
    }
}
