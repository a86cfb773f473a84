// OpenSSL headers for Swift.
//
// Swift cannot import function-like macros, and OpenSSL 3.0 spells many of its
// `SSL_CTX_ctrl` / `OPENSSL_sk_*` entry points as macros. Each wrapper below is a
// `static inline` function with the `lariat_` prefix that expands exactly one macro,
// so the Swift side never needs a cast to a C stack type (after swift-nio-ssl's
// CNIOBoringSSLShims). Nothing here adds behaviour beyond the typed accessors that read a
// union or a `void *` as the type OpenSSL documents (GENERAL_NAME, PKCS#12 KDF parameters).
#ifndef LARIAT_COPENSSL_SHIM_H
#define LARIAT_COPENSSL_SHIM_H

#include <limits.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/ocsp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>

// MARK: SSL_CTX / SSL control macros

static inline long lariat_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline int lariat_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) {
    return (int)SSL_CTX_set1_groups_list(ctx, list);
}
static inline long lariat_SSL_set_mode(SSL *ssl, long mode) { return SSL_set_mode(ssl, mode); }
static inline int lariat_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int lariat_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_max_proto_version(ctx, version);
}
static inline int lariat_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline long lariat_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline int lariat_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert) {
    return (int)SSL_CTX_add1_chain_cert(ctx, cert);
}

// SSL_OP_* are built with the function-like SSL_OP_BIT macro, so Swift cannot see them.
static inline uint64_t lariat_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t lariat_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t lariat_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }

// MARK: OCSP stapling (RFC 6066 section 8)

static inline long lariat_SSL_set_tlsext_status_type_ocsp(SSL *ssl) {
    return SSL_set_tlsext_status_type(ssl, TLSEXT_STATUSTYPE_ocsp);
}
/// Borrowed pointer to the stapled response; returns its length, or -1 when none was received.
static inline long lariat_SSL_get_tlsext_status_ocsp_resp(SSL *ssl, const unsigned char **resp) {
    return SSL_get_tlsext_status_ocsp_resp(ssl, resp);
}
/// Server side: takes ownership of `resp`, which must come from OPENSSL_malloc.
static inline long lariat_SSL_set_tlsext_status_ocsp_resp(SSL *ssl, unsigned char *resp, long len) {
    return SSL_set_tlsext_status_ocsp_resp(ssl, resp, len);
}
static inline long lariat_SSL_CTX_set_tlsext_status_cb(SSL_CTX *ctx, int (*cb)(SSL *, void *)) {
    return SSL_CTX_set_tlsext_status_cb(ctx, cb);
}
static inline long lariat_SSL_CTX_set_tlsext_status_arg(SSL_CTX *ctx, void *arg) {
    return SSL_CTX_set_tlsext_status_arg(ctx, arg);
}

// MARK: ex_data indices and slots

/// The SSL a certificate verification runs for: X509_STORE_CTX_get_ex_data returns `void *`;
/// ssl(7) documents the slot SSL_get_ex_data_X509_STORE_CTX_idx() as holding the `SSL *`.
static inline SSL *lariat_X509_STORE_CTX_get0_ssl(X509_STORE_CTX *ctx) {
    return (SSL *)X509_STORE_CTX_get_ex_data(ctx, SSL_get_ex_data_X509_STORE_CTX_idx());
}

