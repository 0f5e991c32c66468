// Revocation helpers (CRLs) for NetVigilTrust; see revocation.c.
#ifndef NETVIGIL_COSSL_REVOCATION_H
#define NETVIGIL_COSSL_REVOCATION_H

#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/ocsp.h>
#include <openssl/ssl.h>

/// The http:// and https:// URIs of the CRL distribution points of `x` (fullName URIs only), each followed by a
/// newline, into `buf` (NUL-terminated, truncated at `size`). Returns the number of bytes written, 0 when none, -1 when
/// the extension is malformed.
int cossl_X509_crl_distribution_urls(X509 *x, char *buf, int size);
/// The CRL of DER `der`; NULL when it does not decode or bytes follow it.
X509_CRL *cossl_X509_CRL_from_der(const unsigned char *der, size_t len);
/// Every CRL in the PEM text `pem`; stores up to `max` of them in `out` and returns how many (0 when none decodes).
int cossl_X509_CRL_read_pem(const char *pem, size_t len, X509_CRL **out, int max);
/// 1 when `crl` carries a valid signature by the subject key of `issuer`, else 0.
int cossl_X509_CRL_signed_by(X509_CRL *crl, X509 *issuer);
#define COSSL_CRL_SCOPE_ONLY_USER 1
#define COSSL_CRL_SCOPE_ONLY_CA 2
#define COSSL_CRL_SCOPE_SOME_REASONS 4
#define COSSL_CRL_SCOPE_INDIRECT 8
#define COSSL_CRL_SCOPE_DELTA 16
#define COSSL_CRL_SCOPE_MALFORMED 32
#define COSSL_CRL_SCOPE_UNKNOWN_CRITICAL 64
/// The scope limits of `crl` (issuingDistributionPoint flags, delta CRL indicator, unknown critical extensions) as
/// COSSL_CRL_SCOPE_* bits.
int cossl_X509_CRL_scope(X509_CRL *crl);
/// The entry of `crl` for `x` (issuer name and serial match), or NULL when `x` is not listed.
X509_REVOKED *cossl_X509_CRL_entry(X509_CRL *crl, X509 *x);
/// The CRLReason code (RFC 5280 5.3.1) of an entry, or -1 when the entry has none.
int cossl_X509_REVOKED_reason(X509_REVOKED *entry);

// MARK: OCSP
/// Asks the server for a stapled OCSP response (status_request). Returns 1 on success.
long cossl_SSL_request_ocsp_staple(SSL *ssl);
/// The stapled OCSP response of the handshake: its length (<= 0: none) and, in *out, its bytes (owned by `ssl`).
long cossl_SSL_stapled_ocsp(SSL *ssl, const unsigned char **out);
#define COSSL_OCSP_GOOD 0
#define COSSL_OCSP_REVOKED 1
#define COSSL_OCSP_UNKNOWN 2
#define COSSL_OCSP_UNDECODABLE -1
#define COSSL_OCSP_NOT_SUCCESSFUL -2
#define COSSL_OCSP_BAD_SIGNATURE -3
#define COSSL_OCSP_OTHER_CERTIFICATE -4
/// Judges the DER OCSP response `der` for `cert` issued by `issuer`: the signature by `issuer` or by a responder
/// `issuer` delegated (id-kp-OCSPSigning), checked with `anchor` as the only trust anchor and `chain` as
/// intermediates; then the single response for `cert`'s certificate ID. Returns COSSL_OCSP_*; for GOOD/REVOKED/UNKNOWN
/// the times (seconds since 1970; next_update -1 when absent) and, when revoked, the reason (-1 when none).
int cossl_ocsp_check(const unsigned char *der, size_t len, X509 *cert, X509 *issuer, STACK_OF(X509) *chain, X509 *anchor,
                     int *reason, long long *revoked_at, long long *this_update, long long *next_update);
/// The OCSP responder URLs of `x`'s authorityInfoAccess, each followed by a newline, into `buf` (as
/// cossl_X509_crl_distribution_urls). Returns the bytes written.
int cossl_X509_ocsp_urls(X509 *x, char *buf, int size);
/// A DER OCSP request (no nonce) for `cert` issued by `issuer`; returns its length (<= 0 on error), *out is freed with
/// cossl_OPENSSL_free.
int cossl_ocsp_request_der(X509 *cert, X509 *issuer, unsigned char **out);

#endif
