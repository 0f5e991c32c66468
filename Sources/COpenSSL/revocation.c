#include "COpenSSL.h"
#include <string.h>

int cossl_X509_crl_distribution_urls(X509 *x, char *buf, int size) {
    int critical = 0;
    if (size <= 0) return 0;
    buf[0] = 0;
    STACK_OF(DIST_POINT) *points = X509_get_ext_d2i(x, NID_crl_distribution_points, &critical, NULL);
    if (points == NULL) {
        ERR_clear_error();
        return critical == -1 ? 0 : -1;  // -1: absent; -2: more than once (malformed); else undecodable
    }
    int written = 0;
    for (int i = 0; i < sk_DIST_POINT_num(points); i++) {
        DIST_POINT *point = sk_DIST_POINT_value(points, i);
        if (point->distpoint == NULL || point->distpoint->type != 0) continue;
        GENERAL_NAMES *names = point->distpoint->name.fullname;
        for (int j = 0; j < sk_GENERAL_NAME_num(names); j++) {
            GENERAL_NAME *name = sk_GENERAL_NAME_value(names, j);
            if (name->type != GEN_URI) continue;
            const char *uri = (const char *)ASN1_STRING_get0_data(name->d.uniformResourceIdentifier);
            int length = ASN1_STRING_length(name->d.uniformResourceIdentifier);
            if (length <= 0 || memchr(uri, 0, (size_t)length) != NULL || memchr(uri, '\n', (size_t)length) != NULL) continue;
            if (written + length + 2 > size) break;
            memcpy(buf + written, uri, (size_t)length);
            written += length;
            buf[written++] = '\n';
            buf[written] = 0;
        }
    }
    sk_DIST_POINT_pop_free(points, DIST_POINT_free);
    return written;
}

X509_CRL *cossl_X509_CRL_from_der(const unsigned char *der, size_t len) {
    const unsigned char *cursor = der;
    X509_CRL *crl = d2i_X509_CRL(NULL, &cursor, (long)len);
    if (crl != NULL && cursor != der + len) {
        X509_CRL_free(crl);
        crl = NULL;
    }
    ERR_clear_error();
    return crl;
}

int cossl_X509_CRL_read_pem(const char *pem, size_t len, X509_CRL **out, int max) {
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (bio == NULL) return 0;
    int count = 0;
    while (count < max) {
        X509_CRL *crl = PEM_read_bio_X509_CRL(bio, NULL, NULL, NULL);
        if (crl == NULL) break;
        out[count++] = crl;
    }
    BIO_free(bio);
    ERR_clear_error();
    return count;
}

int cossl_X509_CRL_signed_by(X509_CRL *crl, X509 *issuer) {
    EVP_PKEY *key = X509_get0_pubkey(issuer);
    int ok = key != NULL && X509_CRL_verify(crl, key) == 1;
    ERR_clear_error();
    return ok ? 1 : 0;
}

int cossl_X509_CRL_scope(X509_CRL *crl) {
    int flags = 0;
    int critical = 0;
    ISSUING_DIST_POINT *idp = X509_CRL_get_ext_d2i(crl, NID_issuing_distribution_point, &critical, NULL);
    if (idp != NULL) {
        if (idp->onlyuser > 0) flags |= COSSL_CRL_SCOPE_ONLY_USER;
        if (idp->onlyCA > 0) flags |= COSSL_CRL_SCOPE_ONLY_CA;
        if (idp->onlysomereasons != NULL) flags |= COSSL_CRL_SCOPE_SOME_REASONS;
        if (idp->indirectCRL > 0) flags |= COSSL_CRL_SCOPE_INDIRECT;
        ISSUING_DIST_POINT_free(idp);
    } else if (critical != -1) {
        flags |= COSSL_CRL_SCOPE_MALFORMED;
    }
    if (X509_CRL_get_ext_by_NID(crl, NID_delta_crl, -1) >= 0) flags |= COSSL_CRL_SCOPE_DELTA;
    const STACK_OF(X509_EXTENSION) *extensions = X509_CRL_get0_extensions(crl);
    for (int i = 0; i < sk_X509_EXTENSION_num(extensions); i++) {
        X509_EXTENSION *extension = sk_X509_EXTENSION_value(extensions, i);
        if (!X509_EXTENSION_get_critical(extension)) continue;
        switch (OBJ_obj2nid(X509_EXTENSION_get_object(extension))) {
        case NID_issuing_distribution_point:
        case NID_delta_crl:
        case NID_authority_key_identifier:
        case NID_crl_number:
            break;
        default:
            flags |= COSSL_CRL_SCOPE_UNKNOWN_CRITICAL;
        }
    }
    ERR_clear_error();
    return flags;
}

X509_REVOKED *cossl_X509_CRL_entry(X509_CRL *crl, X509 *x) {
    X509_REVOKED *entry = NULL;
    // 1: listed; 2: listed as removeFromCRL (delta CRLs only, never counted as revoked here).
    int found = X509_CRL_get0_by_cert(crl, &entry, x);
    ERR_clear_error();
    return found == 1 ? entry : NULL;
}

