#include "COpenSSL.h"

// Errors about the extensions of a trust anchor that the webpki profile does not judge: an anchor is a key and a
// name (rustls-webpki), so its basicConstraints, keyUsage, key identifiers, purpose and self-signature digest do not
// matter. Its key size still does (CA_KEY_TOO_SMALL is not listed).
static int webpki_anchor_error(int error) {
    switch (error) {
    case X509_V_ERR_INVALID_CA:
    case X509_V_ERR_CA_BCONS_NOT_CRITICAL:
    case X509_V_ERR_CA_CERT_MISSING_KEY_USAGE:
    case X509_V_ERR_KEYUSAGE_NO_CERTSIGN:
    case X509_V_ERR_PATH_LENGTH_EXCEEDED:
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

static int webpki_verify_cb(int ok, X509_STORE_CTX *ctx) {
    if (ok) return ok;
    STACK_OF(X509) *chain = X509_STORE_CTX_get0_chain(ctx);
    int depth = X509_STORE_CTX_get_error_depth(ctx);
    // The anchor is the last certificate of the chain and came from the store, not from the untrusted certificates.
    if (chain != NULL && depth == sk_X509_num(chain) - 1 && depth >= X509_STORE_CTX_get_num_untrusted(ctx)
        && webpki_anchor_error(X509_STORE_CTX_get_error(ctx))) {
        return 1;
    }
    return ok;
}

void cossl_X509_STORE_CTX_judge_anchor_as_key(X509_STORE_CTX *ctx) {
    X509_STORE_CTX_set_verify_cb(ctx, webpki_verify_cb);
}
