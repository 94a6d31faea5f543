#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/bio.h>
#include <openssl/x509.h>
#include <openssl/pem.h>

// Function-like macros and variadic calls do not import into Swift; these wrap them.

static inline int COpenSSL_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int COpenSSL_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long COpenSSL_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline long COpenSSL_SSL_set_mode(SSL *ssl, long mode) { return SSL_set_mode(ssl, mode); }
static inline long COpenSSL_SSL_CTX_set_options(SSL_CTX *ctx, long options) {
    return (long)SSL_CTX_set_options(ctx, (uint64_t)options);
}
static inline long COpenSSL_BIO_set_mem_eof_return(BIO *bio, long v) { return BIO_set_mem_eof_return(bio, v); }
static inline size_t COpenSSL_BIO_ctrl_pending(BIO *bio) { return BIO_ctrl_pending(bio); }
static inline long COpenSSL_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}
static inline int COpenSSL_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
static inline int COpenSSL_TLS1_3_VERSION(void) { return TLS1_3_VERSION; }
#endif
