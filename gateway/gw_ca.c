/* SPDX-License-Identifier: Apache-2.0 */
/* The run's interception CA, its PEM file, and per-host leaves, cached. */
#include "gw_ca.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "box_alloc.h"

#define CA_SERIAL_BYTES 16
#define CA_ID_BYTES 4 // the CN's short random id, as 8 hex digits
#define CA_CN_PREFIX "strands-box egress CA "

/* One cached server context. A slot with ce_ctx NULL is free. */
typedef struct ca_entry {
    char ce_host[GW_CA_HOST_MAX + 1];
    SSL_CTX *ce_ctx;  // the cache's own reference
    uint64_t ce_used; // ca_tick at its last use: the least is evicted
} ca_entry;

struct gw_ca {
    EVP_PKEY *ca_key; // the CA's private key: in this memory only, ever
    X509 *ca_cert;
    /*
     * One key for every leaf of this CA. A leaf's key protects nothing the
     * CA key does not already: whoever could read one could read the
     * other, both live and die in this process, and every leaf is for the
     * same client. Generating a key per host would only slow the first
     * CONNECT to each host.
     */
    EVP_PKEY *ca_leaf_key;
    time_t ca_not_after;     // no leaf outlives the CA
    pthread_mutex_t ca_lock; // guards the slots, ca_len and ca_tick
    ca_entry *ca_ents;       // ca_cap slots
    size_t ca_cap;           // fixed at gw_ca_new
    size_t ca_len;           // slots in use
    uint64_t ca_tick;
};

/* ------------------------------------------------------------------ */
/* Errors: one line, naming what failed.                              */

static box_err ca_say(char **err, box_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static box_err
ca_say(char **err, box_err code, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        box_free(*err);
        *err = box_vasprintf(fmt, ap);
        va_end(ap);
    }
    return code;
}

/* An OpenSSL call failed: what, with the reason at the bottom of
 * OpenSSL's queue (the first error raised, nearest the cause). The queue
 * is emptied so the next failure is not told with this one's reason. */
static box_err
ca_ossl(char **err, const char *what)
{
    char reason[256] = "no reason given";
    unsigned long e = ERR_get_error();
    box_err code = BOX_EIO;

    if (e != 0) {
        ERR_error_string_n(e, reason, sizeof reason);
        if (ERR_GET_REASON(e) == ERR_R_MALLOC_FAILURE)
            code = BOX_ENOMEM;
    }
    ERR_clear_error();
    return ca_say(err, code, "gw_ca: %s: %s", what, reason);
}

/* ------------------------------------------------------------------ */
/* Minting one certificate (the CA's or a leaf).                      */

/* One extension as OpenSSL's configuration text: only constants here,
 * never a host (the subjectAltName is built as a structure). */
typedef struct ca_ext {
    int ce_nid;
    const char *ce_value;
} ca_ext;

/* RFC 5280 §4.2.1: a CA signing only leaves (pathlen 0). */
static const ca_ext ca_exts_root[] = {
    {NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
    {NID_key_usage, "critical,keyCertSign,cRLSign"},
    {NID_subject_key_identifier, "hash"},
};

/* A TLS server leaf (the subjectAltName is added beside these). */
static const ca_ext ca_exts_leaf[] = {
    {NID_basic_constraints, "CA:FALSE"},
    {NID_key_usage, "critical,digitalSignature"},
    {NID_ext_key_usage, "serverAuth"},
    {NID_subject_key_identifier, "hash"},
    {NID_authority_key_identifier, "keyid:always"},
};

#define CA_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* What one certificate is made of. */
typedef struct ca_mint {
    const char *cm_cn; // the subject's CN, cm_cn_len bytes of [ -~]
    size_t cm_cn_len;
    X509 *cm_issuer;   // NULL: self-signed
    EVP_PKEY *cm_pub;  // the subject's key
    EVP_PKEY *cm_sign; // the issuer's key
    time_t cm_not_before;
    time_t cm_not_after;
    const ca_ext *cm_exts;
    size_t cm_nexts;
    GENERAL_NAMES *cm_san; // NULL: none (the CA); borrowed
} ca_mint;

/* A random serial of CA_SERIAL_BYTES bytes (RFC 5280 §4.1.2.2: positive,
 * at most 20 bytes; CA/B asks for 64 random bits, we give 126): the top
 * bit clear keeps it positive, the next one set keeps it that long. */
static box_err
ca_serial(X509 *x, char **err)
{
    unsigned char b[CA_SERIAL_BYTES];
    BIGNUM *bn = NULL;
    box_err rv = BOX_OK;

    if (RAND_bytes(b, sizeof b) != 1) {
        rv = ca_ossl(err, "random serial");
        goto out;
    }
    b[0] = (unsigned char)((b[0] & 0x7f) | 0x40);
    if ((bn = BN_bin2bn(b, sizeof b, NULL)) == NULL ||
        BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) == NULL)
        rv = ca_ossl(err, "serial number");
out:
    BN_free(bn);
    OPENSSL_cleanse(b, sizeof b);
    return rv;
}

