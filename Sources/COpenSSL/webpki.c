#include "COpenSSL.h"

// Errors about the extensions of a trust anchor that the webpki and strict profiles do not judge: an anchor is a key
// and a name (rustls-webpki), so its basicConstraints, keyUsage, key identifiers, purpose and self-signature digest do
// not matter. Its key size still does (CA_KEY_TOO_SMALL is not listed), and so does its pathLenConstraint: every
// client (Chrome, Go, NSS, GnuTLS) limits the intermediates below an anchor that carries one.
static int anchor_extension_error(int error) {
    switch (error) {
    case X509_V_ERR_INVALID_CA:
    case X509_V_ERR_CA_BCONS_NOT_CRITICAL:
    case X509_V_ERR_CA_CERT_MISSING_KEY_USAGE:
    case X509_V_ERR_KEYUSAGE_NO_CERTSIGN:
    case X509_V_ERR_PATHLEN_INVALID_FOR_NON_CA:
    case X509_V_ERR_PATHLEN_WITHOUT_KU_KEY_CERT_SIGN:
    case X509_V_ERR_INVALID_PURPOSE:
    case X509_V_ERR_MISSING_SUBJECT_KEY_IDENTIFIER:
    case X509_V_ERR_MISSING_AUTHORITY_KEY_IDENTIFIER:
    case X509_V_ERR_AUTHORITY_KEY_IDENTIFIER_CRITICAL:
    case X509_V_ERR_SUBJECT_KEY_IDENTIFIER_CRITICAL:
    case X509_V_ERR_EXTENSIONS_REQUIRE_VERSION_3:
    case X509_V_ERR_CA_MD_TOO_WEAK:
        return 1;
    default:
        return 0;
    }
}

// RFC 5280 4.1.2.5: the validity period includes notAfter. OpenSSL counts a certificate as expired at that very
// second; Go, NSS, GnuTLS and rustls-webpki do not.
static int expires_exactly_now(X509_STORE_CTX *ctx) {
    if (X509_STORE_CTX_get_error(ctx) != X509_V_ERR_CERT_HAS_EXPIRED) return 0;
    X509 *cert = X509_STORE_CTX_get_current_cert(ctx);
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    if (cert == NULL || param == NULL || !(X509_VERIFY_PARAM_get_flags(param) & X509_V_FLAG_USE_CHECK_TIME)) return 0;
    time_t now = X509_VERIFY_PARAM_get_time(param);
    return ASN1_TIME_cmp_time_t(X509_get0_notAfter(cert), now) == 0;
}

static int rfc5280_verify_cb(int ok, X509_STORE_CTX *ctx) {
    if (ok) return ok;
    return expires_exactly_now(ctx);
}

static int anchor_as_key_verify_cb(int ok, X509_STORE_CTX *ctx) {
    if (ok) return ok;
    if (expires_exactly_now(ctx)) return 1;
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(ctx);
    int depth = X509_STORE_CTX_get_error_depth(ctx);
    // The anchor is the last certificate of the chain and came from the store, not from the untrusted certificates.
    if (chain != NULL && depth == sk_X509_num(chain) - 1 && depth >= X509_STORE_CTX_get_num_untrusted(ctx)
        && anchor_extension_error(X509_STORE_CTX_get_error(ctx))) {
        return 1;
    }
    return ok;
}

void cossl_X509_STORE_CTX_judge_anchor_as_key(X509_STORE_CTX *ctx) {
    X509_STORE_CTX_set_verify_cb(ctx, anchor_as_key_verify_cb);
}

void cossl_X509_STORE_CTX_include_not_after(X509_STORE_CTX *ctx) {
    X509_STORE_CTX_set_verify_cb(ctx, rfc5280_verify_cb);
}
