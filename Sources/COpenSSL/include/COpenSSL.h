// COpenSSL: the system OpenSSL 3 (libssl, libcrypto) for Swift.
// Swift cannot import function-like macros, so every macro netvigil needs is wrapped by an
// out-of-line function with the `cossl_` prefix, defined in shims.c.
#ifndef NETVIGIL_COPENSSL_H
#define NETVIGIL_COPENSSL_H

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/crypto.h>

// MARK: STACK_OF(X509)
STACK_OF(X509) *cossl_sk_X509_new_null(void);
int cossl_sk_X509_num(const STACK_OF(X509) *sk);
X509 *cossl_sk_X509_value(const STACK_OF(X509) *sk, int i);
int cossl_sk_X509_push(STACK_OF(X509) *sk, X509 *x);
/// Frees the stack only; the certificates keep their references.
void cossl_sk_X509_free(STACK_OF(X509) *sk);
/// Frees the stack and drops one reference of each certificate (X509_free).
void cossl_sk_X509_pop_free(STACK_OF(X509) *sk);

// MARK: STACK_OF(GENERAL_NAME)
int cossl_sk_GENERAL_NAME_num(const GENERAL_NAMES *sk);
const GENERAL_NAME *cossl_sk_GENERAL_NAME_value(const GENERAL_NAMES *sk, int i);
void cossl_GENERAL_NAMES_free(GENERAL_NAMES *names);
/// The subjectAltName extension of `x`, or NULL; free with cossl_GENERAL_NAMES_free.
GENERAL_NAMES *cossl_X509_get_subject_alt_names(const X509 *x);

// MARK: Memory and BIO
void cossl_OPENSSL_free(void *p);
/// The bytes buffered in a memory BIO: returns the length, stores the pointer in *data.
long cossl_BIO_get_mem_data(BIO *bio, char **data);
size_t cossl_BIO_pending(BIO *bio);
size_t cossl_BIO_wpending(BIO *bio);
long cossl_BIO_set_mem_eof_return(BIO *bio, int v);

// MARK: SSL (used by the TLS handler of NetVigilProber)
long cossl_SSL_set_tlsext_host_name(SSL *ssl, const char *name);
long cossl_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
// OpenSSL's default cipher suites with AES-128-GCM first (TLS 1.3 and 1.2). 1 on success.
int cossl_SSL_CTX_prefer_aes128_gcm(SSL_CTX *ctx);
int cossl_sk_SSL_CIPHER_num(const STACK_OF(SSL_CIPHER) *sk);
const SSL_CIPHER *cossl_sk_SSL_CIPHER_value(const STACK_OF(SSL_CIPHER) *sk, int i);
long cossl_SSL_set_mode(SSL *ssl, long mode);
/// The TLS alert description (0-255) of the newest queued SSL-library error, or -1 when it is not an alert.
int cossl_ERR_peek_last_alert(void);

// MARK: X509 helpers
/// 1 when `x` is a CA certificate (basicConstraints CA:TRUE or a v1 self-signed root), else 0.
int cossl_X509_is_ca(X509 *x);
/// The key size in bits of the subject public key of `x`, or 0.
int cossl_X509_key_bits(X509 *x);
/// The NID of the subject public key of `x` (EVP_PKEY_RSA, EVP_PKEY_EC, EVP_PKEY_ED25519, ...), or NID_undef.
int cossl_X509_key_type(X509 *x);
/// The curve NID of an EC subject public key, or NID_undef.
int cossl_X509_ec_curve_nid(X509 *x);
/// The signature algorithm NID of `x`.
int cossl_X509_signature_nid(const X509 *x);
/// DER of the SubjectPublicKeyInfo of `x`; returns the length (<= 0 on error), *out is freed with cossl_OPENSSL_free.
int cossl_X509_spki_der(X509 *x, unsigned char **out);
/// SHA-256 of `len` bytes at `data` into `md` (32 bytes). Returns 1 on success.
int cossl_sha256(const void *data, size_t len, unsigned char *md);
/// Seconds since 1970 of an ASN1_TIME; returns 1 on success.
int cossl_ASN1_TIME_to_unix(const ASN1_TIME *t, long long *out);
/// Prints an X509_NAME in one line (RFC 2253, UTF-8) into `buf` (NUL-terminated, truncated). Returns the length.
int cossl_X509_NAME_oneline_rfc2253(const X509_NAME *name, char *buf, int size);
/// The serial number of `x` as upper-case hex into `buf`. Returns the length or -1.
int cossl_X509_serial_hex(const X509 *x, char *buf, int size);
/// The first commonName of `x`'s subject into `buf`; returns its length or -1.
int cossl_X509_subject_common_name(const X509 *x, char *buf, int size);

