/* SPDX-License-Identifier: Apache-2.0 */
/* box-gateway as a real process beside a real box-pdp: every connection and
 * request decided, permitted ones forwarded to a test upstream, refusals
 * and failures answered as box-spec §6 says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_buf.h"
#include "box_testutil.h"
#include "gw_fixture.h"

/* 127.0.0.1 may connect; GET anywhere but /secret*, and POST with at most
 * 10 bytes of body. */
static const char gt_policy[] =
    "@id(\"local\") permit (principal, action == Box::Action::\"net:connect\", "
    "resource) when { context.input.host == \"127.0.0.1\" };\n"
    "@id(\"reads\") permit (principal, action == Box::Action::\"http:request\", "
    "resource) when { context.input.method == \"GET\" || "
    "(context.input.method == \"POST\" && context.input.body_bytes <= 10) };\n"
    "@id(\"nosecret\") @description(\"No secrets.\") forbid (principal, action "
    "== Box::Action::\"http:request\", resource) when { context.input.path "
    "like \"/secret*\" };\n";

static int
setup(void **state)
{
    return gwt_setup(state, gt_policy, 1);
}

/* Services on gt_policy and the rules in extra. */
static int
setup_with(void **state, const char *extra)
{
    char policy[sizeof gt_policy + 512];
    snprintf(policy, sizeof policy, "%s%s", gt_policy, extra);
    return gwt_setup(state, policy, 1);
}

/* No request once one was answered 404: a rule on the ::response events
 * the gateway records. */
static int
setup_after_404(void **state)
{
    return setup_with(
        state, "@id(\"after404\") forbid (principal, action == "
               "Box::Action::\"http:request\", resource) when temporal { "
               "formerly within 1h (Box::Action::\"http:request\"::response{ "
               "output.status: 404 }) };\n");
}

/* No request once a connect to port 1 failed: a rule on the ::error
 * events of net:connect (which makes the decision job connect, so the
 * outcome is known before the request's next decision). */
static int
setup_after_connect_error(void **state)
{
    return setup_with(
        state, "@id(\"afterfail\") forbid (principal, action == "
               "Box::Action::\"http:request\", resource) when temporal { "
               "formerly within 1h (Box::Action::\"net:connect\"::error{ "
               "input.port: 1 }) };\n");
}

/* Names of the test's hosts file: two.test (nothing listens on its first
 * address) may connect anywhere; bad.test's first address is refused. */
static int
setup_names(void **state)
{
    return setup_with(
        state, "@id(\"names\") permit (principal, action == "
               "Box::Action::\"net:connect\", resource) when { "
               "context.input.host == \"two.test\" || context.input.host == "
               "\"bad.test\" };\n"
               "@id(\"not9\") forbid (principal, action == "
               "Box::Action::\"net:connect\", resource) when { "
               "context.input.host == \"bad.test\" && context.input has ip && "
               "context.input.ip == \"127.0.0.9\" };\n");
}

static int
teardown(void **state)
{
    return gwt_teardown(state);
}

/* ---- tests ---- */

static void
test_permitted_get(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    char *r = gwt_get(f, "127.0.0.1", "/hello");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    gwt_expect_has(r, "\r\nx-up: 1\r\n");
    gwt_expect_has(r, "\r\n\r\nhello\n");
    // Hop-by-hop fields are the gateway's, not upstream's.
    assert_null(strcasestr(r, "keep-alive: timeout"));
    box_free(r);
    // What upstream saw: the request without the proxy's own fields.
    pthread_mutex_lock(&f->us.us_lock);
    gwt_expect_prefix(f->us.us_last_head, "GET /hello HTTP/1.1\r\n");
    assert_null(strcasestr(f->us.us_last_head, "accept:"));
    pthread_mutex_unlock(&f->us.us_lock);
}

static void
test_refusals_marked(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    // http:request forbidden: the gate's prefix and the policy's text.
    char *r = gwt_get(f, "127.0.0.1", "/secret/key");
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    char want[256];
    snprintf(want, sizeof want,
             "\r\n\r\nhttp:request gate: policy denied this operation on "
             "'127.0.0.1:%u/secret/key' [policy: nosecret]: No secrets.\n",
             f->us.us_port);
    gwt_expect_has(r, want);
    box_free(r);
    // net:connect default-deny: no DNS, no socket, the bare decision.
    int before = atomic_load(&f->us.us_accepted);
    r = gwt_get(f, "localhost", "/hello");
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    snprintf(want, sizeof want,
             "\r\n\r\npolicy denied this operation on 'localhost:%u' "
             "[default-deny]: No permit policy matched this request.\n",
             f->us.us_port);
    gwt_expect_has(r, want);
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_accepted), before);
    // An upstream cannot forge the marker: its refusal arrives unmarked.
    r = gwt_get(f, "127.0.0.1", "/marker");
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\n");
    assert_null(strcasestr(r, "x-strands-box-egress"));
    gwt_expect_has(r, "\r\n\r\nforged");
    box_free(r);
}