static box_err
ca_add_exts(X509 *x, X509V3_CTX *v3, const ca_ext *exts, size_t n, char **err)
{
    for (size_t i = 0; i < n; i++) {
        X509_EXTENSION *ext =
            X509V3_EXT_nconf_nid(NULL, v3, exts[i].ce_nid, exts[i].ce_value);
        int ok = ext != NULL && X509_add_ext(x, ext, -1) == 1;
        X509_EXTENSION_free(ext);
        if (!ok)
            return ca_ossl(err, OBJ_nid2sn(exts[i].ce_nid));
    }
    return BOX_OK;
}

static box_err
ca_mint_cert(const ca_mint *m, X509 **out, char **err)
{
    X509 *x = NULL;
    X509_NAME *name = NULL;
    X509V3_CTX v3;
    box_err rv;

    *out = NULL;
    if ((x = X509_new()) == NULL || (name = X509_NAME_new()) == NULL) {
        rv = ca_ossl(err, "new certificate");
        goto out;
    }
    if ((rv = ca_serial(x, err)) != BOX_OK)
        goto out;
    if (X509_set_version(x, X509_VERSION_3) != 1 ||
        X509_NAME_add_entry_by_NID(name, NID_commonName, MBSTRING_UTF8,
                                   (const unsigned char *)m->cm_cn,
                                   (int)m->cm_cn_len, -1, 0) != 1 ||
        X509_set_subject_name(x, name) != 1 ||
        X509_set_issuer_name(x, m->cm_issuer != NULL
                                    ? X509_get_subject_name(m->cm_issuer)
                                    : name) != 1) {
        rv = ca_ossl(err, "certificate names");
        goto out;
    }
    if (ASN1_TIME_set(X509_getm_notBefore(x), m->cm_not_before) == NULL ||
        ASN1_TIME_set(X509_getm_notAfter(x), m->cm_not_after) == NULL) {
        rv = ca_ossl(err, "certificate validity");
        goto out;
    }
    if (X509_set_pubkey(x, m->cm_pub) != 1) {
        rv = ca_ossl(err, "certificate key");
        goto out;
    }
    // The issuer is read for the authorityKeyIdentifier, the subject's key
    // for the subjectKeyIdentifier.
    X509V3_set_ctx(&v3, m->cm_issuer != NULL ? m->cm_issuer : x, x, NULL, NULL,
                   0);
    if ((rv = ca_add_exts(x, &v3, m->cm_exts, m->cm_nexts, err)) != BOX_OK)
        goto out;
    if (m->cm_san != NULL &&
        X509_add1_ext_i2d(x, NID_subject_alt_name, m->cm_san, 0,
                          X509V3_ADD_DEFAULT) != 1) {
        rv = ca_ossl(err, "subjectAltName");
        goto out;
    }
    if (X509_sign(x, m->cm_sign, EVP_sha256()) <= 0) {
        rv = ca_ossl(err, "signing the certificate");
        goto out;
    }
    *out = x;
    x = NULL;
    rv = BOX_OK;
out:
    X509_NAME_free(name);
    X509_free(x);
    return rv;
}

/* ------------------------------------------------------------------ */
/* The CA.                                                            */

static box_err
ca_keygen(EVP_PKEY **out, char **err)
{
    if ((*out = EVP_EC_gen("P-256")) == NULL)
        return ca_ossl(err, "EC P-256 key");
    return BOX_OK;
}

