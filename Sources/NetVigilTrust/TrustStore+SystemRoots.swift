import COpenSSL
import Foundation

extension TrustStore {
    /// The certificates of OpenSSL's default CA file (`SSL_CERT_FILE`, else `OPENSSLDIR/cert.pem`), or, when that file
    /// is missing, the `.pem`/`.crt` files of the default CA directory. For explanations (which pin is a CA's key),
    /// not for verification: evaluations use the store itself. Empty when neither can be read.
    public static func systemRootCertificates() -> [Certificate] {
        let environment = ProcessInfo.processInfo.environment
        let file = environment[String(cString: X509_get_default_cert_file_env())] ?? String(cString: X509_get_default_cert_file())
        if FileManager.default.fileExists(atPath: file) {
            return (try? Certificate.load(contentsOf: file)) ?? []
        }
        let directory = environment[String(cString: X509_get_default_cert_dir_env())] ?? String(cString: X509_get_default_cert_dir())
        return (try? Certificate.load(paths: [directory])) ?? []
    }
}