static void
test_body_bytes_decided(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    char req[1024];
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nContent-Length: 10\r\nConnection: "
             "close\r\n\r\n0123456789",
             f->us.us_port, f->us.us_port);
    char *r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    gwt_expect_has(r, "\r\n\r\nbody 10: 0123456789");
    box_free(r);
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nContent-Length: 11\r\nConnection: "
             "close\r\n\r\n0123456789X",
             f->us.us_port, f->us.us_port);
    int before = atomic_load(&f->us.us_requests);
    r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    gwt_expect_has(r, "http:request gate: policy denied this operation on "
                  "'127.0.0.1:");
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_requests), before);

    // A GET with a body stays a GET (what was decided is what is sent).
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nContent-Length: 3\r\nConnection: "
             "close\r\n\r\nabc",
             f->us.us_port, f->us.us_port);
    r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    gwt_expect_has(r, "\r\n\r\nbody 3: abc");
    box_free(r);
    pthread_mutex_lock(&f->us.us_lock);
    gwt_expect_prefix(f->us.us_last_head, "GET /echo HTTP/1.1\r\n");
    pthread_mutex_unlock(&f->us.us_lock);
    before++;

    // A chunked body is decided on its decoded size and sent on with a
    // length.
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nTransfer-Encoding: chunked\r\nConnection: "
             "close\r\n\r\n4;x=y\r\n0123\r\n6\r\n456789\r\n0\r\n\r\n",
             f->us.us_port, f->us.us_port);
    r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    gwt_expect_has(r, "\r\n\r\nbody 10: 0123456789");
    box_free(r);
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nTransfer-Encoding: chunked\r\n\r\n"
             "b\r\n0123456789X\r\n0\r\n\r\n",
             f->us.us_port, f->us.us_port);
    r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\n");
    box_free(r);
    // Framing that is not one reading: refused, never forwarded.
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nTransfer-Encoding: chunked\r\n\r\n"
             "4\n0123\r\n0\r\n\r\n",
             f->us.us_port, f->us.us_port);
    r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 400 Bad Request\r\n");
    box_free(r);
    // A declared length past the gateway's limit: 413 before any of it.
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nContent-Length: 999999999999\r\n\r\n",
             f->us.us_port, f->us.us_port);
    r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 413 Content Too Large\r\n");
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_requests), before + 1);
}

static void
test_keep_alive_and_framing(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    int fd = gwt_connect(f);
    char req[512];
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:%u/hello HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\n\r\n",
             f->us.us_port, f->us.us_port);
    for (int i = 0; i < 3; i++) {
        gwt_send_all(fd, req, strlen(req));
        char *r = gwt_read_response(fd);
        gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
        gwt_expect_has(r, "\r\n\r\nhello\n");
        assert_null(strcasestr(r, "connection: close"));
        box_free(r);
    }
    // Chunked from upstream, chunked again to an HTTP/1.1 client.
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:%u/chunked HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\n\r\n",
             f->us.us_port, f->us.us_port);
    gwt_send_all(fd, req, strlen(req));
    char *r = gwt_read_response(fd);
    gwt_expect_has(r, "transfer-encoding: chunked\r\n");
    gwt_expect_has(r, "\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n");
    box_free(r);
    close(fd);
    // ... and ended by closing for an HTTP/1.0 client.
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:%u/chunked HTTP/1.0\r\n\r\n",
             f->us.us_port);
    r = gwt_exchange(f, req);
    gwt_expect_has(r, "connection: close\r\n");
    gwt_expect_has(r, "\r\n\r\nhello, world");
    assert_null(strcasestr(r, "transfer-encoding"));
    box_free(r);
}

static void
test_big_answer_intact(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    char *r = gwt_get(f, "127.0.0.1", "/big");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    const char *body = strstr(r, "\r\n\r\n") + 4;
    assert_int_equal(strlen(body), GWT_BIG);
    for (size_t i = 0; i < GWT_BIG; i += 4099)
        assert_int_equal(body[i], 'a' + i % 26);
    box_free(r);
}