static box_err
ca_make_root(gw_ca *ca, long lifetime, char **err)
{
    unsigned char id[CA_ID_BYTES];
    char cn[sizeof CA_CN_PREFIX + 2 * CA_ID_BYTES];
    time_t now = time(NULL);
    int n;

    if (RAND_bytes(id, sizeof id) != 1)
        return ca_ossl(err, "random CA id");
    n = snprintf(cn, sizeof cn, "%s%02x%02x%02x%02x", CA_CN_PREFIX, id[0],
                 id[1], id[2], id[3]);
    /*
     * A box run is bounded and the CA dies with it: 30 days outlasts any
     * run, and a certificate that leaked out of a box dir stops being
     * trusted by the tools that copied it soon after.
     */
    ca->ca_not_after = now + lifetime;
    const ca_mint m = {
        .cm_cn = cn,
        .cm_cn_len = (size_t)n,
        .cm_issuer = NULL,
        .cm_pub = ca->ca_key,
        .cm_sign = ca->ca_key,
        .cm_not_before = now - GW_CA_BACKDATE,
        .cm_not_after = ca->ca_not_after,
        .cm_exts = ca_exts_root,
        .cm_nexts = CA_NELEM(ca_exts_root),
        .cm_san = NULL,
    };
    return ca_mint_cert(&m, &ca->ca_cert, err);
}

box_err
gw_ca_new(gw_ca **out, char **err)
{
    return gw_ca_new_opts(NULL, out, err);
}

box_err
gw_ca_new_opts(const gw_ca_opts *opts, gw_ca **out, char **err)
{
    size_t cap = GW_CA_CACHE_DEFAULT;
    long lifetime = GW_CA_LIFETIME;
    gw_ca *ca = NULL;
    box_err rv;

    *out = NULL;
    if (err != NULL)
        *err = NULL;
    if (opts != NULL && opts->co_cache_max != 0)
        cap = opts->co_cache_max;
    if (opts != NULL && opts->co_lifetime != 0)
        lifetime = opts->co_lifetime;
    if (cap > GW_CA_CACHE_MAX)
        return ca_say(err, BOX_EINVAL,
                      "gw_ca: a cache of %zu hosts is over its limit of %d",
                      cap, GW_CA_CACHE_MAX);
    if (lifetime < 1 || lifetime > GW_CA_LIFETIME)
        return ca_say(err, BOX_EINVAL,
                      "gw_ca: a CA lifetime of %ld s is not within 1..%d",
                      lifetime, GW_CA_LIFETIME);
    if ((ca = box_calloc(1, sizeof *ca)) == NULL)
        return ca_say(err, BOX_ENOMEM, "gw_ca: out of memory");
    if (pthread_mutex_init(&ca->ca_lock, NULL) != 0) {
        box_free(ca);
        return ca_say(err, BOX_ENOMEM, "gw_ca: cannot make its lock");
    }
    ca->ca_cap = cap;
    if ((ca->ca_ents = box_calloc(cap, sizeof *ca->ca_ents)) == NULL) {
        rv = ca_say(err, BOX_ENOMEM, "gw_ca: out of memory for its cache");
        goto out;
    }
    if ((rv = ca_keygen(&ca->ca_key, err)) != BOX_OK ||
        (rv = ca_keygen(&ca->ca_leaf_key, err)) != BOX_OK ||
        (rv = ca_make_root(ca, lifetime, err)) != BOX_OK)
        goto out;
    *out = ca;
    ca = NULL;
out:
    gw_ca_free(ca);
    return rv;
}

void
gw_ca_free(gw_ca *ca)
{
    if (ca == NULL)
        return;
    for (size_t i = 0; i < ca->ca_cap && ca->ca_ents != NULL; i++)
        SSL_CTX_free(ca->ca_ents[i].ce_ctx);
    box_free(ca->ca_ents);
    X509_free(ca->ca_cert);
    EVP_PKEY_free(ca->ca_leaf_key);
    EVP_PKEY_free(ca->ca_key);
    pthread_mutex_destroy(&ca->ca_lock);
    box_free(ca);
}

/* ------------------------------------------------------------------ */
/* The certificate as PEM, in memory and in a file.                   */

box_err
gw_ca_cert_pem(const gw_ca *ca, char **pem, size_t *len)
{
    BIO *bio = NULL;
    char *data = NULL;
    long n;
    box_err rv = BOX_ENOMEM;

    *pem = NULL;
    *len = 0;
    if ((bio = BIO_new(BIO_s_mem())) == NULL ||
        PEM_write_bio_X509(bio, ca->ca_cert) != 1 ||
        (n = BIO_get_mem_data(bio, &data)) <= 0)
        goto out;
    if ((*pem = box_alloc((size_t)n + 1)) == NULL)
        goto out;
    memcpy(*pem, data, (size_t)n);
    (*pem)[n] = '\0';
    *len = (size_t)n;
    rv = BOX_OK;
out:
    ERR_clear_error();
    BIO_free(bio);
    return rv;
}

