/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for gw_ca: the CA, its file, leaves, handshakes, the cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "box_alloc.h"
#include "gw_ca.h"

#define SLACK 10 // seconds a test may take between minting and checking

/* ------------------------------------------------------------------ */
/* Helpers.                                                           */

static gw_ca *
new_ca(const gw_ca_opts *opts)
{
    gw_ca *ca = NULL;
    char *err = NULL;
    box_err rv = gw_ca_new_opts(opts, &ca, &err);
    if (rv != BOX_OK)
        fail_msg("gw_ca_new_opts: %s", err ? err : "(no message)");
    assert_null(err);
    return ca;
}

/* The CA certificate, parsed back from its PEM (the caller frees it). */
static X509 *
ca_x509(const gw_ca *ca)
{
    char *pem = NULL;
    size_t len = 0;
    assert_int_equal(gw_ca_cert_pem(ca, &pem, &len), BOX_OK);
    assert_int_equal(strlen(pem), len);
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    assert_non_null(bio);
    X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    assert_non_null(x);
    BIO_free(bio);
    box_free(pem);
    return x;
}

static SSL_CTX *
server_ctx(gw_ca *ca, const char *host)
{
    SSL_CTX *ctx = NULL;
    char *err = NULL;
    box_err rv = gw_ca_server_ctx(ca, host, &ctx, &err);
    if (rv != BOX_OK)
        fail_msg("gw_ca_server_ctx(%s): %s", host, err ? err : "(none)");
    assert_null(err);
    assert_non_null(ctx);
    return ctx;
}

static time_t
asn1_time(const ASN1_TIME *t)
{
    struct tm tm;
    assert_int_equal(ASN1_TIME_to_tm(t, &tm), 1);
    return timegm(&tm);
}

static void
assert_near(time_t got, time_t want)
{
    if (got < want - SLACK || got > want + SLACK)
        fail_msg("time %lld, want %lld within %d s", (long long)got,
                 (long long)want, SLACK);
}

static bool
ext_critical(X509 *x, int nid)
{
    int i = X509_get_ext_by_NID(x, nid, -1);
    assert_true(i >= 0);
    return X509_EXTENSION_get_critical(X509_get_ext(x, i)) == 1;
}

/* A random serial: positive and CA_SERIAL_BYTES (16) long. */
static void
assert_serial(X509 *x)
{
    BIGNUM *bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(x), NULL);
    assert_non_null(bn);
    assert_false(BN_is_negative(bn));
    assert_int_equal(BN_num_bytes(bn), 16);
    BN_free(bn);
}

static void
assert_p256(X509 *x)
{
    EVP_PKEY *k = X509_get0_pubkey(x);
    char group[64];
    assert_non_null(k);
    assert_int_equal(EVP_PKEY_get_base_id(k), EVP_PKEY_EC);
    assert_int_equal(EVP_PKEY_get_group_name(k, group, sizeof group, NULL), 1);
    assert_string_equal(group, "prime256v1");
}

/* The subject's CN into buf. */
static void
subject_cn(X509 *x, char *buf, int size)
{
    assert_true(X509_NAME_get_text_by_NID(X509_get_subject_name(x),
                                          NID_commonName, buf, size) > 0);
}

/* The leaf's one subjectAltName is of type and names host. */
static void
assert_san(X509 *leaf, int type, const char *host)
{
    GENERAL_NAMES *gens =
        X509_get_ext_d2i(leaf, NID_subject_alt_name, NULL, NULL);
    assert_non_null(gens);
    assert_int_equal(sk_GENERAL_NAME_num(gens), 1);
    int t = -1;
    ASN1_STRING *v =
        GENERAL_NAME_get0_value(sk_GENERAL_NAME_value(gens, 0), &t);
    assert_int_equal(t, type);
    if (type == GEN_DNS) {
        assert_int_equal(ASN1_STRING_length(v), strlen(host));
        assert_memory_equal(ASN1_STRING_get0_data(v), host, strlen(host));
    } else {
        unsigned char addr[16];
        int len = strchr(host, ':') != NULL ? 16 : 4;
        assert_int_equal(inet_pton(len == 16 ? AF_INET6 : AF_INET, host, addr),
                         1);
        assert_int_equal(ASN1_STRING_length(v), len);
        assert_memory_equal(ASN1_STRING_get0_data(v), addr, (size_t)len);
    }
    GENERAL_NAMES_free(gens);
}

/* X509_verify_cert of leaf for host (a name, or an address when ip)
 * against a store holding only ca: X509_V_OK or the error. */