int cossl_X509_REVOKED_reason(X509_REVOKED *entry) {
    int critical = 0;
    ASN1_ENUMERATED *reason = X509_REVOKED_get_ext_d2i(entry, NID_crl_reason, &critical, NULL);
    if (reason == NULL) {
        ERR_clear_error();
        return -1;
    }
    long code = ASN1_ENUMERATED_get(reason);
    ASN1_ENUMERATED_free(reason);
    return (int)code;
}

long cossl_SSL_request_ocsp_staple(SSL *ssl) {
    return SSL_set_tlsext_status_type(ssl, TLSEXT_STATUSTYPE_ocsp);
}

long cossl_SSL_stapled_ocsp(SSL *ssl, const unsigned char **out) {
    unsigned char *response = NULL;
    long length = SSL_get_tlsext_status_ocsp_resp(ssl, &response);
    *out = response;
    return response == NULL ? 0 : length;
}

int cossl_ocsp_check(const unsigned char *der, size_t len, X509 *cert, X509 *issuer, STACK_OF(X509) *chain, X509 *anchor,
                     int *reason, long long *revoked_at, long long *this_update, long long *next_update) {
    int result = COSSL_OCSP_UNDECODABLE;
    const unsigned char *cursor = der;
    OCSP_RESPONSE *response = d2i_OCSP_RESPONSE(NULL, &cursor, (long)len);
    OCSP_BASICRESP *basic = NULL;
    X509_STORE *store = NULL;
    OCSP_CERTID *id = NULL;
    if (response == NULL || cursor != der + len) goto done;
    result = COSSL_OCSP_NOT_SUCCESSFUL;
    if (OCSP_response_status(response) != OCSP_RESPONSE_STATUS_SUCCESSFUL) goto done;
    basic = OCSP_response_get1_basic(response);
    if (basic == NULL) goto done;
    result = COSSL_OCSP_BAD_SIGNATURE;
    store = X509_STORE_new();
    if (store == NULL || X509_STORE_add_cert(store, anchor) != 1) goto done;
    if (OCSP_basic_verify(basic, chain, store, 0) != 1) goto done;
    result = COSSL_OCSP_OTHER_CERTIFICATE;
    id = OCSP_cert_to_id(NULL, cert, issuer);
    int status = -1;
    ASN1_GENERALIZEDTIME *revoked = NULL, *this_upd = NULL, *next_upd = NULL;
    if (id == NULL || OCSP_resp_find_status(basic, id, &status, reason, &revoked, &this_upd, &next_upd) != 1) goto done;
    *revoked_at = 0;
    *next_update = -1;
    if (revoked != NULL) cossl_ASN1_TIME_to_unix(revoked, revoked_at);
    if (this_upd == NULL || cossl_ASN1_TIME_to_unix(this_upd, this_update) != 1) goto done;
    if (next_upd != NULL) cossl_ASN1_TIME_to_unix(next_upd, next_update);
    switch (status) {
    case V_OCSP_CERTSTATUS_GOOD: result = COSSL_OCSP_GOOD; break;
    case V_OCSP_CERTSTATUS_REVOKED: result = COSSL_OCSP_REVOKED; break;
    default: result = COSSL_OCSP_UNKNOWN; break;
    }
done:
    OCSP_CERTID_free(id);
    X509_STORE_free(store);
    OCSP_BASICRESP_free(basic);
    OCSP_RESPONSE_free(response);
    ERR_clear_error();
    return result;
}

int cossl_X509_ocsp_urls(X509 *x, char *buf, int size) {
    if (size <= 0) return 0;
    buf[0] = 0;
    STACK_OF(OPENSSL_STRING) *urls = X509_get1_ocsp(x);
    int written = 0;
    for (int i = 0; i < sk_OPENSSL_STRING_num(urls); i++) {
        const char *url = sk_OPENSSL_STRING_value(urls, i);
        int length = (int)strlen(url);
        if (length == 0 || strchr(url, '\n') != NULL) continue;
        if (written + length + 2 > size) break;
        memcpy(buf + written, url, (size_t)length);
        written += length;
        buf[written++] = '\n';
        buf[written] = 0;
    }
    X509_email_free(urls);
    ERR_clear_error();
    return written;
}

int cossl_ocsp_request_der(X509 *cert, X509 *issuer, unsigned char **out) {
    int length = -1;
    OCSP_REQUEST *request = OCSP_REQUEST_new();
    OCSP_CERTID *id = OCSP_cert_to_id(NULL, cert, issuer);
    if (request != NULL && id != NULL && OCSP_request_add0_id(request, id) != NULL) {
        id = NULL;  // owned by the request now
        *out = NULL;
        length = i2d_OCSP_REQUEST(request, out);
    }
    OCSP_CERTID_free(id);
    OCSP_REQUEST_free(request);
    ERR_clear_error();
    return length;
}
