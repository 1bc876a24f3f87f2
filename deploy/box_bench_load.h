/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench gateway`'s load generator: client threads sending `GET /x`
 * to the bench's origin, directly or through a proxy, each answer's
 * latency recorded. */
#ifndef BOX_BENCH_LOAD_H
#define BOX_BENCH_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <openssl/types.h> // SSL_CTX

#define BL_CLIENTS_MAX 1024
#define BL_WHY_MAX 200

/*
 * What one column measures. Plain (bt_tls NULL): every client keeps one
 * connection alive and sends `GET /x` on it again and again, in absolute
 * form through a proxy, in origin form to the origin (a connection the
 * server closes is opened again, inside the next request's time). TLS:
 * every request is a new connection, through a proxy a CONNECT to the
 * origin first, then a full handshake (no resumption) verifying the
 * server's certificate for 127.0.0.1 against bt_tls's trust, then one
 * `GET /x` with `Connection: close`.
 */
typedef struct bl_target {
    unsigned bt_port;    // what the clients connect to: the proxy or origin
    bool bt_proxy;       // bt_port is a proxy in front of the origin
    const char *bt_auth; // a Proxy-Authorization value, or NULL
    unsigned bt_origin;  // the origin's port, named in every request
    SSL_CTX *bt_tls;     // NULL: plain keep-alive; else as above (borrowed)
    size_t bt_body;      // the body length every answer must have
} bl_target;

typedef struct bl_opts {
    unsigned lo_clients; // 1..BL_CLIENTS_MAX threads
    double lo_warmup;    // seconds run before counting
    double lo_seconds;   // seconds counted
} bl_opts;

/* A column's figures: answers counted while measuring (a 200 with the
 * whole body of the right length), their rate and latency percentiles
 * (send to the answer's last byte, a TLS request's from its connect). */
typedef struct bl_result {
    uint64_t lr_ok;
    uint64_t lr_failed;   // requests that failed while measuring
    uint64_t lr_connects; // connections opened while measuring
    double lr_seconds;    // the measured window
    double lr_rps;
    double lr_p50_us, lr_p90_us, lr_p99_us;
    char lr_why[BL_WHY_MAX]; // the first failure, "" when none
} bl_result;

/* Runs the load. False when it could not (no memory, no thread) or not
 * one answer was counted; lr_why says why. Failed requests alone leave
 * it true: the caller reads lr_failed. */
bool bl_run(const bl_target *t, const bl_opts *o, bl_result *r);

#endif