static int
verify(X509 *ca, X509 *leaf, const char *host, bool ip)
{
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *sc = X509_STORE_CTX_new();
    assert_non_null(store);
    assert_non_null(sc);
    assert_int_equal(X509_STORE_add_cert(store, ca), 1);
    assert_int_equal(X509_STORE_CTX_init(sc, store, leaf, NULL), 1);
    X509_VERIFY_PARAM *p = X509_STORE_CTX_get0_param(sc);
    // Strict, as Python 3.13's default context is: RFC 5280's musts.
    assert_int_equal(X509_VERIFY_PARAM_set_flags(p, X509_V_FLAG_X509_STRICT),
                     1);
    assert_int_equal(X509_VERIFY_PARAM_set_purpose(p, X509_PURPOSE_SSL_SERVER),
                     1);
    if (ip)
        assert_int_equal(X509_VERIFY_PARAM_set1_ip_asc(p, host), 1);
    else
        assert_int_equal(X509_VERIFY_PARAM_set1_host(p, host, 0), 1);
    int ok = X509_verify_cert(sc);
    int e = X509_STORE_CTX_get_error(sc);
    X509_STORE_CTX_free(sc);
    X509_STORE_free(store);
    ERR_clear_error();
    return ok == 1 ? X509_V_OK : (e != X509_V_OK ? e : -1);
}

static size_t
count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* Entries of dir other than . and .. */
static size_t
dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t n = 0;
    assert_non_null(d);
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static char *
read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    static char buf[65536];
    assert_non_null(f);
    *len = fread(buf, 1, sizeof buf - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static void
rm_tree(const char *dir)
{
    char sub[512];
    DIR *d = opendir(dir);
    struct dirent *de;
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
        if (unlink(sub) != 0)
            rm_tree(sub);
    }
    closedir(d);
    rmdir(dir);
}

/* ------------------------------------------------------------------ */
/* The CA.                                                            */

static void
test_ca_cert(void **state)
{
    (void)state;
    time_t now = time(NULL);
    gw_ca *ca = new_ca(NULL);
    X509 *x = ca_x509(ca);
    char cn[128];

    assert_int_equal(X509_get_version(x), X509_VERSION_3);
    subject_cn(x, cn, sizeof cn);
    assert_int_equal(strlen(cn), strlen("strands-box egress CA ") + 8);
    assert_memory_equal(cn, "strands-box egress CA ", 22);
    for (size_t i = 22; i < strlen(cn); i++)
        assert_non_null(strchr("0123456789abcdef", cn[i]));
    // Self-signed: issuer is subject, and its own key verifies it.
    assert_int_equal(
        X509_NAME_cmp(X509_get_subject_name(x), X509_get_issuer_name(x)), 0);
    assert_int_equal(X509_check_issued(x, x), X509_V_OK);
    assert_int_equal(X509_verify(x, X509_get0_pubkey(x)), 1);
    assert_true(X509_get_extension_flags(x) & EXFLAG_SS);
    // CA:TRUE pathlen:0, critical; keyCertSign|cRLSign, critical; an SKI.
    assert_int_equal(X509_check_ca(x), 1);
    assert_true(X509_get_extension_flags(x) & EXFLAG_CA);
    assert_int_equal(X509_get_pathlen(x), 0);
    assert_true(ext_critical(x, NID_basic_constraints));
    assert_int_equal(X509_get_key_usage(x), KU_KEY_CERT_SIGN | KU_CRL_SIGN);
    assert_true(ext_critical(x, NID_key_usage));
    assert_non_null(X509_get0_subject_key_id(x));
    assert_true(X509_get_ext_by_NID(x, NID_subject_alt_name, -1) < 0);
    assert_serial(x);
    assert_p256(x);
    // now-1h .. now+30 days.
    assert_near(asn1_time(X509_get0_notBefore(x)), now - 3600);
    assert_near(asn1_time(X509_get0_notAfter(x)), now + 30 * 86400);
    X509_free(x);

    // Another CA: another key, id and serial.
    gw_ca *ca2 = new_ca(NULL);
    X509 *y = ca_x509(ca2);
    char cn2[128];
    subject_cn(y, cn2, sizeof cn2);
    assert_string_not_equal(cn, cn2);
    x = ca_x509(ca);
    assert_int_not_equal(EVP_PKEY_eq(X509_get0_pubkey(x), X509_get0_pubkey(y)),
                         1);
    assert_int_not_equal(
        ASN1_INTEGER_cmp(X509_get0_serialNumber(x), X509_get0_serialNumber(y)),
        0);
    X509_free(x);
    X509_free(y);
    gw_ca_free(ca2);
    gw_ca_free(ca);
    gw_ca_free(NULL);
}

