/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for `box bench gateway`'s origin and load generator: answers
 * counted only when whole and right, in each framing, refusals named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "box_alloc.h"
#include "box_bench_load.h"
#include "box_bench_origin.h"
#include "gw_ca.h"

static const bl_opts quick = {
    .lo_clients = 4, .lo_warmup = 0.05, .lo_seconds = 0.3};

/* A canned server: every request head on a connection gets ca_reply;
 * with ca_close the connection closes after it. One thread, one
 * connection at a time (the clients queue in the backlog). */
typedef struct canned {
    const char *ca_reply;
    bool ca_close;
    int ca_fd;
    unsigned ca_port;
    pthread_t ca_thread;
} canned;

static void *
canned_main(void *arg)
{
    canned *ca = arg;
    int fd;
    while ((fd = accept(ca->ca_fd, NULL, NULL)) >= 0) {
        char buf[4096];
        size_t len = 0;
        ssize_t r;
        while ((r = recv(fd, buf + len, sizeof buf - len - 1, 0)) > 0) {
            len += (size_t)r;
            buf[len] = '\0';
            char *end;
            while ((end = strstr(buf, "\r\n\r\n")) != NULL) {
                size_t hl = (size_t)(end - buf) + 4;
                memmove(buf, buf + hl, len - hl + 1);
                len -= hl;
                (void)!send(fd, ca->ca_reply, strlen(ca->ca_reply),
                            MSG_NOSIGNAL);
                if (ca->ca_close)
                    break;
            }
            if (ca->ca_close)
                break;
        }
        close(fd);
    }
    return NULL;
}

static void
canned_start(canned *ca, const char *reply, bool close_after)
{
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof in;
    ca->ca_reply = reply;
    ca->ca_close = close_after;
    ca->ca_fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_int_equal(bind(ca->ca_fd, (struct sockaddr *)&in, sizeof in), 0);
    assert_int_equal(listen(ca->ca_fd, 64), 0);
    assert_int_equal(getsockname(ca->ca_fd, (struct sockaddr *)&in, &len), 0);
    ca->ca_port = ntohs(in.sin_port);
    assert_int_equal(pthread_create(&ca->ca_thread, NULL, canned_main, ca), 0);
}

static void
canned_stop(canned *ca)
{
    shutdown(ca->ca_fd, SHUT_RDWR);
    close(ca->ca_fd);
    pthread_join(ca->ca_thread, NULL);
}

static bl_result
canned_run(const char *reply, bool close_after, bool *ok)
{
    canned ca;
    bl_result r;
    canned_start(&ca, reply, close_after);
    bl_target t = {
        .bt_port = ca.ca_port, .bt_origin = ca.ca_port, .bt_body = 10};
    *ok = bl_run(&t, &quick, &r);
    canned_stop(&ca);
    return r;
}

static void
test_plain_direct(void **state)
{
    (void)state;
    bo_origin *o = NULL;
    char err[200];
    bl_result r;
    assert_true(bo_start(NULL, 2, &o, err, sizeof err));
    bl_target t = {
        .bt_port = bo_port(o), .bt_origin = bo_port(o), .bt_body = BO_BODY_LEN};
    assert_true(bl_run(&t, &quick, &r));
    assert_true(r.lr_ok > 0);
    assert_int_equal(r.lr_failed, 0);
    assert_string_equal(r.lr_why, "");
    // Keep-alive: one connection per client while measuring, at most.
    assert_true(r.lr_connects <= quick.lo_clients);
    assert_true(bo_requests(o) >= r.lr_ok);
    assert_true(r.lr_p50_us <= r.lr_p90_us && r.lr_p90_us <= r.lr_p99_us);
    // The wrong length is no answer.
    t.bt_body = BO_BODY_LEN + 1;
    assert_false(bl_run(&t, &quick, &r));
    assert_int_equal(r.lr_ok, 0);
    assert_true(r.lr_failed > 0);
    assert_string_equal(r.lr_why, "a body of 64 bytes, not 65");
    bo_stop(o);
}