static void
test_failures_unmarked(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    // Nothing listens there: 502, not a policy refusal.
    char req[512];
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n");
    char *r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 502 Bad Gateway\r\n");
    assert_null(strcasestr(r, "x-strands-box-egress"));
    gwt_expect_has(r, "\r\n\r\ncannot connect to 127.0.0.1:1: Connection refused\n");
    box_free(r);
    // Malformed heads: the parser's status and reason, then closed.
    r = gwt_exchange(f, "GET /relative HTTP/1.1\r\nHost: x\r\n\r\n");
    gwt_expect_prefix(r, "HTTP/1.1 400 Bad Request\r\n");
    gwt_expect_has(r, "connection: close\r\n");
    box_free(r);
    r = gwt_exchange(f, "BREW http://127.0.0.1/ HTTP/1.1\r\nHost: x\r\n\r\n");
    gwt_expect_prefix(r, "HTTP/1.1 501 Not Implemented\r\n");
    box_free(r);
}

static void
test_pdp_gone_refuses(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    gwt_stop_proc(&f->pdp);
    f->pdp.bp_pid = 0;
    int before = atomic_load(&f->us.us_accepted);
    char *r = gwt_get(f, "127.0.0.1", "/hello");
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    gwt_expect_has(r, "did not answer");
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_accepted), before);
}

static void
test_slow_and_full(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, "--client-timeout", "1500");
    // A head that never ends is answered 408 once its time is up.
    int fd = gwt_connect(f);
    gwt_send_all(fd, "GET http://127.0.0.1/ HTTP/1.1\r\n", 32);
    long long t0 = box_test_now_ms();
    char *r = gwt_read_response(fd);
    close(fd);
    gwt_expect_prefix(r, "HTTP/1.1 408 Request Timeout\r\n");
    assert_true(box_test_now_ms() - t0 < 10000);
    box_free(r);
    // A connection that sends nothing is closed.
    fd = gwt_connect(f);
    char b;
    assert_int_equal(recv(fd, &b, 1, 0), 0);
    close(fd);
}

/* The limit holds across the loops: whichever loop accepts a connection,
 * the ones past it are answered 503. */
static void
test_connection_limit(void **state)
{
    gwt_fx *f = *state;
    enum { MAX = 4 };
    static const char *const extra[] = {"--max-connections", "4", "--loops",
                                        "3", NULL};
    gwt_start_gateway_argv(f, extra, NULL);
    int held[MAX];
    for (int i = 0; i < MAX; i++)
        held[i] = gwt_connect(f);
    box_test_sleep_ms(200); // all accepted and held
    for (int i = 0; i < 2 * MAX; i++) {
        int c = gwt_connect(f);
        char *r = gwt_read_response(c);
        gwt_expect_prefix(r, "HTTP/1.1 503 Service Unavailable\r\n");
        box_free(r);
        close(c);
    }
    for (int i = 0; i < MAX; i++)
        close(held[i]);
    box_test_sleep_ms(200);
    for (int i = 0; i < MAX; i++) {
        char *r = gwt_get(f, "127.0.0.1", "/hello");
        gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
        box_free(r);
    }
}

/* The decision log: two net:connect decisions (before DNS and with the
 * address) and the http:request, with the resources §7 names. */
static void
test_decisions_logged(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    char *r = gwt_get(f, "127.0.0.1", "/hello");
    box_free(r);
    gwt_stop_proc(&f->gw);
    f->gw.bp_pid = 0;
    gwt_stop_proc(&f->pdp);
    f->pdp.bp_pid = 0;
    char *log = box_test_slurp(f->log);
    char want[128];
    snprintf(want, sizeof want, "\"127.0.0.1:%u\"", f->us.us_port);
    assert_true(box_test_count(log, want) >= 2); // net:connect twice
    snprintf(want, sizeof want, "\"127.0.0.1:%u/hello\"", f->us.us_port);
    assert_true(box_test_count(log, want) >= 1);
    // Each decision is a record and its span: the two net:connect ones
    // against the one http:request, in the same proportion.
    size_t nc = box_test_count(log, "\"stringValue\":\"net:connect\"");
    size_t hr = box_test_count(log, "\"stringValue\":\"http:request\"");
    assert_true(hr > 0);
    assert_int_equal(nc, 2 * hr);
    gwt_expect_has(log, "\"key\":\"server.address\",\"value\":{\"stringValue\":"
                    "\"127.0.0.1\"}");
    gwt_expect_has(log, "\"key\":\"http.request.method\",\"value\":{"
                    "\"stringValue\":\"GET\"}");
    box_free(log);
}