static inline int lariat_SSL_get_ex_new_index(void) {
    return SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

// MARK: BIO

static inline long lariat_BIO_shutdown_wr(BIO *bio) { return BIO_shutdown_wr(bio); }
static inline long lariat_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

// MARK: Memory

static inline void lariat_OPENSSL_free(void *ptr) { OPENSSL_free(ptr); }
/// A copy of `size` bytes in OPENSSL_malloc memory, typed as the `unsigned char *` that the calls
/// taking ownership of such a buffer declare (SSL_set_tlsext_status_ocsp_resp); NULL on failure.
static inline unsigned char *lariat_OPENSSL_memdup(const void *data, size_t size) {
    return (unsigned char *)OPENSSL_memdup(data, size);
}

// MARK: Error queue

static inline int lariat_ERR_GET_LIB(unsigned long code) { return ERR_GET_LIB(code); }
static inline int lariat_ERR_GET_REASON(unsigned long code) { return ERR_GET_REASON(code); }

// MARK: STACK_OF(X509)

static inline STACK_OF(X509) *lariat_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int lariat_sk_X509_num(const STACK_OF(X509) *sk) { return sk_X509_num(sk); }
static inline X509 *lariat_sk_X509_value(const STACK_OF(X509) *sk, int i) { return sk_X509_value(sk, i); }
/// Pushes `cert` after taking a new reference, so the stack owns one reference.
static inline int lariat_sk_X509_push_up_ref(STACK_OF(X509) *sk, X509 *cert) {
    if (X509_up_ref(cert) != 1) return 0;
    if (sk_X509_push(sk, cert) <= 0) { X509_free(cert); return 0; }
    return 1;
}
static inline void lariat_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }

// MARK: Names

static inline unsigned long lariat_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }

// MARK: GENERAL_NAMES (subjectAltName)

static inline int lariat_sk_GENERAL_NAME_num(const GENERAL_NAMES *sk) { return sk_GENERAL_NAME_num(sk); }
static inline GENERAL_NAME *lariat_sk_GENERAL_NAME_value(const GENERAL_NAMES *sk, int i) {
    return sk_GENERAL_NAME_value(sk, i);
}
static inline GENERAL_NAMES *lariat_X509_get_subject_alt_names(const X509 *cert) {
    return (GENERAL_NAMES *)X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
}

// GENERAL_NAME is a union (RFC 5280 section 4.2.1.6, OpenSSL's GENERAL_NAME_st): its `d`
// member is an IA5String for dNSName, rfc822Name and uniformResourceIdentifier, an OCTET
// STRING for iPAddress, and OTHERNAME *, X509_NAME *, EDIPARTYNAME *, ASN1_OBJECT * or
// ASN1_TYPE * for the other kinds. GENERAL_NAME_get0_value returns `void *` whatever the kind,
// so these accessors are the only place that reads the union: each returns the member typed as
// OpenSSL declares it, and NULL for any other kind, so Swift never reinterprets a payload.

/// The GeneralName's kind: one of GEN_OTHERNAME ... GEN_RID.
static inline int lariat_GENERAL_NAME_kind(const GENERAL_NAME *name) { return name->type; }
/// The IA5String of a dNSName, rfc822Name or uniformResourceIdentifier; NULL for other kinds.
static inline const ASN1_IA5STRING *lariat_GENERAL_NAME_get0_ia5(const GENERAL_NAME *name) {
    switch (name->type) {
    case GEN_DNS: return name->d.dNSName;
    case GEN_EMAIL: return name->d.rfc822Name;
    case GEN_URI: return name->d.uniformResourceIdentifier;
    default: return NULL;
    }
}
/// The OCTET STRING of an iPAddress; NULL for other kinds.
static inline const ASN1_OCTET_STRING *lariat_GENERAL_NAME_get0_iPAddress(const GENERAL_NAME *name) {
    return name->type == GEN_IPADD ? name->d.iPAddress : NULL;
}

// MARK: PKCS#12 key-derivation parameters (PKCS12Bundle+Limits.swift)
// A PKCS#12 file names its own PBKDF iteration counts (its MAC, each encryptedData authsafe, each
// shrouded key bag), and PKCS12_parse runs them all: a count of 2^31 is hours of CPU. These read
// the counts as the types OpenSSL declares (PKCS12_get0_mac's ASN1_INTEGER, PKCS7's
// `d.encrypted` union member for NID_pkcs7_encrypted, PBEPARAM, PBE2PARAM/PBKDF2PARAM) without
// deriving anything, so Swift can refuse a file before PKCS12_parse spends the time.

