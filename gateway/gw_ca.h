/* SPDX-License-Identifier: Apache-2.0 */
/* The run's interception CA and the leaf certificates it mints per host. */
#ifndef GW_CA_H
#define GW_CA_H

#include <stddef.h>
#include <openssl/types.h> // SSL_CTX; callers free it with <openssl/ssl.h>

#include "box_err.h"

/*
 * The gateway terminates the client's TLS inside every CONNECT tunnel
 * (box-spec §6) with a leaf certificate for the CONNECT host, signed by a
 * CA made for this run. The CA's private key lives only in this process's
 * memory; only its certificate is ever written (gw_ca_write_cert), for the
 * sandboxes' trust variables to point at.
 *
 * Every failing call returns a box_err and, where it takes char **err,
 * sets *err to a one-line message naming what failed (OpenSSL's reason
 * included), owned by the caller who frees it with box_free; *err is NULL
 * on success, and may be NULL on failure when memory ran out. A failure
 * inside OpenSSL is BOX_ENOMEM when it ran out of memory, else BOX_EIO.
 */
typedef struct gw_ca gw_ca;

#define GW_CA_HOST_MAX 253          // bytes of a host a leaf is minted for
#define GW_CA_CN_MAX 64             // bytes of a CN (X.520 ub-common-name)
#define GW_CA_CACHE_DEFAULT 256     // hosts whose server contexts are kept
#define GW_CA_CACHE_MAX 1024        // the largest cache gw_ca_new_opts takes
#define GW_CA_LIFETIME (30 * 86400) // seconds the CA is valid from now
#define GW_CA_LEAF_LIFETIME (7 * 86400) // seconds a leaf is valid from now
#define GW_CA_BACKDATE 3600 // seconds both start before now (clock skew)

typedef struct gw_ca_opts {
    size_t co_cache_max; // 1..GW_CA_CACHE_MAX; 0: GW_CA_CACHE_DEFAULT
    long co_lifetime;    // CA seconds from now, 1..GW_CA_LIFETIME; 0: that
} gw_ca_opts;

/* A fresh CA with the default options. On BOX_OK *out is the caller's, who
 * frees it with gw_ca_free. */
box_err gw_ca_new(gw_ca **out, char **err) BOX_WARN_UNUSED;
/* The same with options (a smaller cache or a shorter CA life, for tests);
 * an option out of its range is BOX_EINVAL. */
box_err gw_ca_new_opts(const gw_ca_opts *opts, gw_ca **out,
                       char **err) BOX_WARN_UNUSED;
/* Frees the CA, its keys and its cache; contexts callers still hold stay
 * valid (each holds its own references). NULL is a no-op. */
void gw_ca_free(gw_ca *ca);

/*
 * Writes the CA certificate, and nothing else, as PEM to path: a temporary
 * file next to it, fsync, rename over path, so a reader sees the whole old
 * file or the whole new one. Mode 0644 whatever the umask. The directory
 * must exist (BOX_ENOENT otherwise); BOX_EINVAL for an empty path,
 * BOX_EIO when a write, sync or rename fails. On failure no temporary
 * file is left, and a file already at path is untouched unless only the
 * last step, syncing the directory after the rename, failed.
 */
box_err gw_ca_write_cert(const gw_ca *ca, const char *path,
                         char **err) BOX_WARN_UNUSED;
/* The CA certificate as PEM: on BOX_OK *pem (NUL-terminated, *len bytes
 * before the NUL) is the caller's, freed with box_free. BOX_ENOMEM. */
box_err gw_ca_cert_pem(const gw_ca *ca, char **pem,
                       size_t *len) BOX_WARN_UNUSED;

/*
 * A TLS server context for host: a leaf for host (subjectAltName DNS:host,
 * or IP:host for an IPv4 or IPv6 literal) signed by the CA, presented with
 * the CA after it; TLS 1.2 at least; ALPN "http/1.1" only (a client that
 * offers ALPN without it fails the handshake). host is canonical (see
 * gw_addr.h: lowercase, no trailing dot, IPv6 without brackets); a host
 * that is NULL or empty, over GW_CA_HOST_MAX bytes, with a byte outside
 * [a-z0-9.-_:], or with ':' and not an IPv6 address is BOX_EINVAL.
 *
 * Contexts are cached per host (least recently used evicted past the
 * cache's size); on BOX_OK *out holds a reference the caller frees with
 * SSL_CTX_free. Safe to call from several threads.
 */
box_err gw_ca_server_ctx(gw_ca *ca, const char *host, SSL_CTX **out,
                         char **err) BOX_WARN_UNUSED;
/* How many hosts the cache holds now (for tests and stats). */
size_t gw_ca_cache_len(gw_ca *ca);

#endif