/* Each request is decided (both net:connect decisions and its
 * http:request), and still goes upstream on the connection an earlier
 * one to the same decided address left open: one accept for many. Kept
 * connections are a loop's own (its libcurl's), so one loop makes the
 * count exact. */
static void
test_upstream_reused(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, "--loops", "1");
    for (int i = 0; i < 5; i++) {
        char *r = gwt_get(f, "127.0.0.1", "/hello");
        gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
        gwt_expect_has(r, "\r\n\r\nhello\n");
        box_free(r);
    }
    assert_int_equal(atomic_load(&f->us.us_accepted), 1);
    // A refused request in between leaves the kept connection unused, and
    // the next permitted one takes it.
    char *r = gwt_get(f, "127.0.0.1", "/secret");
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\n");
    box_free(r);
    r = gwt_get(f, "127.0.0.1", "/hello");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_accepted), 1);
    assert_int_equal(atomic_load(&f->us.us_requests), 6);
    gwt_stop_proc(&f->gw);
    f->gw.bp_pid = 0;
    gwt_stop_proc(&f->pdp);
    f->pdp.bp_pid = 0;
    char *log = box_test_slurp(f->log);
    size_t nc = box_test_count(log, "\"stringValue\":\"net:connect\"");
    size_t hr = box_test_count(log, "\"stringValue\":\"http:request\"");
    assert_int_equal(hr, 7);
    assert_int_equal(nc, 2 * hr); // two net:connect decisions per request
    box_free(log);
}

/* A name's addresses are tried in order, each decided before it is tried:
 * the first that answers is used; a refused one refuses the request. */
static void
test_addresses_in_order(void **state)
{
    gwt_fx *f = *state;
    char hosts[160];
    snprintf(hosts, sizeof hosts, "%s/hosts", f->dir);
    static const char text[] = "127.0.0.9 two.test bad.test\n"
                               "127.0.0.1 two.test bad.test\n";
    box_test_write(hosts, text, sizeof text - 1, 0600);
    gwt_start_gateway(f, "--hosts-file", hosts);
    char req[512];
    snprintf(req, sizeof req,
             "GET http://two.test:%u/hello HTTP/1.1\r\nHost: two.test:%u\r\n"
             "\r\n",
             f->us.us_port, f->us.us_port);
    char *r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    gwt_expect_has(r, "\r\n\r\nhello\n");
    box_free(r);
    snprintf(req, sizeof req,
             "GET http://bad.test:%u/hello HTTP/1.1\r\nHost: bad.test:%u\r\n"
             "\r\n",
             f->us.us_port, f->us.us_port);
    r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    gwt_expect_has(r, "[policy: not9]");
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_requests), 1);
    gwt_stop_proc(&f->gw);
    f->gw.bp_pid = 0;
    gwt_stop_proc(&f->pdp);
    f->pdp.bp_pid = 0;
    char *log = box_test_slurp(f->log);
    // two.test: before DNS, 127.0.0.9 (no answer), 127.0.0.1; bad.test:
    // before DNS, 127.0.0.9 refused, and no other.
    size_t nc = box_test_count(log, "\"stringValue\":\"net:connect\"");
    assert_int_equal(nc, 5);
    assert_int_equal(box_test_count(log, "[policy: not9]"), 1);
    box_free(log);
}

/* The TCP listener serves only a holder of the token file: 407 (marked)
 * without it or with a wrong one, the request forwarded with it. */
