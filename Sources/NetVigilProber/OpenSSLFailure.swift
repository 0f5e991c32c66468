import COpenSSL

/// Why an OpenSSL call on a connection failed: `SSL_get_error` of that call's own return value, and what this
/// thread's OpenSSL error queue said about it.
struct OpenSSLFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// `SSL_get_error`'s answer (`SSL_ERROR_SSL`, `SSL_ERROR_SYSCALL`, ...).
    let code: Int32
    /// The TLS alert involved (e.g. `handshake failure`), when the newest queued error is one.
    let alert: String?
    /// The oldest queued OpenSSL error as text, nil when the queue was empty.
    let reason: String?

    /// Reads and clears this thread's error queue for a call that `SSL_get_error` answered with `code`.
    static func collect(code: Int32) -> OpenSSLFailure {
        var alert: String? = nil
        let alertCode = cossl_ERR_peek_last_alert()
        if alertCode >= 0 { alert = alertDescription(alertCode) }
        var buffer = [CChar](repeating: 0, count: 256)
        cossl_last_error_string(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return OpenSSLFailure(code: code, alert: alert, reason: text.isEmpty ? nil : text)
    }

    /// The queued reason, or the name of `code` when OpenSSL queued none.
    var description: String { reason ?? codeName }

    /// `code` as OpenSSL spells it.
    var codeName: String {
        switch code {
        case SSL_ERROR_SSL: "SSL_ERROR_SSL"
        case SSL_ERROR_SYSCALL: "SSL_ERROR_SYSCALL"
        case SSL_ERROR_ZERO_RETURN: "SSL_ERROR_ZERO_RETURN"
        case SSL_ERROR_WANT_READ: "SSL_ERROR_WANT_READ"
        case SSL_ERROR_WANT_WRITE: "SSL_ERROR_WANT_WRITE"
        default: "SSL_get_error \(code)"
        }
    }
}
