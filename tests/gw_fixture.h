/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: a real box-pdp and box-gateway beside test origin servers,
 * and a plain client of the gateway (gateway_test, gateway_load_test). */
#ifndef GW_FIXTURE_H
#define GW_FIXTURE_H

#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_proc.h"

#define GWT_START_MS 60000
#define GWT_IO_MS 20000
#define GWT_BIG (3u << 20)   // /big: past the gateway's pause mark, many times
#define GWT_HUGE (64u << 20) // /huge: far past any buffer the gateway has
#define GWT_ORIGIN_THREADS_MAX 32
#define GWT_ORIGIN_LIVE_MAX 2048 // connections served at once

/*
 * A test origin: threads accepting on one listening socket, and a thread
 * per connection serving it until it closes (a gateway keeps idle
 * connections for reuse, as a real origin would see). Paths:
 *   /hello (and any other)  6 bytes, "hello\n", keep-alive
 *   /id/REST                "id REST\n": a body that names its request
 *   /chunked                a chunked answer, "hello, world"
 *   /big                    GWT_BIG bytes, 'a' + i % 26
 *   /huge                   GWT_HUGE bytes of gwt_pattern, made as sent
 *   /echo                   the body's length and the body (up to 1 MiB)
 *   /headers                the request head as the body, its first line
 *                           in x-seen
 *   /gzip                   an answer with content-encoding: gzip
 *   /sink                   any body, read as it comes (never held):
 *                           "sha256 HEX bytes N\n"
 *   /marker                 a response forging the gateway's marker
 *   /404                    404 "nope"
 *   /close                  no length: ends by closing
 */
typedef struct gwt_upstream {
    SSL_CTX *us_tls; // serve TLS with this, or plain when NULL
    int us_fd;
    unsigned us_port;
    unsigned us_nthreads;
    pthread_t us_threads[GWT_ORIGIN_THREADS_MAX];
    atomic_int us_accepted;
    atomic_int us_requests;
    char us_last_head[4096];
    pthread_mutex_t us_lock;
    /* The connections being served (us_lock): shut at the stop. */
    int us_live[GWT_ORIGIN_LIVE_MAX];
    unsigned us_nlive;
    bool us_stopping;
    pthread_cond_t us_gone;
} gwt_upstream;

/* One test's services, under a fresh /tmp/box-gw-XXXXXX. */
typedef struct gwt_fx {
    char dir[64];
    char policy[128], log[128], pdp_url[128], ctl_url[128], sock[128];
    char ca[128];    // the gateway's per-run CA certificate
    char token[128]; // its TCP listener's token
    char up_ca[128]; // the CA the TLS upstream's certificate chains to
    box_proc pdp, gw;
    unsigned gw_port;
    gwt_upstream us;  // plain HTTP
    gwt_upstream tus; // HTTPS, for tunnels
} gwt_fx;

/* cmocka setup: box-pdp running policy, both origins up (the plain one
 * with origin_threads threads, 1..GWT_ORIGIN_THREADS_MAX), no gateway yet.
 * *state is the gwt_fx. */
int gwt_setup(void **state, const char *policy, unsigned origin_threads);
/* cmocka teardown: the services stopped (each must exit 0), the origins
 * stopped, the directory gone. */
int gwt_teardown(void **state);

/* An origin on addr (an IPv4 loopback address), plain or TLS with tls
 * (taken), nthreads accepting threads; gwt_origin_stop ends it. */
void gwt_origin_start(gwt_upstream *us, const char *addr, SSL_CTX *tls,
                      unsigned nthreads);
void gwt_origin_stop(gwt_upstream *us);
/* A TLS server context for host (a DNS name or an IP literal) from a fresh
 * CA whose certificate is written to ca_file. */
SSL_CTX *gwt_origin_tls(const char *host, const char *ca_file);

/* Starts box-gateway with more options (extra: NULL-ended, at most
 * GWT_EXTRA_MAX; NULL: none) and the environment envp (NULL: the test's),
 * waits for its health and learns its TCP port. */
#define GWT_EXTRA_MAX 8
void gwt_start_gateway_argv(gwt_fx *f, const char *const *extra,
                            char *const envp[]);
/* Starts box-gateway with one more option (extra_flag NULL: none) and the
 * environment envp (NULL: the test's), waits for its health and learns
 * its TCP port. */
void gwt_start_gateway_env(gwt_fx *f, const char *extra_flag,
                           const char *extra_value, char *const envp[]);
void gwt_start_gateway(gwt_fx *f, const char *extra_flag,
                       const char *extra_value);
/* SIGTERM: a service drains and exits 0 (a sanitizer's report at exit
 * would make it otherwise, and show here). */
void gwt_stop_proc(box_proc *p);

/* A connection to the gateway's Unix socket (no token needed) or its TCP
 * listener (test_tcp_token), with a GWT_IO_MS receive timeout. */
int gwt_connect(const gwt_fx *f);
int gwt_connect_tcp(const gwt_fx *f);

void gwt_send_all(int fd, const void *p, size_t n);
/* The length of the first whole response in b[0..n) (content-length or
 * chunked framing), or 0 while it is incomplete; b must be
 * NUL-terminated at n. */
size_t gwt_response_len(const char *b, size_t n);
/* Reads one whole response (content-length, chunked, or to the close);
 * returns it (caller frees), or what came before the connection closed. */
char *gwt_read_response(int fd);
/* req on a fresh connection; the response (caller frees). */
char *gwt_exchange(const gwt_fx *f, const char *req);
/* GET http://host:<plain origin port>path with Connection: close. */
char *gwt_get(const gwt_fx *f, const char *host, const char *path);

void gwt_expect_prefix(const char *text, const char *prefix);
void gwt_expect_has(const char *text, const char *needle);

/* Byte i of a stream whose every position differs from its neighbours'
 * (a dropped, repeated or moved block shows), and n of them from off. */
unsigned char gwt_pattern(uint64_t i);
void gwt_pattern_fill(char *b, uint64_t off, size_t n);

#endif