static bool
ca_write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Makes the rename itself durable: the directory holding path, synced. */
static box_err
ca_sync_dir(const char *path, char **err)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int fd;
    box_err rv = BOX_OK;

    if (slash == NULL)
        dir = box_strdup(".");
    else
        dir = box_strndup(path, slash == path ? 1 : (size_t)(slash - path));
    if (dir == NULL)
        return ca_say(err, BOX_ENOMEM, "gw_ca_write_cert: out of memory");
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0)
        rv = ca_say(err, BOX_EIO, "gw_ca_write_cert: syncing %s: %s", dir,
                    strerror(errno));
    if (fd >= 0)
        close(fd);
    box_free(dir);
    return rv;
}

box_err
gw_ca_write_cert(const gw_ca *ca, const char *path, char **err)
{
    char *pem = NULL, *tmp = NULL;
    size_t len;
    int fd = -1, cr;
    bool made = false; // tmp exists and is ours to remove
    box_err rv;

    if (err != NULL)
        *err = NULL;
    if (path == NULL || path[0] == '\0')
        return ca_say(err, BOX_EINVAL, "gw_ca_write_cert: an empty path");
    if (gw_ca_cert_pem(ca, &pem, &len) != BOX_OK) {
        rv = ca_say(err, BOX_ENOMEM, "gw_ca_write_cert: out of memory");
        goto out;
    }
    if ((tmp = box_asprintf("%s.XXXXXX", path)) == NULL) {
        rv = ca_say(err, BOX_ENOMEM, "gw_ca_write_cert: out of memory");
        goto out;
    }
    if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            rv = ca_say(err, BOX_ENOENT,
                        "gw_ca_write_cert: the directory of %s does not "
                        "exist",
                        path);
        else
            rv = ca_say(err, BOX_EIO,
                        "gw_ca_write_cert: creating a file next to %s: %s",
                        path, strerror(errno));
        goto out;
    }
    made = true;
    // mkostemp makes it 0600; the sandboxes' tools must read it.
    if (fchmod(fd, 0644) != 0 || !ca_write_all(fd, pem, len) ||
        fsync(fd) != 0) {
        rv = ca_say(err, BOX_EIO, "gw_ca_write_cert: writing %s: %s", tmp,
                    strerror(errno));
        goto out;
    }
    cr = close(fd);
    fd = -1;
    if (cr != 0) {
        rv = ca_say(err, BOX_EIO, "gw_ca_write_cert: closing %s: %s", tmp,
                    strerror(errno));
        goto out;
    }
    if (rename(tmp, path) != 0) {
        rv = ca_say(err, BOX_EIO, "gw_ca_write_cert: renaming %s to %s: %s",
                    tmp, path, strerror(errno));
        goto out;
    }
    made = false;
    rv = ca_sync_dir(path, err);
out:
    if (fd >= 0)
        close(fd);
    if (made)
        unlink(tmp);
    box_free(tmp);
    box_free(pem);
    return rv;
}

/* ------------------------------------------------------------------ */
/* Leaves.                                                            */

/* A host the CA will name, checked before any of it reaches a
 * certificate. */
typedef struct ca_host {
    size_t ch_len;
    bool ch_ip;                // an address literal: SAN IP, not DNS
    unsigned char ch_addr[16]; // its bytes when ch_ip
    size_t ch_addr_len;        // 4 or 16
} ca_host;

/* NULL when host is one the CA names, else why not. */
static const char *
ca_host_check(const char *host, ca_host *h)
{
    bool colon = false;

    memset(h, 0, sizeof *h);
    if (host == NULL || host[0] == '\0')
        return "an empty host";
    h->ch_len = strnlen(host, GW_CA_HOST_MAX + 1);
    if (h->ch_len > GW_CA_HOST_MAX)
        return "a host over 253 bytes";
    for (size_t i = 0; i < h->ch_len; i++) {
        unsigned char c = (unsigned char)host[i];
        if (c == ':')
            colon = true;
        else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                   c == '.' || c == '-' || c == '_'))
            return "a host byte other than [a-z0-9.-_:]";
    }
    if (inet_pton(AF_INET6, host, h->ch_addr) == 1) {
        h->ch_ip = true;
        h->ch_addr_len = 16;
    } else if (colon) {
        return "a host with ':' that is not an IPv6 address";
    } else if (inet_pton(AF_INET, host, h->ch_addr) == 1) {
        h->ch_ip = true;
        h->ch_addr_len = 4;
    }
    return NULL;
}

