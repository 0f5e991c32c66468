// Public keys of private keys, public keys and certificate signing requests, for SPKI pins of keys not yet in use.
#include "COpenSSL.h"

static EVP_PKEY *private_key(const unsigned char *der, size_t len) {
    const unsigned char *p = der;
    return d2i_AutoPrivateKey(NULL, &p, (long)len);
}

static EVP_PKEY *subject_public_key(const unsigned char *der, size_t len) {
    const unsigned char *p = der;
    return d2i_PUBKEY(NULL, &p, (long)len);
}

static EVP_PKEY *rsa_public_key(const unsigned char *der, size_t len) {
    const unsigned char *p = der;
    return d2i_PublicKey(EVP_PKEY_RSA, NULL, &p, (long)len);
}

static EVP_PKEY *request_key(const unsigned char *der, size_t len) {
    const unsigned char *p = der;
    X509_REQ *request = d2i_X509_REQ(NULL, &p, (long)len);
    if (request == NULL) return NULL;
    EVP_PKEY *key = X509_REQ_get_pubkey(request);  // a new reference
    X509_REQ_free(request);
    return key;
}

EVP_PKEY *cossl_public_key_from_der(const unsigned char *der, size_t len, int kind, int *found) {
    EVP_PKEY *(*readers[])(const unsigned char *, size_t) = { private_key, subject_public_key, rsa_public_key, request_key };
    int kinds[] = { COSSL_KEY_PRIVATE, COSSL_KEY_PUBLIC, COSSL_KEY_RSA_PUBLIC, COSSL_KEY_CSR };
    *found = COSSL_KEY_ANY;
    for (int i = 0; i < 4; i++) {
        if (kind != COSSL_KEY_ANY && kind != kinds[i]) continue;
        EVP_PKEY *key = readers[i](der, len);
        if (key != NULL) {
            ERR_clear_error();
            *found = kinds[i];
            return key;
        }
    }
    ERR_clear_error();
    return NULL;
}

int cossl_EVP_PKEY_spki_der(EVP_PKEY *key, unsigned char **out) {
    *out = NULL;
    return i2d_PUBKEY(key, out);
}
