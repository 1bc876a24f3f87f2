/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench gateway`'s origin: a small keep-alive HTTP/1.1 server on
 * loopback, plain or TLS, answering every request with one fixed body. */
#ifndef BOX_BENCH_ORIGIN_H
#define BOX_BENCH_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <openssl/types.h> // SSL_CTX

#define BO_BODY_LEN 64   // bytes of every answer's body
#define BO_THREADS_MAX 8 // event-loop threads one origin may run
#define BO_HEAD_MAX 8192 // a request head longer than this closes it

/*
 * An origin: a listening socket on 127.0.0.1 (a free port) and threads
 * each running an epoll loop over the connections it accepted. Every
 * request head (a request has no body) gets `200 OK` with BO_BODY_LEN
 * bytes and Content-Length; a request carrying `Connection: close` is
 * answered, then its connection closed. It never checks the method or
 * the path: the bench's clients send only `GET /x`.
 */
typedef struct bo_origin bo_origin;

/* Starts an origin with nthreads (1..BO_THREADS_MAX) loops, serving TLS
 * with tls (the origin takes a reference of its own) or plain HTTP when
 * tls is NULL. On true *out is the caller's (bo_stop); on false err (n
 * bytes) says why. */
bool bo_start(SSL_CTX *tls, unsigned nthreads, bo_origin **out, char *err,
              size_t n);
/* The port it listens on. */
unsigned bo_port(const bo_origin *o);
/* Requests answered so far. */
uint64_t bo_requests(const bo_origin *o);
/* Stops its threads, closes every connection and frees it. NULL: no-op. */
void bo_stop(bo_origin *o);

#endif