/* The leaf's one subjectAltName: IP:<bytes> or DNS:<host>. */
static box_err
ca_san(const char *host, const ca_host *h, GENERAL_NAMES **out, char **err)
{
    GENERAL_NAMES *names = NULL;
    GENERAL_NAME *gn = NULL;
    ASN1_STRING *value = NULL;
    box_err rv;

    *out = NULL;
    if ((names = GENERAL_NAMES_new()) == NULL ||
        (gn = GENERAL_NAME_new()) == NULL)
        goto fail;
    if (h->ch_ip) {
        if ((value = ASN1_OCTET_STRING_new()) == NULL ||
            ASN1_OCTET_STRING_set(value, h->ch_addr, (int)h->ch_addr_len) != 1)
            goto fail;
        GENERAL_NAME_set0_value(gn, GEN_IPADD, value);
    } else {
        if ((value = ASN1_IA5STRING_new()) == NULL ||
            ASN1_STRING_set(value, host, (int)h->ch_len) != 1)
            goto fail;
        GENERAL_NAME_set0_value(gn, GEN_DNS, value);
    }
    value = NULL; // gn's now
    if (sk_GENERAL_NAME_push(names, gn) <= 0)
        goto fail;
    *out = names;
    return BOX_OK;
fail:
    rv = ca_ossl(err, "subjectAltName");
    ASN1_STRING_free(value);
    GENERAL_NAME_free(gn);
    GENERAL_NAMES_free(names);
    return rv;
}

static box_err
ca_mint_leaf(gw_ca *ca, const char *host, const ca_host *h, X509 **out,
             char **err)
{
    GENERAL_NAMES *san = NULL;
    time_t now = time(NULL);
    time_t not_after = now + GW_CA_LEAF_LIFETIME;
    box_err rv;

    if (not_after > ca->ca_not_after)
        not_after = ca->ca_not_after;
    if ((rv = ca_san(host, h, &san, err)) != BOX_OK)
        return rv;
    const ca_mint m = {
        .cm_cn = host,
        // ub-common-name; the subjectAltName is what clients match.
        .cm_cn_len = h->ch_len < GW_CA_CN_MAX ? h->ch_len : GW_CA_CN_MAX,
        .cm_issuer = ca->ca_cert,
        .cm_pub = ca->ca_leaf_key,
        .cm_sign = ca->ca_key,
        .cm_not_before = now - GW_CA_BACKDATE,
        .cm_not_after = not_after,
        .cm_exts = ca_exts_leaf,
        .cm_nexts = CA_NELEM(ca_exts_leaf),
        .cm_san = san,
    };
    rv = ca_mint_cert(&m, out, err);
    GENERAL_NAMES_free(san);
    return rv;
}

/*
 * ALPN (RFC 7301): the gateway reads only HTTP/1.1 inside the tunnel. A
 * client that offers ALPN without "http/1.1" (say only "h2") would speak
 * a protocol we would misread, so the handshake fails with
 * no_application_protocol (§3.2) and the client says why, rather than
 * going on without ALPN and sending an HTTP/2 preface to an HTTP/1.1
 * parser. A client that offers no ALPN speaks HTTP/1.1 and gets no
 * callback.
 */
static int
ca_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
               const unsigned char *in, unsigned int inlen, void *arg)
{
    static const unsigned char proto[] = "http/1.1";
    const size_t plen = sizeof proto - 1;

    (void)ssl;
    (void)arg;
    // in is the client's list: each name after its one-byte length.
    for (unsigned int i = 0; i < inlen; i += 1u + in[i]) {
        if (in[i] == plen && i + 1u + plen <= inlen &&
            memcmp(in + i + 1, proto, plen) == 0) {
            *out = proto;
            *outlen = (unsigned char)plen;
            return SSL_TLSEXT_ERR_OK;
        }
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL;
}

static box_err
ca_make_ctx(gw_ca *ca, X509 *leaf, SSL_CTX **out, char **err)
{
    SSL_CTX *ctx;

    *out = NULL;
    if ((ctx = SSL_CTX_new(TLS_server_method())) == NULL)
        return ca_ossl(err, "SSL_CTX_new");
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
        SSL_CTX_use_certificate(ctx, leaf) != 1 ||
        SSL_CTX_use_PrivateKey(ctx, ca->ca_leaf_key) != 1 ||
        SSL_CTX_add1_chain_cert(ctx, ca->ca_cert) != 1) {
        SSL_CTX_free(ctx);
        return ca_ossl(err, "server context");
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE);
    // Thousands of idle tunnels should not each hold two 16 KiB buffers.
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    // A record's header and body in one read, and what follows it too
    // (the client's Finished and its request come together): half the
    // reads of a tunnel. The connection drains what OpenSSL holds before
    // it waits (gw_conn_on_io).
    SSL_CTX_set_read_ahead(ctx, 1);
    // One ticket is enough to resume from: a client that never resumes
    // (most open one tunnel per process) costs one less sealed session.
    SSL_CTX_set_num_tickets(ctx, 1);
    SSL_CTX_set_alpn_select_cb(ctx, ca_alpn_select, NULL);
    *out = ctx;
    return BOX_OK;
}

