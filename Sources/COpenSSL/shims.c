// Out-of-line wrappers for OpenSSL macros and small helpers netvigil calls from Swift.
#include "COpenSSL.h"
#include <stdlib.h>
#include <string.h>

STACK_OF(X509) *cossl_sk_X509_new_null(void) { return sk_X509_new_null(); }
int cossl_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
X509 *cossl_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
int cossl_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }
void cossl_sk_X509_free(STACK_OF(X509) *sk) { sk_X509_free(sk); }
void cossl_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }

int cossl_sk_GENERAL_NAME_num(const GENERAL_NAMES *sk) { return sk_GENERAL_NAME_num(sk); }
const GENERAL_NAME *cossl_sk_GENERAL_NAME_value(const GENERAL_NAMES *sk, int i) { return sk_GENERAL_NAME_value(sk, i); }
void cossl_GENERAL_NAMES_free(GENERAL_NAMES *names) { GENERAL_NAMES_free(names); }
GENERAL_NAMES *cossl_X509_get_subject_alt_names(const X509 *x) {
    return (GENERAL_NAMES *)X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
}

void cossl_OPENSSL_free(void *p) { OPENSSL_free(p); }
long cossl_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
size_t cossl_BIO_pending(BIO *bio) { return BIO_ctrl_pending(bio); }
size_t cossl_BIO_wpending(BIO *bio) { return BIO_ctrl_wpending(bio); }
long cossl_BIO_set_mem_eof_return(BIO *bio, int v) { return BIO_set_mem_eof_return(bio, v); }

long cossl_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }
long cossl_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_min_proto_version(ctx, version); }
long cossl_SSL_set_mode(SSL *ssl, long mode) { return SSL_set_mode(ssl, mode); }

int cossl_sk_SSL_CIPHER_num(const STACK_OF(SSL_CIPHER) *sk) { return sk_SSL_CIPHER_num(sk); }
const SSL_CIPHER *cossl_sk_SSL_CIPHER_value(const STACK_OF(SSL_CIPHER) *sk, int i) { return sk_SSL_CIPHER_value(sk, i); }

// The same cipher suites as OpenSSL's defaults, with AES-128-GCM (SHA-256) moved first, as Go, Chrome and Firefox
// order them: TLS 1.3 suites set explicitly; the TLS 1.2 list keeps the system default's ciphers and relative order
// otherwise. Returns 1, or 0 when OpenSSL refused a list (the context then keeps OpenSSL's defaults for it).
int cossl_SSL_CTX_prefer_aes128_gcm(SSL_CTX *ctx) {
    int ok = SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256");
    STACK_OF(SSL_CIPHER) *ciphers = SSL_CTX_get_ciphers(ctx);
    if (ciphers == NULL) return 0;
    char list[8192];
    size_t used = 0;
    // Two passes: the ECDHE AES-128-GCM ciphers, then every other TLS 1.2 cipher.
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < sk_SSL_CIPHER_num(ciphers); i++) {
            const SSL_CIPHER *cipher = sk_SSL_CIPHER_value(ciphers, i);
            if (strcmp(SSL_CIPHER_get_version(cipher), "TLSv1.3") == 0) continue;  // set above
            const char *name = SSL_CIPHER_get_name(cipher);
            int preferred = strncmp(name, "ECDHE-", 6) == 0 && strstr(name, "-AES128-GCM-SHA256") != NULL;
            if (preferred != (pass == 0)) continue;
            size_t length = strlen(name);
            if (used + length + 2 > sizeof(list)) return 0;
            if (used > 0) list[used++] = ':';
            memcpy(list + used, name, length);
            used += length;
        }
    }
    list[used] = 0;
    if (used > 0 && !SSL_CTX_set_cipher_list(ctx, list)) ok = 0;
    return ok;
}

int cossl_X509_is_ca(X509 *x) { return X509_check_ca(x) != 0 ? 1 : 0; }

int cossl_X509_key_bits(X509 *x) {
    EVP_PKEY *key = X509_get0_pubkey(x);
    return key == NULL ? 0 : EVP_PKEY_get_bits(key);
}

int cossl_X509_key_type(X509 *x) {
    EVP_PKEY *key = X509_get0_pubkey(x);
    return key == NULL ? NID_undef : EVP_PKEY_get_base_id(key);
}

int cossl_X509_ec_curve_nid(X509 *x) { return cossl_EVP_PKEY_ec_curve_nid(X509_get0_pubkey(x)); }

