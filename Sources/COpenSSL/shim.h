// OpenSSL headers for Swift; function-like macros get static inline wrappers here.
#ifndef LARIAT_COPENSSL_SHIM_H
#define LARIAT_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#endif
