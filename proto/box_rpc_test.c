/* SPDX-License-Identifier: Apache-2.0 */
/* box_rpc: round trips, deadlines, garbage, concurrency, stop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box.pb-c.h"
#include "box_rpc.h"

/* Answers Health with its own name; anything undecodable with an error. */
static void
echo_handler(void *arg, const void *req, size_t len, nng_msg *reply)
{
    const char *name = arg;
    Box__PdpRequest *r = box__pdp_request__unpack(NULL, len, req);
    Box__PdpResponse resp = BOX__PDP_RESPONSE__INIT;
    Box__HealthResponse h = BOX__HEALTH_RESPONSE__INIT;
    Box__ErrorReply e = BOX__ERROR_REPLY__INIT;
    if (r == NULL) {
        e.code = BOX__ERROR_CODE__ERROR_MALFORMED;
        e.message = "request did not decode";
        resp.body_case = BOX__PDP_RESPONSE__BODY_ERROR;
        resp.error = &e;
    } else {
        h.service = (char *)name;
        h.ready = 1;
        resp.body_case = BOX__PDP_RESPONSE__BODY_HEALTH;
        resp.health = &h;
    }
    assert_int_equal(box_rpc_msg_pack(reply, &resp.base), BOX_OK);
    if (r != NULL)
        box__pdp_request__free_unpacked(r, NULL);
}

static void
url_for(char *buf, size_t n, const char *tag)
{
    snprintf(buf, n, "ipc:///tmp/box-rpc-test-%d-%s.sock", (int)getpid(), tag);
}

static Box__PdpResponse *
health_call(box_rpc_client *c, box_err *rv)
{
    Box__PdpRequest req = BOX__PDP_REQUEST__INIT;
    Box__HealthRequest h = BOX__HEALTH_REQUEST__INIT;
    req.body_case = BOX__PDP_REQUEST__BODY_HEALTH;
    req.health = &h;
    ProtobufCMessage *resp = NULL;
    *rv = box_rpc_call(c, &req.base, &box__pdp_response__descriptor, &resp);
    return (Box__PdpResponse *)resp;
}

static void
test_round_trip(void **state)
{
    (void)state;
    char url[256];
    url_for(url, sizeof url, "rt");
    box_rpc_server *s;
    assert_int_equal(box_rpc_server_start(url, 4, 1 << 20, echo_handler,
                                          "svc", &s),
                     BOX_OK);
    box_rpc_client *c;
    assert_int_equal(box_rpc_client_open(url, 2000, &c), BOX_OK);
    box_err rv;
    Box__PdpResponse *r = health_call(c, &rv);
    assert_int_equal(rv, BOX_OK);
    assert_int_equal(r->body_case, BOX__PDP_RESPONSE__BODY_HEALTH);
    assert_string_equal(r->health->service, "svc");
    box__pdp_response__free_unpacked(r, NULL);

    // Garbage gets an error reply and the server keeps serving.
    const uint8_t junk[] = {0xff, 0xff, 0xff, 0x0f, 0x01};
    ProtobufCMessage *m = NULL;
    assert_int_equal(box_rpc_call_raw(c, junk, sizeof junk,
                                      &box__pdp_response__descriptor, &m),
                     BOX_OK);
    r = (Box__PdpResponse *)m;
    assert_int_equal(r->body_case, BOX__PDP_RESPONSE__BODY_ERROR);
    assert_int_equal(r->error->code, BOX__ERROR_CODE__ERROR_MALFORMED);
    box__pdp_response__free_unpacked(r, NULL);
    r = health_call(c, &rv);
    assert_int_equal(rv, BOX_OK);
    box__pdp_response__free_unpacked(r, NULL);

    box_rpc_client_close(c);
    box_rpc_server_stop(s);
}

static int64_t
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
test_no_server_times_out(void **state)
{
    (void)state;
    char url[256];
    url_for(url, sizeof url, "none");
    box_rpc_client *c;
    assert_int_equal(box_rpc_client_open(url, 300, &c), BOX_OK);
    int64_t t0 = now_ms();
    box_err rv;
    Box__PdpResponse *r = health_call(c, &rv);
    int64_t dt = now_ms() - t0;
    assert_null(r);
    assert_int_equal(rv, BOX_ETIMEDOUT);
    assert_true(dt >= 250 && dt < 3000); // room for a loaded machine
    box_rpc_client_close(c);
}

static void
test_server_stopped_times_out(void **state)
{
    (void)state;
    char url[256];
    url_for(url, sizeof url, "stop");
    box_rpc_server *s;
    assert_int_equal(box_rpc_server_start(url, 2, 1 << 20, echo_handler, "x",
                                          &s),
                     BOX_OK);
    box_rpc_client *c;
    assert_int_equal(box_rpc_client_open(url, 300, &c), BOX_OK);
    box_err rv;
    Box__PdpResponse *r = health_call(c, &rv);
    assert_int_equal(rv, BOX_OK);
    box__pdp_response__free_unpacked(r, NULL);
    box_rpc_server_stop(s);
    int64_t t0 = now_ms();
    r = health_call(c, &rv);
    assert_null(r);
    // Either the deadline passes or nng reports the pipe gone: both are
    // errors the caller must turn into a refusal, and both come in time.
    assert_true(rv == BOX_ETIMEDOUT || rv == BOX_ECLOSED);
    assert_true(now_ms() - t0 < 3000);
    box_rpc_client_close(c);
}

static void
test_second_listener_refused(void **state)
{
    (void)state;
    char url[256];
    url_for(url, sizeof url, "dup");
    box_rpc_server *s, *s2 = NULL;
    assert_int_equal(box_rpc_server_start(url, 1, 1 << 20, echo_handler, "a",
                                          &s),
                     BOX_OK);
    assert_int_not_equal(box_rpc_server_start(url, 1, 1 << 20, echo_handler,
                                              "b", &s2),
                         BOX_OK);
    box_rpc_server_stop(s);
}

typedef struct {
    box_rpc_client *c;
    int ok;
} worker_arg;

static void *
worker(void *p)
{
    worker_arg *a = p;
    for (int i = 0; i < 500; i++) {
        box_err rv;
        Box__PdpResponse *r = health_call(a->c, &rv);
        if (rv == BOX_OK && r->body_case == BOX__PDP_RESPONSE__BODY_HEALTH)
            a->ok++;
        if (r != NULL)
            box__pdp_response__free_unpacked(r, NULL);
    }
    return NULL;
}

static void
test_concurrent_callers(void **state)
{
    (void)state;
    char url[256];
    url_for(url, sizeof url, "conc");
    box_rpc_server *s;
    assert_int_equal(box_rpc_server_start(url, 8, 1 << 20, echo_handler, "c",
                                          &s),
                     BOX_OK);
    box_rpc_client *c;
    assert_int_equal(box_rpc_client_open(url, 5000, &c), BOX_OK);
    pthread_t th[8];
    worker_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (worker_arg){.c = c};
        pthread_create(&th[i], NULL, worker, &args[i]);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].ok, 500);
    }
    box_rpc_client_close(c);
    box_rpc_server_stop(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_no_server_times_out),
        cmocka_unit_test(test_server_stopped_times_out),
        cmocka_unit_test(test_second_listener_refused),
        cmocka_unit_test(test_concurrent_callers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