static void
test_tcp_token(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    char *tok = box_test_slurp(f->token);
    assert_int_equal(strlen(tok), 65);
    assert_int_equal(tok[64], '\n');
    tok[64] = '\0';
    struct stat st;
    assert_int_equal(stat(f->token, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char cred[128];
    snprintf(cred, sizeof cred, "strands-box:%s", tok);
    unsigned char b64[200];
    EVP_EncodeBlock(b64, (const unsigned char *)cred, (int)strlen(cred));
    const char *auths[] = {NULL, "Basic c3RyYW5kcy1ib3g6d3Jvbmc=", (char *)b64};
    for (int i = 0; i < 3; i++) {
        char req[512];
        if (auths[i] == NULL)
            snprintf(req, sizeof req,
                     "GET http://127.0.0.1:%u/hello HTTP/1.1\r\nHost: "
                     "127.0.0.1:%u\r\nConnection: close\r\n\r\n",
                     f->us.us_port, f->us.us_port);
        else
            snprintf(req, sizeof req,
                     "GET http://127.0.0.1:%u/hello HTTP/1.1\r\nHost: "
                     "127.0.0.1:%u\r\nProxy-Authorization: %s%s\r\n"
                     "Connection: close\r\n\r\n",
                     f->us.us_port, f->us.us_port, i == 2 ? "Basic " : "",
                     auths[i]);
        int fd = gwt_connect_tcp(f);
        gwt_send_all(fd, req, strlen(req));
        char *r = gwt_read_response(fd);
        close(fd);
        if (i < 2) {
            gwt_expect_prefix(r, "HTTP/1.1 407 Proxy Authentication Required\r\n"
                             "x-strands-box-egress: refused\r\n");
            gwt_expect_has(r, "proxy-authenticate: Basic realm=\"strands-box\"");
            gwt_expect_has(r, i == 0 ? "\r\n\r\nproxy token required\n"
                                 : "\r\n\r\ninvalid proxy token\n");
        } else {
            gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
            gwt_expect_has(r, "\r\n\r\nhello\n");
        }
        box_free(r);
    }
    // The token is the proxy's, never upstream's.
    pthread_mutex_lock(&f->us.us_lock);
    assert_null(strcasestr(f->us.us_last_head, "proxy-authorization"));
    pthread_mutex_unlock(&f->us.us_lock);
    box_free(tok);
}

/* CONNECT to the TLS upstream; the client side of the tunnel after the
 * gateway's 200, verifying the gateway's leaf for 127.0.0.1 against its
 * CA. NULL when the gateway answered other than 200 (*head says what). */
static SSL *
tunnel_open(const gwt_fx *f, int *fdp, char **head)
{
    char req[256];
    snprintf(req, sizeof req,
             "CONNECT 127.0.0.1:%u HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
             f->tus.us_port, f->tus.us_port);
    int fd = gwt_connect(f);
    gwt_send_all(fd, req, strlen(req));
    // Byte by byte: nothing of the TLS that follows may be read here.
    box_buf b;
    box_buf_init(&b, 65536);
    while (b.b_len < 4 || strcmp(b.b_data + b.b_len - 4, "\r\n\r\n") != 0) {
        char ch;
        if (recv(fd, &ch, 1, 0) != 1)
            break;
        assert_int_equal(box_buf_putc(&b, ch), BOX_OK);
    }
    if (strncmp(b.b_data ? b.b_data : "", "HTTP/1.1 200 ", 13) != 0) {
        // The rest of a refusal: its body.
        char *rest = gwt_read_response(fd);
        assert_int_equal(box_buf_puts(&b, rest), BOX_OK);
        box_free(rest);
        *head = box_buf_take(&b);
        close(fd);
        return NULL;
    }
    *head = box_buf_take(&b);
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    assert_int_equal(SSL_CTX_load_verify_locations(ctx, f->ca, NULL), 1);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL *ssl = SSL_new(ctx);
    SSL_CTX_free(ctx);
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), "127.0.0.1");
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) != 1)
        fail_msg("TLS with the gateway failed: verify result %ld",
                 SSL_get_verify_result(ssl));
    *fdp = fd;
    return ssl;
}

static char *
tunnel_exchange(SSL *ssl, const char *req)
{
    assert_int_equal(SSL_write(ssl, req, (int)strlen(req)), (int)strlen(req));
    box_buf b;
    box_buf_init(&b, 1u << 20);
    char buf[16384];
    int r;
    while ((r = SSL_read(ssl, buf, sizeof buf)) > 0)
        assert_int_equal(box_buf_append(&b, buf, (size_t)r), BOX_OK);
    ERR_clear_error();
    return box_buf_take(&b);
}

static void
tunnel_close(SSL *ssl, int fd)
{
    SSL_free(ssl);
    close(fd);
}