static SSL_CTX *
trusting(const char *pem)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    assert_non_null(ctx);
    assert_int_equal(SSL_CTX_load_verify_locations(ctx, pem, NULL), 1);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    return ctx;
}

static void
test_tls_direct(void **state)
{
    (void)state;
    char dir[] = "/tmp/box_bench_load_test.XXXXXX", pem[64], other[64];
    assert_non_null(mkdtemp(dir));
    snprintf(pem, sizeof pem, "%s/ca.pem", dir);
    snprintf(other, sizeof other, "%s/other.pem", dir);
    gw_ca *ca = NULL, *ca2 = NULL;
    char *e = NULL, err[200];
    SSL_CTX *srv = NULL;
    assert_int_equal(gw_ca_new(&ca, &e), BOX_OK);
    assert_int_equal(gw_ca_new(&ca2, &e), BOX_OK);
    assert_int_equal(gw_ca_write_cert(ca, pem, &e), BOX_OK);
    assert_int_equal(gw_ca_write_cert(ca2, other, &e), BOX_OK);
    assert_int_equal(gw_ca_server_ctx(ca, "127.0.0.1", &srv, &e), BOX_OK);
    bo_origin *o = NULL;
    assert_true(bo_start(srv, 2, &o, err, sizeof err));
    SSL_CTX_free(srv); // the origin holds its own reference

    SSL_CTX *good = trusting(pem), *bad = trusting(other);
    bl_target t = {.bt_port = bo_port(o),
                   .bt_origin = bo_port(o),
                   .bt_tls = good,
                   .bt_body = BO_BODY_LEN};
    bl_result r;
    assert_true(bl_run(&t, &quick, &r));
    assert_true(r.lr_ok > 0);
    assert_int_equal(r.lr_failed, 0);
    // A new connection per request.
    assert_true(r.lr_connects >= r.lr_ok);
    // A certificate from a CA not trusted: every request fails, named.
    t.bt_tls = bad;
    assert_false(bl_run(&t, &quick, &r));
    assert_true(r.lr_failed > 0);
    assert_non_null(strstr(r.lr_why, "TLS handshake: "));
    // (the origin sends its CA after the leaf: a self-signed one, untrusted)
    assert_string_equal(r.lr_why,
                        "TLS handshake: error:0A000086:SSL routines::"
                        "certificate verify failed (verify: self-signed "
                        "certificate in certificate chain)");

    SSL_CTX_free(good);
    SSL_CTX_free(bad);
    bo_stop(o);
    gw_ca_free(ca);
    gw_ca_free(ca2);
    unlink(pem);
    unlink(other);
    rmdir(dir);
}

/* Chunked, HTTP/1.0 to the close, and a refusal with its reason. */
static void
test_framings(void **state)
{
    (void)state;
    bool ok;
    bl_result r = canned_run("HTTP/1.1 200 OK\r\nTransfer-Encoding: "
                             "chunked\r\n\r\n4\r\nabcd\r\n6;x=y\r\nefghi\n"
                             "\r\n0\r\nTrailer: t\r\n\r\n",
                             false, &ok);
    assert_true(ok);
    assert_int_equal(r.lr_failed, 0);
    assert_true(r.lr_connects <= quick.lo_clients);

    r = canned_run("HTTP/1.0 200 OK\r\n\r\n0123456789", true, &ok);
    assert_true(ok);
    assert_int_equal(r.lr_failed, 0);
    assert_true(r.lr_connects >= r.lr_ok);

    r = canned_run("HTTP/1.1 403 Forbidden\r\nContent-Length: 23\r\n\r\n"
                   "policy denied this\nrest",
                   false, &ok);
    assert_false(ok);
    assert_string_equal(r.lr_why, "answered \"HTTP/1.1 403 Forbidden\": policy "
                                  "denied this");
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_direct),
        cmocka_unit_test(test_tls_direct),
        cmocka_unit_test(test_framings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