static inline int lariat_sk_PKCS7_num(const STACK_OF(PKCS7) *sk) { return sk_PKCS7_num(sk); }
static inline PKCS7 *lariat_sk_PKCS7_value(const STACK_OF(PKCS7) *sk, int i) { return sk_PKCS7_value(sk, i); }
static inline void lariat_sk_PKCS7_pop_free(STACK_OF(PKCS7) *sk) { sk_PKCS7_pop_free(sk, PKCS7_free); }
static inline int lariat_sk_PKCS12_SAFEBAG_num(const STACK_OF(PKCS12_SAFEBAG) *sk) { return sk_PKCS12_SAFEBAG_num(sk); }
static inline const PKCS12_SAFEBAG *lariat_sk_PKCS12_SAFEBAG_value(const STACK_OF(PKCS12_SAFEBAG) *sk, int i) {
    return sk_PKCS12_SAFEBAG_value(sk, i);
}
static inline void lariat_sk_PKCS12_SAFEBAG_pop_free(STACK_OF(PKCS12_SAFEBAG) *sk) {
    sk_PKCS12_SAFEBAG_pop_free(sk, PKCS12_SAFEBAG_free);
}

/// An ASN1_INTEGER as a count: LONG_MAX when it does not fit or is negative (too large to run).
static inline long lariat_iteration_count(const ASN1_INTEGER *value) {
    long count = ASN1_INTEGER_get(value);
    return count < 0 ? LONG_MAX : count;
}

/// The MAC's iteration count (1 when the MacData leaves it out, its DEFAULT); 0 without MacData.
static inline long lariat_PKCS12_mac_iterations(const PKCS12 *p12) {
    if (!PKCS12_mac_present(p12)) return 0;
    const ASN1_INTEGER *iterations = NULL;
    PKCS12_get0_mac(NULL, NULL, NULL, &iterations, p12);
    return iterations == NULL ? 1 : lariat_iteration_count(iterations);
}

/// The authsafe's content type (NID_pkcs7_data, NID_pkcs7_encrypted...).
static inline int lariat_PKCS7_type_nid(const PKCS7 *p7) { return OBJ_obj2nid(p7->type); }

/// The content-encryption algorithm of an encryptedData authsafe; NULL for any other type.
static inline const X509_ALGOR *lariat_PKCS7_encrypted_algorithm(const PKCS7 *p7) {
    if (OBJ_obj2nid(p7->type) != NID_pkcs7_encrypted || p7->d.encrypted == NULL || p7->d.encrypted->enc_data == NULL) {
        return NULL;
    }
    return p7->d.encrypted->enc_data->algorithm;
}

/// The encryption algorithm of a shrouded key bag; NULL for other bags.
static inline const X509_ALGOR *lariat_PKCS12_SAFEBAG_shrouded_algorithm(const PKCS12_SAFEBAG *bag) {
    if (PKCS12_SAFEBAG_get_nid(bag) != NID_pkcs8ShroudedKeyBag) return NULL;
    const X509_SIG *sig = PKCS12_SAFEBAG_get0_pkcs8(bag);
    if (sig == NULL) return NULL;
    const X509_ALGOR *algorithm = NULL;
    X509_SIG_get0(sig, &algorithm, NULL);
    return algorithm;
}

