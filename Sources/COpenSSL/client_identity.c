// Client certificates (mTLS): reading a PEM private key without ever prompting, and noticing a CertificateRequest.
#include "COpenSSL.h"
#include <pthread.h>
#include <string.h>

struct password_source {
    const char *password;
    size_t length;
    int asked;
};

static int password_callback(char *buf, int size, int rwflag, void *userdata) {
    (void)rwflag;
    struct password_source *source = userdata;
    source->asked = 1;
    if (source->password == NULL || size <= 0 || source->length > (size_t)size) return -1;
    memcpy(buf, source->password, source->length);
    return (int)source->length;
}

EVP_PKEY *cossl_read_private_key_pem(const char *pem, size_t len, const char *password, size_t password_len, int *status) {
    *status = COSSL_PRIVATE_KEY_OK;
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (bio == NULL) {
        *status = COSSL_PRIVATE_KEY_NONE;
        return NULL;
    }
    struct password_source source = { password, password_len, 0 };
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, password_callback, &source);
    BIO_free(bio);
    ERR_clear_error();
    if (key != NULL) {
        int type = EVP_PKEY_get_base_id(key);
        if (type != EVP_PKEY_RSA && type != EVP_PKEY_RSA_PSS && type != EVP_PKEY_EC && type != EVP_PKEY_ED25519) {
            EVP_PKEY_free(key);
            *status = COSSL_PRIVATE_KEY_UNSUPPORTED;
            return NULL;
        }
        return key;
    }
    if (source.asked) {
        *status = password == NULL ? COSSL_PRIVATE_KEY_NEEDS_PASSWORD : COSSL_PRIVATE_KEY_WRONG_PASSWORD;
    } else {
        *status = COSSL_PRIVATE_KEY_NONE;
    }
    return NULL;
}

static pthread_once_t request_index_once = PTHREAD_ONCE_INIT;
static int request_index = -1;

static void make_request_index(void) {
    request_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

// OpenSSL calls a client's certificate callback only when the server sent a CertificateRequest (TLS 1.2 and 1.3).
static int note_certificate_request(SSL *ssl, void *arg) {
    (void)arg;
    if (request_index >= 0) SSL_set_ex_data(ssl, request_index, (void *)1);
    return 1;
}

void cossl_SSL_CTX_note_certificate_requests(SSL_CTX *ctx) {
    pthread_once(&request_index_once, make_request_index);
    SSL_CTX_set_cert_cb(ctx, note_certificate_request, NULL);
}

int cossl_SSL_certificate_requested(const SSL *ssl) {
    if (request_index < 0) return 0;
    return SSL_get_ex_data(ssl, request_index) != NULL;
}