/* ------------------------------------------------------------------ */
/* The cache: a few hundred hosts, scanned. A scan costs well under a  */
/* microsecond per lookup, beside the handshake that follows it.       */

/* Under ca_lock: the slot holding host, or NULL. */
static ca_entry *
ca_cache_find(gw_ca *ca, const char *host)
{
    for (size_t i = 0; i < ca->ca_cap; i++) {
        ca_entry *e = &ca->ca_ents[i];
        if (e->ce_ctx != NULL && strcmp(e->ce_host, host) == 0)
            return e;
    }
    return NULL;
}

/* Under ca_lock: a free slot, or else the least recently used one (whose
 * context the caller frees after unlocking). */
static ca_entry *
ca_cache_slot(gw_ca *ca)
{
    ca_entry *lru = &ca->ca_ents[0];

    for (size_t i = 0; i < ca->ca_cap; i++) {
        ca_entry *e = &ca->ca_ents[i];
        if (e->ce_ctx == NULL)
            return e;
        if (e->ce_used < lru->ce_used)
            lru = e;
    }
    return lru;
}

/* Under ca_lock: the cached context for host, with a reference for the
 * caller, or NULL. */
static SSL_CTX *
ca_cache_get(gw_ca *ca, const char *host)
{
    ca_entry *e = ca_cache_find(ca, host);

    if (e == NULL || SSL_CTX_up_ref(e->ce_ctx) != 1)
        return NULL;
    e->ce_used = ++ca->ca_tick;
    return e->ce_ctx;
}

box_err
gw_ca_server_ctx(gw_ca *ca, const char *host, SSL_CTX **out, char **err)
{
    ca_host h;
    const char *why;
    X509 *leaf = NULL;
    SSL_CTX *ctx = NULL, *had = NULL, *victim = NULL;
    box_err rv;

    *out = NULL;
    if (err != NULL)
        *err = NULL;
    if ((why = ca_host_check(host, &h)) != NULL)
        return ca_say(err, BOX_EINVAL, "gw_ca: refused host: %s", why);

    pthread_mutex_lock(&ca->ca_lock);
    ctx = ca_cache_get(ca, host);
    pthread_mutex_unlock(&ca->ca_lock);
    if (ctx != NULL) {
        *out = ctx;
        return BOX_OK;
    }

    // Minted unlocked, so one new host does not hold up the others; two
    // threads minting the same host keep the first one cached.
    if ((rv = ca_mint_leaf(ca, host, &h, &leaf, err)) != BOX_OK ||
        (rv = ca_make_ctx(ca, leaf, &ctx, err)) != BOX_OK)
        goto out;

    pthread_mutex_lock(&ca->ca_lock);
    had = ca_cache_get(ca, host);
    if (had != NULL) {
        victim = ctx; // ours lost the race
        ctx = had;
    } else if (SSL_CTX_up_ref(ctx) == 1) { // the cache's own reference
        ca_entry *e = ca_cache_slot(ca);
        victim = e->ce_ctx;
        if (victim == NULL)
            ca->ca_len++;
        memcpy(e->ce_host, host, h.ch_len + 1);
        e->ce_ctx = ctx;
        e->ce_used = ++ca->ca_tick;
    } // else not cached: the caller holds its only reference
    pthread_mutex_unlock(&ca->ca_lock);
    *out = ctx;
    rv = BOX_OK;
out:
    SSL_CTX_free(victim);
    X509_free(leaf);
    return rv;
}

size_t
gw_ca_cache_len(gw_ca *ca)
{
    size_t n;

    pthread_mutex_lock(&ca->ca_lock);
    n = ca->ca_len;
    pthread_mutex_unlock(&ca->ca_lock);
    return n;
}