// MARK: Keys and certificate signing requests (`netvigil pin KEY|CSR`)
#define COSSL_KEY_ANY 0
#define COSSL_KEY_PRIVATE 1
#define COSSL_KEY_PUBLIC 2
#define COSSL_KEY_RSA_PUBLIC 3
#define COSSL_KEY_CSR 4
/// The public key of the DER in `der`: a private key (PKCS#8 or traditional, unencrypted), a SubjectPublicKeyInfo,
/// a PKCS#1 RSA public key or a certificate signing request, as `kind` says (COSSL_KEY_*); COSSL_KEY_ANY tries them
/// in that order and stores the kind that decoded in *found. Never prompts for a passphrase. NULL when nothing decodes;
/// free the result with EVP_PKEY_free.
EVP_PKEY *cossl_public_key_from_der(const unsigned char *der, size_t len, int kind, int *found);
/// DER of the SubjectPublicKeyInfo of `key`; returns the length (<= 0 on error), *out is freed with cossl_OPENSSL_free.
int cossl_EVP_PKEY_spki_der(EVP_PKEY *key, unsigned char **out);
/// The curve NID of an EC key, or NID_undef.
int cossl_EVP_PKEY_ec_curve_nid(const EVP_PKEY *key);

// MARK: Verification
/// Sets host (or IP literal when is_ip != 0) checking on a verify context. Returns 1 on success.
int cossl_X509_STORE_CTX_set_host(X509_STORE_CTX *ctx, const char *host, int is_ip);
/// Sets the verification time (seconds since 1970) on a verify context.
void cossl_X509_STORE_CTX_set_unix_time(X509_STORE_CTX *ctx, long long t);
/// webpki and strict profiles: errors about a trust anchor's extensions (basicConstraints, keyUsage, key identifiers,
/// purpose, self-signature digest) are ignored, an anchor is a key and a name; notAfter is inclusive. See webpki.c.
void cossl_X509_STORE_CTX_judge_anchor_as_key(X509_STORE_CTX *ctx);
/// rfc5280 profile: a certificate is still valid at its notAfter second (RFC 5280 4.1.2.5). See webpki.c.
void cossl_X509_STORE_CTX_include_not_after(X509_STORE_CTX *ctx);
/// What `X509_STORE_set_default_paths` sets up except loading the default CA file: the hash-directory lookup of
/// `dir` (NULL: the default directory, `SSL_CERT_DIR` else OPENSSLDIR/certs) and, for the default, the default
/// OSSL_STORE lookup. Both read a root only when a chain asks for its subject. Returns 1 on success, 0 when a lookup
/// cannot be added.
int cossl_X509_STORE_add_default_lookups(X509_STORE *store, const char *dir);
/// Drops all queued OpenSSL errors of this thread.
void cossl_clear_errors(void);
/// The oldest queued OpenSSL error as text into `buf` (empty when none), clearing the queue.
void cossl_last_error_string(char *buf, size_t size);

// MARK: Client certificates (mTLS)
#define COSSL_PRIVATE_KEY_OK 0
#define COSSL_PRIVATE_KEY_NONE 1
#define COSSL_PRIVATE_KEY_NEEDS_PASSWORD 2
#define COSSL_PRIVATE_KEY_WRONG_PASSWORD 3
#define COSSL_PRIVATE_KEY_UNSUPPORTED 4
/// The first private key in the PEM text `pem` (PKCS#8, encrypted PKCS#8 or traditional): RSA, EC or Ed25519.
/// `password` (may be NULL) decrypts an encrypted key; OpenSSL never prompts. NULL on failure, *status says why
/// (COSSL_PRIVATE_KEY_*). Free the key with EVP_PKEY_free. The error queue is left empty.
EVP_PKEY *cossl_read_private_key_pem(const char *pem, size_t len, const char *password, size_t password_len, int *status);
/// Makes connections of `ctx` remember whether the server sent a CertificateRequest.
void cossl_SSL_CTX_note_certificate_requests(SSL_CTX *ctx);
/// 1 when the server sent a CertificateRequest on `ssl` (its context noted requests), else 0.
int cossl_SSL_certificate_requested(const SSL *ssl);

#include "cossl_revocation.h"

#endif