static void
test_tunnel_intercepted(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, "--upstream-ca", f->up_ca);
    int fd;
    char *head = NULL;
    SSL *ssl = tunnel_open(f, &fd, &head);
    assert_non_null(ssl);
    assert_string_equal(head, "HTTP/1.1 200 Connection established\r\n\r\n");
    box_free(head);
    char req[256];
    snprintf(req, sizeof req,
             "GET /hello HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
             f->tus.us_port);
    char *r = tunnel_exchange(ssl, req);
    tunnel_close(ssl, fd);
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    gwt_expect_has(r, "connection: close\r\n"); // one request per tunnel
    gwt_expect_has(r, "\r\n\r\nhello\n");
    box_free(r);
    pthread_mutex_lock(&f->tus.us_lock);
    gwt_expect_prefix(f->tus.us_last_head, "GET /hello HTTP/1.1\r\n");
    pthread_mutex_unlock(&f->tus.us_lock);

    // Inside the tunnel, policy still decides the request.
    ssl = tunnel_open(f, &fd, &head);
    box_free(head);
    snprintf(req, sizeof req,
             "GET /secret HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
             f->tus.us_port);
    r = tunnel_exchange(ssl, req);
    tunnel_close(ssl, fd);
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    gwt_expect_has(r, "\r\n\r\nhttp:request gate: policy denied this operation");
    box_free(r);

    // The inner request must name the CONNECT host.
    ssl = tunnel_open(f, &fd, &head);
    box_free(head);
    r = tunnel_exchange(ssl, "GET / HTTP/1.1\r\nHost: other.example\r\n\r\n");
    tunnel_close(ssl, fd);
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    gwt_expect_has(r, "\r\n\r\nrequest authority rejected\n");
    box_free(r);
}

static char *tunnel_get(const gwt_fx *f, const char *target,
                        const char *fields);

/* Tunnels one after another to the same upstream: the first connects
 * before its 200 and its connection is kept; the next ones (upstream
 * answered moments ago) use that kept connection, with no connect of their
 * own: one accept, one upstream handshake, for all. Each is decided. (One
 * loop: kept connections are a loop's own.) */
static void
test_tunnel_reuses_upstream(void **state)
{
    gwt_fx *f = *state;
    const char *const extra[] = {"--upstream-ca", f->up_ca, "--loops", "1",
                                 NULL};
    gwt_start_gateway_argv(f, extra, NULL);
    for (int i = 0; i < 4; i++) {
        char *r = tunnel_get(f, "/hello", "");
        gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
        gwt_expect_has(r, "\r\n\r\nhello\n");
        box_free(r);
    }
    assert_int_equal(atomic_load(&f->tus.us_accepted), 1);
    assert_int_equal(atomic_load(&f->tus.us_requests), 4);
    gwt_stop_proc(&f->gw);
    f->gw.bp_pid = 0;
    gwt_stop_proc(&f->pdp);
    f->pdp.bp_pid = 0;
    char *log = box_test_slurp(f->log);
    assert_int_equal(box_test_count(log, "\"stringValue\":\"http:request\""),
                     4);
    assert_int_equal(box_test_count(log, "\"stringValue\":\"net:connect\""),
                     8);
    box_free(log);
}

static void
test_tunnel_refusals(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL); // upstream TLS against the system roots
    // A denied CONNECT is refused before the 200, in plaintext.
    char *r = gwt_exchange(f, "CONNECT localhost:443 HTTP/1.1\r\nHost: "
                          "localhost:443\r\n\r\n");
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    gwt_expect_has(r, "\r\n\r\npolicy denied this operation on "
                  "'localhost:443' [default-deny]");
    box_free(r);
    // An upstream whose certificate the system roots do not vouch for:
    // 502, the verification failure named, nothing forwarded.
    int before = atomic_load(&f->tus.us_requests);
    int fd;
    char *head = NULL;
    SSL *ssl = tunnel_open(f, &fd, &head);
    assert_non_null(ssl);
    box_free(head);
    char req[256];
    snprintf(req, sizeof req,
             "GET /hello HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
             f->tus.us_port);
    r = tunnel_exchange(ssl, req);
    tunnel_close(ssl, fd);
    gwt_expect_prefix(r, "HTTP/1.1 502 Bad Gateway\r\n");
    assert_null(strcasestr(r, "x-strands-box-egress"));
    gwt_expect_has(r, "certificate");
    box_free(r);
    assert_int_equal(atomic_load(&f->tus.us_requests), before);
}

/* The gateway records each exchange's outcome: a rule reading
 * ::response{output.status} sees it. */
/* An outcome goes to the PDP off the loop: it lands in a moment, and
 * then a GET of /hello is refused by the rule marked mark. */
static void
expect_refused_soon(gwt_fx *f, const char *mark)
{
    bool refused = false;
    for (int i = 0; i < 50 && !refused; i++) {
        char *r = gwt_get(f, "127.0.0.1", "/hello");
        refused = strstr(r, mark) != NULL;
        if (!refused)
            gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
        box_free(r);
        if (!refused)
            box_test_sleep_ms(100);
    }
    assert_true(refused);
}

