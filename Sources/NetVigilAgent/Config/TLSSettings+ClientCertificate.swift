import Foundation
import NetVigilProber

extension TLSSettings {
    /// Client certificate keys (mTLS), accepted in a target's `tls:` and in `tls_policies:` entries.
    static let clientCertificateKeys = ["client_certificate", "client_key", "client_key_password_file"]

    /// The client certificate of `mapping`, read and checked now (nil when none of the keys is present). A key file
    /// that its group or others may read adds a located line to `warnings`. Errors point at the key whose file is
    /// at fault and never quote the key or the password.
    static func clientIdentity(from mapping: ConfigMapping, warnings: inout [String]) throws -> ClientIdentity? {
        guard clientCertificateKeys.contains(where: { mapping.contains($0) }) else { return nil }
        guard let certificateValue = mapping["client_certificate"] else {
            throw mapping.owner.error("client_key and client_key_password_file need client_certificate")
        }
        guard let keyValue = mapping["client_key"] else {
            throw mapping.owner.error("client_certificate needs client_key (the certificate's private key)")
        }
        let passwordValue = mapping["client_key_password_file"]
        let certificatePath = try certificateValue.filePath()
        let keyPath = try keyValue.filePath()
        let passwordPath = try passwordValue?.filePath()
        for (value, path) in [(certificateValue, certificatePath), (keyValue, keyPath)] + (passwordValue.map { [($0, passwordPath!)] } ?? [])
        where !FileManager.default.fileExists(atPath: path) {
            throw value.error("\(path) does not exist")
        }
        let identity: ClientIdentity
        do {
            identity = try ClientIdentity(certificatePath: certificatePath, keyPath: keyPath, passwordFile: passwordPath)
        } catch {
            let culprit: ConfigValue
            switch error {
            case .unreadable(let path, _):
                culprit = path == certificatePath ? certificateValue : path == keyPath ? keyValue : passwordValue ?? keyValue
            case .invalidCertificate: culprit = certificateValue
            case .wrongPassword: culprit = passwordValue ?? keyValue
            case .noKey, .passwordRequired, .unsupportedKey, .keyMismatch: culprit = keyValue
            }
            throw culprit.error("\(error)")
        }
        if let warning = ClientIdentity.keyFileWarning(keyPath) {
            warnings.append(keyValue.error(warning).description)
        }
        return identity
    }
}