/* Options at their bounds and one past. */
static void
test_ca_opts(void **state)
{
    (void)state;
    static const struct {
        gw_ca_opts o;
        box_err want;
    } cases[] = {
        {{0, 0}, BOX_OK},
        {{1, 1}, BOX_OK},
        {{GW_CA_CACHE_MAX, GW_CA_LIFETIME}, BOX_OK},
        {{GW_CA_CACHE_MAX + 1, 0}, BOX_EINVAL},
        {{0, GW_CA_LIFETIME + 1}, BOX_EINVAL},
        {{0, -1}, BOX_EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gw_ca *ca = (gw_ca *)&ca; // must come back NULL on failure
        char *err = NULL;
        box_err rv = gw_ca_new_opts(&cases[i].o, &ca, &err);
        assert_int_equal(rv, cases[i].want);
        if (rv == BOX_OK) {
            assert_null(err);
            assert_non_null(ca);
        } else {
            assert_null(ca);
            assert_non_null(err);
            assert_non_null(strstr(err, "gw_ca: "));
            assert_null(strchr(err, '\n'));
        }
        box_free(err);
        gw_ca_free(ca);
    }
}

/* ------------------------------------------------------------------ */
/* The CA's file.                                                     */

static void
test_write_cert(void **state)
{
    (void)state;
    char dir[] = "/tmp/gw_ca_test.XXXXXX";
    char path[128];
    char *err = NULL;
    struct stat st;
    size_t len, plen;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/cert.pem", dir);
    gw_ca *ca = new_ca(NULL);
    mode_t old = umask(077); // the mode is 0644 whatever the umask
    assert_int_equal(gw_ca_write_cert(ca, path, &err), BOX_OK);
    umask(old);
    assert_null(err);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    assert_int_equal(dir_entries(dir), 1); // no temporary file left

    // Exactly the one certificate, byte for byte the PEM; no key.
    char *pem = NULL;
    assert_int_equal(gw_ca_cert_pem(ca, &pem, &plen), BOX_OK);
    const char *text = read_all(path, &len);
    assert_int_equal(len, plen);
    assert_memory_equal(text, pem, len);
    assert_int_equal(count(text, "-----BEGIN "), 1);
    assert_int_equal(count(text, "-----BEGIN CERTIFICATE-----"), 1);
    // A key's PEM label, not the three letters: base64 holds those now
    // and then (the certificate is a fresh one each run).
    assert_int_equal(count(text, "KEY-----"), 0);
    BIO *bio = BIO_new_mem_buf(text, (int)len);
    X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    assert_non_null(x);
    assert_null(PEM_read_bio_X509(bio, NULL, NULL, NULL));
    ERR_clear_error();
    BIO_free(bio);
    X509_free(x);
    box_free(pem);

    // Written again by another CA: replaced whole.
    gw_ca *ca2 = new_ca(NULL);
    assert_int_equal(gw_ca_write_cert(ca2, path, &err), BOX_OK);
    assert_int_equal(gw_ca_cert_pem(ca2, &pem, &plen), BOX_OK);
    text = read_all(path, &len);
    assert_int_equal(len, plen);
    assert_memory_equal(text, pem, len);
    assert_int_equal(dir_entries(dir), 1);
    box_free(pem);

    gw_ca_free(ca2);
    gw_ca_free(ca);
    rm_tree(dir);
}

static void
test_write_cert_fails(void **state)
{
    (void)state;
    char dir[] = "/tmp/gw_ca_test.XXXXXX";
    char path[128];
    char *err = NULL;

    assert_non_null(mkdtemp(dir));
    gw_ca *ca = new_ca(NULL);

    // A missing directory: a clear message, nothing created.
    snprintf(path, sizeof path, "%s/missing/cert.pem", dir);
    assert_int_equal(gw_ca_write_cert(ca, path, &err), BOX_ENOENT);
    assert_non_null(err);
    assert_non_null(strstr(err, "does not exist"));
    assert_non_null(strstr(err, path));
    box_free(err);
    err = NULL;
    assert_int_equal(dir_entries(dir), 0);

    // The path is a directory: the rename fails after the temporary file
    // was written, and the temporary file is removed.
    snprintf(path, sizeof path, "%s/sub", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    assert_int_equal(gw_ca_write_cert(ca, path, &err), BOX_EIO);
    assert_non_null(err);
    assert_non_null(strstr(err, "renaming"));
    assert_null(strchr(err, '\n'));
    box_free(err);
    err = NULL;
    assert_int_equal(dir_entries(dir), 1);
    assert_int_equal(dir_entries(path), 0);

    // An empty path, no path.
    assert_int_equal(gw_ca_write_cert(ca, "", &err), BOX_EINVAL);
    assert_non_null(err);
    box_free(err);
    assert_int_equal(gw_ca_write_cert(ca, NULL, &err), BOX_EINVAL);
    assert_non_null(err);
    box_free(err);

    gw_ca_free(ca);
    rm_tree(dir);
}

/* ------------------------------------------------------------------ */
/* Leaves.                                                            */

#define L63 "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0"
#define L61 "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxy"
/* 3 * 64 + 61 = 253 bytes: the longest host. */
#define H253 L63 "." L63 "." L63 "." L61

static const struct leaf_case {
    const char *lc_host;
    int lc_type;          // GEN_DNS or GEN_IPADD
    const char *lc_other; // a host it must not verify for
} leaf_cases[] = {
    {"example.com", GEN_DNS, "example.org"},
    {"api.github.com", GEN_DNS, "github.com"},
    {"_acme-challenge.example.org", GEN_DNS, "example.org"},
    {"localhost", GEN_DNS, "localhost.example"},
    {"1.2.3.example", GEN_DNS, "1.2.3.4"},
    {"203.0.113.7", GEN_IPADD, "203.0.113.8"},
    {"127.0.0.1", GEN_IPADD, "::1"},
    {"2001:db8::1", GEN_IPADD, "2001:db8::2"},
    {"::1", GEN_IPADD, "127.0.0.1"},
    {"a." L61 "b", GEN_DNS, "a.example"},   // 64 bytes: the CN whole
    {"ab." L61 "c", GEN_DNS, "ab.example"}, // 65: the CN cut to 64
    {H253, GEN_DNS, "example.com"},
};

static void
test_leaf_verify(void **state)
{
    (void)state;
    time_t now = time(NULL);
    gw_ca *ca = new_ca(NULL);
    gw_ca *other = new_ca(NULL);
    X509 *cax = ca_x509(ca);
    X509 *otherx = ca_x509(other);

    assert_int_equal(strlen(H253), GW_CA_HOST_MAX);
    assert_int_equal(strlen("a." L61 "b"), GW_CA_CN_MAX);
    for (size_t i = 0; i < sizeof leaf_cases / sizeof leaf_cases[0]; i++) {
        const struct leaf_case *c = &leaf_cases[i];
        bool ip = c->lc_type == GEN_IPADD;
        SSL_CTX *ctx = server_ctx(ca, c->lc_host);
        X509 *leaf = SSL_CTX_get0_certificate(ctx);
        assert_non_null(leaf);

        assert_san(leaf, c->lc_type, c->lc_host);
        assert_int_equal(verify(cax, leaf, c->lc_host, ip), X509_V_OK);
        assert_int_equal(verify(otherx, leaf, c->lc_host, ip),
                         X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
        bool other_ip =
            strchr(c->lc_other, ':') != NULL ||
            strspn(c->lc_other, "0123456789.") == strlen(c->lc_other);
        assert_int_equal(verify(cax, leaf, c->lc_other, other_ip),
                         other_ip ? X509_V_ERR_IP_ADDRESS_MISMATCH
                                  : X509_V_ERR_HOSTNAME_MISMATCH);

        // CN = host (at most 64 bytes); issuer = the CA.
        char cn[256];
        subject_cn(leaf, cn, sizeof cn);
        size_t cn_len = strlen(c->lc_host) < 64 ? strlen(c->lc_host) : 64;
        assert_int_equal(strlen(cn), cn_len);
        assert_memory_equal(cn, c->lc_host, cn_len);
        assert_int_equal(X509_NAME_cmp(X509_get_issuer_name(leaf),
                                       X509_get_subject_name(cax)),
                         0);
        // CA:FALSE; digitalSignature (critical); serverAuth; AKI = CA SKI.
        assert_int_equal(X509_check_ca(leaf), 0);
        assert_true(X509_get_ext_by_NID(leaf, NID_basic_constraints, -1) >= 0);
        assert_int_equal(X509_get_key_usage(leaf), KU_DIGITAL_SIGNATURE);
        assert_true(ext_critical(leaf, NID_key_usage));
        assert_int_equal(X509_get_extended_key_usage(leaf), XKU_SSL_SERVER);
        assert_int_equal(ASN1_OCTET_STRING_cmp(X509_get0_authority_key_id(leaf),
                                               X509_get0_subject_key_id(cax)),
                         0);
        assert_serial(leaf);
        assert_p256(leaf);
        assert_near(asn1_time(X509_get0_notBefore(leaf)), now - 3600);
        assert_near(asn1_time(X509_get0_notAfter(leaf)), now + 7 * 86400);

        // The context: chain leaf + CA, TLS 1.2 at least.
        STACK_OF(X509) *chain = NULL;
        assert_int_equal(SSL_CTX_get0_chain_certs(ctx, &chain), 1);
        assert_int_equal(sk_X509_num(chain), 1);
        assert_int_equal(X509_cmp(sk_X509_value(chain, 0), cax), 0);
        assert_int_equal(SSL_CTX_get_min_proto_version(ctx), TLS1_2_VERSION);
        SSL_CTX_free(ctx);
    }
    X509_free(otherx);
    X509_free(cax);
    gw_ca_free(other);
    gw_ca_free(ca);
}

/* A CA with a day to live mints leaves that end with it, not after. */
static void
test_leaf_within_ca(void **state)
{
    (void)state;
    time_t now = time(NULL);
    static const struct {
        long ca_life;
        long leaf_life; // what the leaf gets
    } cases[] = {
        {86400, 86400},
        {7 * 86400 - 1, 7 * 86400 - 1},
        {7 * 86400, 7 * 86400},
        {7 * 86400 + 1, 7 * 86400},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gw_ca_opts o = {.co_lifetime = cases[i].ca_life};
        gw_ca *ca = new_ca(&o);
        X509 *cax = ca_x509(ca);
        SSL_CTX *ctx = server_ctx(ca, "example.com");
        X509 *leaf = SSL_CTX_get0_certificate(ctx);
        time_t ca_end = asn1_time(X509_get0_notAfter(cax));
        time_t leaf_end = asn1_time(X509_get0_notAfter(leaf));
        assert_near(ca_end, now + cases[i].ca_life);
        assert_near(leaf_end, now + cases[i].leaf_life);
        assert_true(leaf_end <= ca_end);
        SSL_CTX_free(ctx);
        X509_free(cax);
        gw_ca_free(ca);
    }
}

static void
test_refused_hosts(void **state)
{
    (void)state;
    char long_host[GW_CA_HOST_MAX + 2];
    memset(long_host, 'a', sizeof long_host - 1);
    long_host[sizeof long_host - 1] = '\0'; // 254 bytes
    static const struct {
        const char *h;
        const char *why;
    } cases[] = {
        {"", "an empty host"},
        {"a b", "a host byte other than [a-z0-9.-_:]"},
        {"x\n", "a host byte other than [a-z0-9.-_:]"},
        {"*.x", "a host byte other than [a-z0-9.-_:]"},
        {"Example.com", "a host byte other than [a-z0-9.-_:]"},
        {"a,DNS:evil.example", "a host byte other than [a-z0-9.-_:]"},
        {"a/b", "a host byte other than [a-z0-9.-_:]"},
        {"[::1]", "a host byte other than [a-z0-9.-_:]"},
        {"b\xc3\xbc"
         "cher.example",
         "a host byte other than [a-z0-9.-_:]"},
        {"x:y", "a host with ':' that is not an IPv6 address"},
        {"example.com:443", "a host with ':' that is not an IPv6 address"},
        {"1.2.3.4:80", "a host with ':' that is not an IPv6 address"},
        {NULL, "an empty host"},
    };
    gw_ca *ca = new_ca(NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] + 1; i++) {
        const char *h =
            i < sizeof cases / sizeof cases[0] ? cases[i].h : long_host;
        const char *why = i < sizeof cases / sizeof cases[0]
                              ? cases[i].why
                              : "a host over 253 bytes";
        SSL_CTX *ctx = (SSL_CTX *)&ctx; // must come back NULL
        char *err = NULL;
        assert_int_equal(gw_ca_server_ctx(ca, h, &ctx, &err), BOX_EINVAL);
        assert_null(ctx);
        assert_non_null(err);
        assert_non_null(strstr(err, "refused host: "));
        assert_string_equal(strstr(err, "refused host: ") + 14, why);
        box_free(err);
    }
    assert_int_equal(gw_ca_cache_len(ca), 0);
    gw_ca_free(ca);
}

/* ------------------------------------------------------------------ */
/* Real handshakes over a socketpair, both sides in this thread.      */

typedef struct hs_client {
    const char *hc_verify_host;   // the name or address the client checks
    const char *hc_sni;           // NULL: none
    const unsigned char *hc_alpn; // wire format; NULL: no ALPN
    unsigned hc_alpn_len;
} hs_client;

typedef struct hs_result {
    bool hr_ok;       // both sides finished the handshake
    long hr_verify;   // the client's verify result
    char hr_alpn[16]; // what the server selected ("" for none)
    char hr_sni[256]; // what the server saw ("" for none)
    bool hr_echo_ok;  // bytes went both ways
    char hr_err[256]; // OpenSSL's first error when it failed
} hs_result;

/* One step of a non-blocking handshake: 1 done, 0 again, -1 failed. */
static int
hs_step(SSL *s, bool server)
{
    int r = server ? SSL_accept(s) : SSL_connect(s);
    if (r == 1)
        return 1;
    int e = SSL_get_error(s, r);
    return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE ? 0 : -1;
}

static bool
hs_transfer(SSL *from, SSL *to, const char *msg)
{
    char buf[64];
    size_t n = strlen(msg);
    if (SSL_write(from, msg, (int)n) != (int)n)
        return false;
    for (int i = 0; i < 100; i++) {
        int r = SSL_read(to, buf, sizeof buf);
        if (r > 0)
            return (size_t)r == n && memcmp(buf, msg, n) == 0;
        if (SSL_get_error(to, r) != SSL_ERROR_WANT_READ)
            return false;
    }
    return false;
}

static hs_result
handshake(X509 *trust, SSL_CTX *server, const hs_client *c)
{
    hs_result res;
    int sv[2];
    memset(&res, 0, sizeof res);

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(fcntl(sv[i], F_SETFL, O_NONBLOCK), 0);

    SSL_CTX *cctx = SSL_CTX_new(TLS_client_method());
    assert_non_null(cctx);
    assert_int_equal(X509_STORE_add_cert(SSL_CTX_get_cert_store(cctx), trust),
                     1);
    SSL_CTX_set_verify(cctx, SSL_VERIFY_PEER, NULL);
    SSL *cl = SSL_new(cctx);
    SSL *sr = SSL_new(server);
    assert_non_null(cl);
    assert_non_null(sr);
    X509_VERIFY_PARAM *p = SSL_get0_param(cl);
    assert_int_equal(X509_VERIFY_PARAM_set_flags(p, X509_V_FLAG_X509_STRICT),
                     1);
    if (strchr(c->hc_verify_host, ':') != NULL ||
        strspn(c->hc_verify_host, "0123456789.") == strlen(c->hc_verify_host))
        assert_int_equal(X509_VERIFY_PARAM_set1_ip_asc(p, c->hc_verify_host),
                         1);
    else
        assert_int_equal(SSL_set1_host(cl, c->hc_verify_host), 1);
    if (c->hc_sni != NULL)
        assert_int_equal(SSL_set_tlsext_host_name(cl, c->hc_sni), 1);
    if (c->hc_alpn != NULL)
        assert_int_equal(SSL_set_alpn_protos(cl, c->hc_alpn, c->hc_alpn_len),
                         0);
    assert_int_equal(SSL_set_fd(cl, sv[0]), 1);
    assert_int_equal(SSL_set_fd(sr, sv[1]), 1);

    int cd = 0, sd = 0;
    // Stop at the first failure: the other side's next call would empty
    // the thread's error queue that tells why.
    for (int i = 0; i < 1000 && (cd == 0 || sd == 0); i++) {
        if (cd == 0 && (cd = hs_step(cl, false)) < 0)
            break;
        if (sd == 0 && (sd = hs_step(sr, true)) < 0)
            break;
    }
    res.hr_ok = cd == 1 && sd == 1;
    ERR_error_string_n(ERR_peek_error(), res.hr_err, sizeof res.hr_err);
    res.hr_verify = SSL_get_verify_result(cl);
    const unsigned char *alpn = NULL;
    unsigned alpn_len = 0;
    SSL_get0_alpn_selected(sr, &alpn, &alpn_len);
    if (alpn != NULL && alpn_len < sizeof res.hr_alpn)
        memcpy(res.hr_alpn, alpn, alpn_len);
    const char *sni = SSL_get_servername(sr, TLSEXT_NAMETYPE_host_name);
    if (sni != NULL)
        snprintf(res.hr_sni, sizeof res.hr_sni, "%s", sni);
    if (res.hr_ok)
        res.hr_echo_ok = hs_transfer(cl, sr, "GET / HTTP/1.1\r\n") &&
                         hs_transfer(sr, cl, "HTTP/1.1 200 OK\r\n");
    SSL_free(cl);
    SSL_free(sr);
    SSL_CTX_free(cctx);
    close(sv[0]);
    close(sv[1]);
    ERR_clear_error();
    return res;
}

static const unsigned char alpn_h1[] = "\x08http/1.1";
static const unsigned char alpn_h2_h1[] = "\x02h2\x08http/1.1";
static const unsigned char alpn_h2[] = "\x02h2";

static void
test_handshake(void **state)
{
    (void)state;
    gw_ca *ca = new_ca(NULL);
    gw_ca *other = new_ca(NULL);
    X509 *cax = ca_x509(ca);
    X509 *otherx = ca_x509(other);
    static const struct {
        const char *hs_host; // the leaf's
        hs_client hs_c;
        bool hs_ok;
        long hs_verify;
        const char *hs_alpn;
        const char *hs_err; // in OpenSSL's error, when it fails
    } cases[] = {
        {"example.com",
         {"example.com", "example.com", alpn_h1, sizeof alpn_h1 - 1},
         true,
         X509_V_OK,
         "http/1.1",
         NULL},
        // A client that prefers h2 still gets http/1.1.
        {"example.com",
         {"example.com", "example.com", alpn_h2_h1, sizeof alpn_h2_h1 - 1},
         true,
         X509_V_OK,
         "http/1.1",
         NULL},
        // No ALPN: HTTP/1.1 implied, nothing selected.
        {"example.com",
         {"example.com", "example.com", NULL, 0},
         true,
         X509_V_OK,
         "",
         NULL},
        {"203.0.113.7",
         {"203.0.113.7", NULL, alpn_h1, sizeof alpn_h1 - 1},
         true,
         X509_V_OK,
         "http/1.1",
         NULL},
        {"2001:db8::1",
         {"2001:db8::1", NULL, alpn_h1, sizeof alpn_h1 - 1},
         true,
         X509_V_OK,
         "http/1.1",
         NULL},
        // The client checks another name: it refuses the leaf (after the
        // server chose ALPN in its first flight).
        {"example.com",
         {"example.org", "example.org", alpn_h1, sizeof alpn_h1 - 1},
         false,
         X509_V_ERR_HOSTNAME_MISMATCH,
         "http/1.1",
         "certificate verify failed"},
        {"203.0.113.7",
         {"203.0.113.8", NULL, alpn_h1, sizeof alpn_h1 - 1},
         false,
         X509_V_ERR_IP_ADDRESS_MISMATCH,
         "http/1.1",
         "certificate verify failed"},
        // ALPN without http/1.1: no_application_protocol.
        {"example.com",
         {"example.com", "example.com", alpn_h2, sizeof alpn_h2 - 1},
         false,
         X509_V_OK,
         "",
         "no application protocol"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        SSL_CTX *s = server_ctx(ca, cases[i].hs_host);
        hs_result r = handshake(cax, s, &cases[i].hs_c);
        if (r.hr_ok != cases[i].hs_ok)
            fail_msg("case %zu (%s): handshake %s", i, cases[i].hs_host,
                     r.hr_ok ? "succeeded" : "failed");
        assert_int_equal(r.hr_verify, cases[i].hs_verify);
        assert_string_equal(r.hr_alpn, cases[i].hs_alpn);
        if (cases[i].hs_err != NULL &&
            strstr(r.hr_err, cases[i].hs_err) == NULL)
            fail_msg("case %zu: error \"%s\", want \"%s\"", i, r.hr_err,
                     cases[i].hs_err);
        if (r.hr_ok) {
            assert_true(r.hr_echo_ok);
            assert_string_equal(
                r.hr_sni, cases[i].hs_c.hc_sni ? cases[i].hs_c.hc_sni : "");
        }
        // A client trusting another CA refuses every leaf it is shown:
        // the chain ends in our CA, which it does not know.
        hs_result o = handshake(otherx, s, &cases[i].hs_c);
        assert_false(o.hr_ok);
        if (cases[i].hs_ok)
            assert_int_equal(o.hr_verify, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN);
        SSL_CTX_free(s);
    }
    X509_free(otherx);
    X509_free(cax);
    gw_ca_free(other);
    gw_ca_free(ca);
}

/* ------------------------------------------------------------------ */
/* The cache.                                                         */

static void
test_cache(void **state)
{
    (void)state;
    gw_ca *ca = new_ca(NULL);
    SSL_CTX *a = server_ctx(ca, "a.example");
    SSL_CTX *a2 = server_ctx(ca, "a.example");
    assert_ptr_equal(a, a2);
    assert_int_equal(gw_ca_cache_len(ca), 1);
    SSL_CTX *b = server_ctx(ca, "b.example");
    assert_ptr_not_equal(a, b);
    assert_int_equal(gw_ca_cache_len(ca), 2);
    SSL_CTX_free(a);
    SSL_CTX_free(a2);
    SSL_CTX_free(b);
    gw_ca_free(ca); // the contexts go with it
}

/* Least recently used evicted: a bound of 2, a touched before c. */
static void
test_cache_evicts(void **state)
{
    (void)state;
    gw_ca_opts o = {.co_cache_max = 2};
    gw_ca *ca = new_ca(&o);
    SSL_CTX *a = server_ctx(ca, "a.example");
    SSL_CTX *b = server_ctx(ca, "b.example");
    assert_int_equal(gw_ca_cache_len(ca), 2);  // at the bound
    SSL_CTX *a2 = server_ctx(ca, "a.example"); // a is now the newer
    assert_ptr_equal(a, a2);
    SSL_CTX *c = server_ctx(ca, "c.example"); // one past: b goes
    assert_int_equal(gw_ca_cache_len(ca), 2);
    SSL_CTX *a3 = server_ctx(ca, "a.example");
    assert_ptr_equal(a, a3);
    SSL_CTX *c2 = server_ctx(ca, "c.example");
    assert_ptr_equal(c, c2);
    SSL_CTX *b2 = server_ctx(ca, "b.example"); // minted anew; a goes
    assert_ptr_not_equal(b, b2);
    assert_int_equal(gw_ca_cache_len(ca), 2);
    SSL_CTX *a4 = server_ctx(ca, "a.example");
    assert_ptr_not_equal(a, a4);
    // An evicted context a caller still holds stays usable.
    X509 *cax = ca_x509(ca);
    hs_client cl = {"b.example", "b.example", alpn_h1, sizeof alpn_h1 - 1};
    assert_true(handshake(cax, b, &cl).hr_ok);
    X509_free(cax);
    SSL_CTX *all[] = {a, b, a2, c, a3, c2, b2, a4};
    gw_ca_free(ca);
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        SSL_CTX_free(all[i]);
}

/* ------------------------------------------------------------------ */
/* Threads.                                                           */

#define T_THREADS 4
#define T_HOSTS 20

typedef struct t_arg {
    gw_ca *ta_ca;
    int ta_id;
    int ta_bad; // contexts that were missing or for another host
} t_arg;

static bool
names(SSL_CTX *ctx, const char *host)
{
    X509 *leaf = SSL_CTX_get0_certificate(ctx);
    return leaf != NULL && X509_check_host(leaf, host, 0, 0, NULL) == 1;
}

static void *
t_main(void *p)
{
    t_arg *a = p;
    char host[32];
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < T_HOSTS; k++) {
            int h = (k + a->ta_id * 5) % T_HOSTS; // each its own order
            snprintf(host, sizeof host, "h%02d.example", h);
            SSL_CTX *ctx = NULL;
            char *err = NULL;
            if (gw_ca_server_ctx(a->ta_ca, host, &ctx, &err) != BOX_OK ||
                !names(ctx, host))
                a->ta_bad++;
            SSL_CTX_free(ctx);
            box_free(err);
        }
    }
    return NULL;
}

static void
run_threads(gw_ca *ca)
{
    pthread_t t[T_THREADS];
    t_arg a[T_THREADS];
    for (int i = 0; i < T_THREADS; i++) {
        a[i] = (t_arg){ca, i, 0};
        assert_int_equal(pthread_create(&t[i], NULL, t_main, &a[i]), 0);
    }
    for (int i = 0; i < T_THREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(a[i].ta_bad, 0);
    }
}

static void
test_threads(void **state)
{
    (void)state;
    gw_ca *ca = new_ca(NULL);
    run_threads(ca);
    assert_int_equal(gw_ca_cache_len(ca), T_HOSTS);
    // Whoever won each race, one context per host is cached.
    X509 *cax = ca_x509(ca);
    for (int h = 0; h < T_HOSTS; h++) {
        char host[32];
        snprintf(host, sizeof host, "h%02d.example", h);
        SSL_CTX *x = server_ctx(ca, host);
        SSL_CTX *y = server_ctx(ca, host);
        assert_ptr_equal(x, y);
        assert_int_equal(verify(cax, SSL_CTX_get0_certificate(x), host, false),
                         X509_V_OK);
        SSL_CTX_free(x);
        SSL_CTX_free(y);
    }
    X509_free(cax);
    gw_ca_free(ca);

    // A cache smaller than the hosts: evictions race with lookups.
    gw_ca_opts o = {.co_cache_max = 7};
    ca = new_ca(&o);
    run_threads(ca);
    assert_int_equal(gw_ca_cache_len(ca), 7);
    gw_ca_free(ca);
}

/* ------------------------------------------------------------------ */
/* Out of memory: each of our allocations failed in turn gives an     */
/* error and loses nothing (ASan's leak check watches).               */

static void
test_alloc_failures(void **state)
{
    (void)state;
    char dir[] = "/tmp/gw_ca_test.XXXXXX";
    char path[128];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/cert.pem", dir);

    for (unsigned long n = 1;; n++) {
        gw_ca *ca = NULL;
        char *err = NULL;
        box_alloc_fail_after(n);
        box_err rv = gw_ca_new(&ca, &err);
        unsigned long calls = box_alloc_calls();
        box_alloc_fail_off();
        if (rv == BOX_OK) {
            gw_ca_free(ca);
            assert_true(calls < n); // every call before this one failed
            break;
        }
        assert_int_equal(rv, BOX_ENOMEM);
        assert_null(ca);
        box_free(err);
        assert_true(n < 100);
    }

    gw_ca *ca = new_ca(NULL);
    for (unsigned long n = 1;; n++) {
        SSL_CTX *ctx = NULL;
        char *err = NULL, *pem = NULL;
        size_t len;
        box_alloc_fail_after(n);
        box_err r1 = gw_ca_server_ctx(ca, "oom.example", &ctx, &err);
        box_free(err);
        err = NULL;
        box_err r2 = gw_ca_write_cert(ca, path, &err);
        box_free(err);
        box_err r3 = gw_ca_cert_pem(ca, &pem, &len);
        unsigned long calls = box_alloc_calls();
        box_alloc_fail_off();
        box_free(pem);
        SSL_CTX_free(ctx);
        assert_true(r1 == BOX_OK || ctx == NULL);
        assert_true(dir_entries(dir) <= 1); // no temporary file left
        if (r1 == BOX_OK && r2 == BOX_OK && r3 == BOX_OK && calls < n)
            break;
        assert_true(n < 100);
    }
    gw_ca_free(ca);
    rm_tree(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ca_cert),
        cmocka_unit_test(test_ca_opts),
        cmocka_unit_test(test_write_cert),
        cmocka_unit_test(test_write_cert_fails),
        cmocka_unit_test(test_leaf_verify),
        cmocka_unit_test(test_leaf_within_ca),
        cmocka_unit_test(test_refused_hosts),
        cmocka_unit_test(test_handshake),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_cache_evicts),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_alloc_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