static void
test_outcomes_recorded(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    char *r = gwt_get(f, "127.0.0.1", "/hello");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    box_free(r);
    r = gwt_get(f, "127.0.0.1", "/404");
    gwt_expect_prefix(r, "HTTP/1.1 404 Not Found\r\n");
    box_free(r);
    expect_refused_soon(f, "[policy: after404]");
}

/* A connect that failed is recorded as net:connect::error (policy reads
 * it, so the decision job made the connect), one that opened is not. */
static void
test_connect_outcome_recorded(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    char *r = gwt_get(f, "127.0.0.1", "/hello");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    box_free(r);
    r = gwt_get(f, "127.0.0.1", "/hello");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    box_free(r);
    r = gwt_exchange(f, "GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: "
                        "127.0.0.1:1\r\n\r\n");
    gwt_expect_prefix(r, "HTTP/1.1 502 Bad Gateway\r\n");
    box_free(r);
    expect_refused_soon(f, "[policy: afterfail]");
}

/* ---- credentials (box-spec §6) ---- */

#define GT_SECRET "gt-real-Secret-0042" // unreserved: its %-form is itself
#define GT_PH                                                                 \
    "strands_box_0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab" \
    "cdef"

/* A memory file holding the routes box run would hand over, inherited by
 * the gateway (no close-on-exec); its descriptor number. */
static int
routes_file(unsigned port)
{
    char dh[64], di[64], dz[64];
    snprintf(dh, sizeof dh, "127.0.0.1:%u/headers", port);
    snprintf(di, sizeof di, "127.0.0.1:%u/id", port);
    snprintf(dz, sizeof dz, "127.0.0.1:%u/gzip", port);
    char *dests_h[] = {dh, dz}, *dests_q[] = {di};
    char *names[] = {(char *)"GT_TOKEN"}, *phs[] = {(char *)GT_PH};
    Box__EgressRoute h = BOX__EGRESS_ROUTE__INIT, q = BOX__EGRESS_ROUTE__INIT;
    h.name = (char *)"api";
    h.n_destinations = 2;
    h.destinations = dests_h;
    h.placement = BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_HEADER;
    h.header = (char *)"Authorization";
    h.prefix = (char *)"Bearer ";
    q.name = (char *)"maps";
    q.n_destinations = 1;
    q.destinations = dests_q;
    q.placement = BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_QUERY_PARAM;
    q.param = (char *)"key";
    Box__EgressRoute *all[] = {&h, &q};
    for (int i = 0; i < 2; i++) {
        all[i]->n_env_names = all[i]->n_phantoms = 1;
        all[i]->env_names = names;
        all[i]->phantoms = phs;
        all[i]->secret.data = (uint8_t *)GT_SECRET;
        all[i]->secret.len = strlen(GT_SECRET);
    }
    Box__EgressRoutes m = BOX__EGRESS_ROUTES__INIT;
    m.n_routes = 2;
    m.routes = all;
    uint8_t buf[4096];
    size_t n = box__egress_routes__pack(&m, buf);
    int fd = memfd_create("gt-routes", 0);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, buf, n), (ssize_t)n);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    return fd;
}

/* One request inside a fresh tunnel to the TLS origin; the answer. */
static char *
tunnel_get(const gwt_fx *f, const char *target, const char *fields)
{
    int fd;
    char *head = NULL;
    SSL *ssl = tunnel_open(f, &fd, &head);
    assert_non_null(ssl);
    box_free(head);
    char req[1024];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n%s\r\n",
             target, f->tus.us_port, fields);
    char *r = tunnel_exchange(ssl, req);
    tunnel_close(ssl, fd);
    return r;
}

static void
expect_origin_head_has(gwt_fx *f, const char *needle, bool want)
{
    pthread_mutex_lock(&f->tus.us_lock);
    bool has = strstr(f->tus.us_last_head, needle) != NULL;
    char head[sizeof f->tus.us_last_head];
    memcpy(head, f->tus.us_last_head, sizeof head);
    pthread_mutex_unlock(&f->tus.us_lock);
    if (has != want)
        fail_msg("the origin's last head %s '%s':\n%s",
                 want ? "lacks" : "has", needle, head);
}

/*
 * A request to a declared destination reaches the origin with the real
 * secret where its phantom was (a header, a query parameter), asks for
 * identity encoding, and comes back with every copy of the secret
 * replaced; without the phantom, in plaintext, or answered compressed, it
 * is refused (marked) and the secret never reaches the client.
 */
