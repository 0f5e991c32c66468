// Revocation helpers (CRLs) for NetVigilTrust; see revocation.c.
#ifndef NETVIGIL_COSSL_REVOCATION_H
#define NETVIGIL_COSSL_REVOCATION_H

#include <openssl/x509.h>
#include <openssl/x509v3.h>

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

#endif