/// The iteration count of a password-based encryption algorithm: PKCS#12 PBE (PBEPARAM) or
/// PBES2 with PBKDF2 (PBKDF2PARAM); 0 for another algorithm or parameters that do not decode
/// (PKCS12_parse then fails without deriving), LONG_MAX for a count that does not fit.
static inline long lariat_pbe_iterations(const X509_ALGOR *algorithm) {
    const ASN1_OBJECT *oid = NULL;
    int parameterType = 0;
    const void *parameter = NULL;
    X509_ALGOR_get0(&oid, &parameterType, &parameter, algorithm);
    if (parameterType != V_ASN1_SEQUENCE || parameter == NULL) return 0;
    const ASN1_STRING *sequence = (const ASN1_STRING *)parameter;  // V_ASN1_SEQUENCE: an ASN1_STRING
    long count = 0;
    if (OBJ_obj2nid(oid) == NID_pbes2) {
        PBE2PARAM *pbes2 = ASN1_item_unpack(sequence, ASN1_ITEM_rptr(PBE2PARAM));
        if (pbes2 == NULL) return 0;
        const X509_ALGOR *kdf = pbes2->keyfunc;
        if (kdf != NULL && OBJ_obj2nid(kdf->algorithm) == NID_id_pbkdf2 && kdf->parameter != NULL
            && kdf->parameter->type == V_ASN1_SEQUENCE) {
            PBKDF2PARAM *pbkdf2 = ASN1_item_unpack(kdf->parameter->value.sequence, ASN1_ITEM_rptr(PBKDF2PARAM));
            if (pbkdf2 != NULL) {
                count = lariat_iteration_count(pbkdf2->iter);
                PBKDF2PARAM_free(pbkdf2);
            }
        }
        PBE2PARAM_free(pbes2);
    } else {
        PBEPARAM *pbe = ASN1_item_unpack(sequence, ASN1_ITEM_rptr(PBEPARAM));
        if (pbe == NULL) return 0;
        count = lariat_iteration_count(pbe->iter);
        PBEPARAM_free(pbe);
    }
    return count;
}

// MARK: Name constraints and authorityInfoAccess (issue 18 part 4, profile rules)
// X509_get_ext_d2i returns `void *`; these name the type OpenSSL documents for each NID.

static inline NAME_CONSTRAINTS *lariat_X509_get_name_constraints(const X509 *cert) {
    return (NAME_CONSTRAINTS *)X509_get_ext_d2i(cert, NID_name_constraints, NULL, NULL);
}
/// The number of permitted (excluded == 0) or excluded subtrees; -1 when the field is absent.
static inline int lariat_NAME_CONSTRAINTS_count(const NAME_CONSTRAINTS *nc, int excluded) {
    STACK_OF(GENERAL_SUBTREE) *subtrees = excluded ? nc->excludedSubtrees : nc->permittedSubtrees;
    return subtrees ? sk_GENERAL_SUBTREE_num(subtrees) : -1;
}
/// The base GeneralName of one subtree.
static inline const GENERAL_NAME *lariat_NAME_CONSTRAINTS_base(const NAME_CONSTRAINTS *nc, int excluded, int index) {
    STACK_OF(GENERAL_SUBTREE) *subtrees = excluded ? nc->excludedSubtrees : nc->permittedSubtrees;
    GENERAL_SUBTREE *subtree = subtrees ? sk_GENERAL_SUBTREE_value(subtrees, index) : NULL;
    return subtree ? subtree->base : NULL;
}
static inline AUTHORITY_INFO_ACCESS *lariat_X509_get_info_access(const X509 *cert) {
    return (AUTHORITY_INFO_ACCESS *)X509_get_ext_d2i(cert, NID_info_access, NULL, NULL);
}
static inline int lariat_AUTHORITY_INFO_ACCESS_count(const AUTHORITY_INFO_ACCESS *aia) { return sk_ACCESS_DESCRIPTION_num(aia); }


/* OpenSSL's process-wide initialisation without its atexit cleanup (OPENSSL_INIT_NO_ATEXIT,
   OpenSSL 3): a process that calls exit() while an event-loop thread still uses a TLS
   connection must not have the library's state freed underneath that thread. Takes effect only
   as the first initialisation of the process. Returns 1 on success. */
static inline int lariat_OPENSSL_init_without_atexit(void) {
    return OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL);
}

#endif