int cossl_EVP_PKEY_ec_curve_nid(const EVP_PKEY *key) {
    if (key == NULL || EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return NID_undef;
    char name[80];
    size_t len = 0;
    if (EVP_PKEY_get_utf8_string_param(key, "group", name, sizeof(name), &len) != 1) return NID_undef;
    int nid = OBJ_sn2nid(name);
    if (nid == NID_undef) nid = OBJ_ln2nid(name);
    if (nid == NID_undef) nid = EC_curve_nist2nid(name);
    return nid;
}

int cossl_X509_signature_nid(const X509 *x) { return X509_get_signature_nid(x); }

int cossl_X509_spki_der(X509 *x, unsigned char **out) {
    *out = NULL;
    X509_PUBKEY *pub = X509_get_X509_PUBKEY(x);
    if (pub == NULL) return -1;
    return i2d_X509_PUBKEY(pub, out);
}

int cossl_sha256(const void *data, size_t len, unsigned char *md) {
    unsigned int mdlen = 0;
    return EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) == 1 && mdlen == 32 ? 1 : 0;
}

int cossl_ASN1_TIME_to_unix(const ASN1_TIME *t, long long *out) {
    struct tm tm;
    memset(&tm, 0, sizeof(tm));
    if (t == NULL || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
    // Days from civil (Howard Hinnant), independent of the local time zone.
    long long y = (long long)tm.tm_year + 1900;
    long long m = (long long)tm.tm_mon + 1;
    long long d = tm.tm_mday;
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long long days = era * 146097 + doe - 719468;
    *out = days * 86400 + (long long)tm.tm_hour * 3600 + (long long)tm.tm_min * 60 + tm.tm_sec;
    return 1;
}

int cossl_X509_NAME_oneline_rfc2253(const X509_NAME *name, char *buf, int size) {
    if (size <= 0) return -1;
    buf[0] = 0;
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return -1;
    unsigned long flags = XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB;
    if (X509_NAME_print_ex(bio, name, 0, flags) < 0) { BIO_free(bio); return -1; }
    char *data = NULL;
    long len = BIO_get_mem_data(bio, &data);
    int n = len < (long)(size - 1) ? (int)len : size - 1;
    if (n > 0) memcpy(buf, data, (size_t)n);
    buf[n < 0 ? 0 : n] = 0;
    BIO_free(bio);
    return n;
}

int cossl_X509_serial_hex(const X509 *x, char *buf, int size) {
    const ASN1_INTEGER *serial = X509_get0_serialNumber(x);
    BIGNUM *bn = ASN1_INTEGER_to_BN(serial, NULL);
    if (bn == NULL) return -1;
    char *hex = BN_bn2hex(bn);
    BN_free(bn);
    if (hex == NULL) return -1;
    int len = (int)strlen(hex);
    if (len >= size) len = size - 1;
    memcpy(buf, hex, (size_t)len);
    buf[len] = 0;
    OPENSSL_free(hex);
    return len;
}

int cossl_X509_subject_common_name(const X509 *x, char *buf, int size) {
    X509_NAME *name = X509_get_subject_name(x);
    int idx = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
    if (idx < 0) return -1;
    X509_NAME_ENTRY *entry = X509_NAME_get_entry(name, idx);
    unsigned char *utf8 = NULL;
    int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
    if (len < 0) return -1;
    if (len >= size) len = size - 1;
    memcpy(buf, utf8, (size_t)len);
    buf[len] = 0;
    OPENSSL_free(utf8);
    return len;
}

int cossl_X509_STORE_CTX_set_host(X509_STORE_CTX *ctx, const char *host, int is_ip) {
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    if (is_ip) return X509_VERIFY_PARAM_set1_ip_asc(param, host);
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    return X509_VERIFY_PARAM_set1_host(param, host, 0);
}

void cossl_X509_STORE_CTX_set_unix_time(X509_STORE_CTX *ctx, long long t) {
    X509_STORE_CTX_set_time(ctx, 0, (time_t)t);
}

int cossl_X509_STORE_add_default_lookups(X509_STORE *store, const char *dir) {
    X509_LOOKUP *lookup = X509_STORE_add_lookup(store, X509_LOOKUP_hash_dir());
    if (lookup == NULL) return 0;
    if (dir != NULL) {
        int added = X509_LOOKUP_add_dir(lookup, dir, X509_FILETYPE_PEM);
        ERR_clear_error();
        return added == 1;
    }
    X509_LOOKUP_add_dir(lookup, NULL, X509_FILETYPE_DEFAULT);
    lookup = X509_STORE_add_lookup(store, X509_LOOKUP_store());
    if (lookup == NULL) return 0;
    X509_LOOKUP_add_store_ex(lookup, NULL, NULL, NULL);
    ERR_clear_error();
    return 1;
}

void cossl_clear_errors(void) { ERR_clear_error(); }

void cossl_last_error_string(char *buf, size_t size) {
    if (size == 0) return;
    buf[0] = 0;
    unsigned long code = ERR_get_error();
    if (code != 0) ERR_error_string_n(code, buf, size);
    ERR_clear_error();
}

int cossl_ERR_peek_last_alert(void) {
    unsigned long e = ERR_peek_last_error();
    if (e == 0 || ERR_GET_LIB(e) != ERR_LIB_SSL) return -1;
    int reason = ERR_GET_REASON(e);
    return reason >= SSL_AD_REASON_OFFSET ? reason - SSL_AD_REASON_OFFSET : -1;
}