static void
test_credentials(void **state)
{
    gwt_fx *f = *state;
    int rfd = routes_file(f->tus.us_port);
    char fdtext[16];
    snprintf(fdtext, sizeof fdtext, "%d", rfd);
    const char *extra[] = {"--upstream-ca", f->up_ca, "--routes-fd", fdtext,
                           NULL};
    gwt_start_gateway_argv(f, extra, NULL);
    close(rfd);

    // header: swapped, echoed back scrubbed (head field and body)
    char *r = tunnel_get(f, "/headers",
                         "Authorization: Bearer " GT_PH "\r\n"
                         "Accept-Encoding: gzip, br\r\n");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    gwt_expect_has(r, "Authorization: Bearer [REDACTED]\r\n");
    assert_null(strstr(r, GT_SECRET));
    assert_null(strstr(r, GT_PH)); // the origin never saw it to echo
    box_free(r);
    expect_origin_head_has(f, "Authorization: Bearer " GT_SECRET "\r\n", true);
    expect_origin_head_has(f, "Accept-Encoding: identity\r\n", true);
    expect_origin_head_has(f, "gzip", false);

    // query_param: swapped in place; the request line echoed (x-seen and
    // body) comes back scrubbed
    r = tunnel_get(f, "/id/x?a=1&key=" GT_PH "&b=2", "");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    // Re-framed (the scrubbed body's length is not upstream's): the
    // scrubber held back what might have begun a copy, in a chunk of its own.
    gwt_expect_has(r, "transfer-encoding: chunked\r\n");
    gwt_expect_has(r, "id x?a=1&key=[REDACTED]");
    gwt_expect_has(r, "&b=2\n\r\n0\r\n\r\n");
    assert_null(strstr(r, GT_SECRET));
    box_free(r);
    expect_origin_head_has(f, "GET /id/x?a=1&key=" GT_SECRET "&b=2 ", true);

    // refused before policy and before any connection to the origin
    int before = atomic_load(&f->tus.us_requests);
    r = tunnel_get(f, "/headers", "");
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                         "refused\r\n");
    gwt_expect_has(r, "\r\n\r\nblocked by egress control\n");
    box_free(r);
    r = tunnel_get(f, "/headers", "Authorization: Bearer not-the-phantom\r\n");
    gwt_expect_has(r, "\r\n\r\nblocked by egress control\n");
    box_free(r);
    r = tunnel_get(f, "/id/x?key=other", "");
    gwt_expect_has(r, "\r\n\r\nblocked by egress control\n");
    box_free(r);
    char req[512];
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:%u/headers HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nAuthorization: Bearer " GT_PH "\r\n"
             "Connection: close\r\n\r\n",
             f->tus.us_port, f->tus.us_port);
    r = gwt_exchange(f, req);
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                         "refused\r\n");
    gwt_expect_has(r, "\r\n\r\ncredential not permitted on a plaintext "
                      "request\n");
    box_free(r);
    assert_int_equal(atomic_load(&f->tus.us_requests), before);

    // a compressed answer to a credentialed request is not passed on
    r = tunnel_get(f, "/gzip", "Authorization: Bearer " GT_PH "\r\n");
    gwt_expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                         "refused\r\n");
    gwt_expect_has(r, "\r\n\r\nresponse blocked by egress control\n");
    assert_null(strstr(r, "zzzz"));
    box_free(r);

    // another destination on the same origin: sent as it is, phantom and
    // all (worthless there)
    r = tunnel_get(f, "/echo", "Authorization: Bearer " GT_PH "\r\n");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    box_free(r);
    expect_origin_head_has(f, "Authorization: Bearer " GT_PH "\r\n", true);

    // the decision log holds neither the secret nor the phantom's swap
    char *log = box_test_slurp_or_empty(f->log);
    assert_null(strstr(log, GT_SECRET));
    box_free(log);
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_permitted_get, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals_marked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_body_bytes_decided, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_keep_alive_and_framing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_big_answer_intact, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_failures_unmarked, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pdp_gone_refuses, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_slow_and_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connection_limit, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_connect_outcome_recorded,
                                        setup_after_connect_error, teardown),
        cmocka_unit_test_setup_teardown(test_upstream_reused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_addresses_in_order, setup_names,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_decisions_logged, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_tunnel_intercepted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_tunnel_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tunnel_reuses_upstream, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_tcp_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_credentials, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outcomes_recorded,
                                        setup_after_404, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
