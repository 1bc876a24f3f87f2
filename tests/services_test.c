/* SPDX-License-Identifier: Apache-2.0 */
/* Every binary: --help, --version, bad flags; every service: health over
 * nng, bad and oversized requests, SIGTERM drains and exits 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_control.h"
#include "box_proc.h"
#include "box_rpc.h"
#include "box_svc.h"
#include "box_wire.h"

/* One row per program. */
static const struct {
    const char *name;
    const char *usage_word; // must appear in --help
} programs[] = {
    {"box", "usage: box"},
    {"box-pdp", "usage: box-pdp"},
    {"box-shell", "usage: box-shell"},
    {"box-gateway", "usage: box-gateway"},
    {"box-alias", "usage:"},
};

static void
test_help_and_version(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        char bin[4096];
        box_proc_bin(bin, sizeof bin, programs[i].name);
        box_proc_result r;

        char *help[] = {bin, "--help", NULL};
        box_proc_run(help, 5000, &r);
        assert_int_equal(r.pr_status, 0);
        assert_non_null(strstr(r.pr_out, programs[i].usage_word));
        box_proc_result_free(&r);

        char *ver[] = {bin, "--version", NULL};
        box_proc_run(ver, 5000, &r);
        assert_int_equal(r.pr_status, 0);
        char want[128];
        snprintf(want, sizeof want, "%s %s\n",
                 strcmp(programs[i].name, "box-alias") == 0 ? "box-alias"
                                                            : programs[i].name,
                 BOX_VERSION);
        assert_string_equal(r.pr_out, want);
        box_proc_result_free(&r);
    }
}

static void
test_bad_flags_refused(void **state)
{
    (void)state;
    const char *svcs[] = {"box-pdp", "box-shell", "box-gateway"};
    for (size_t i = 0; i < 3; i++) {
        char bin[4096];
        box_proc_bin(bin, sizeof bin, svcs[i]);
        char *argv[] = {bin, "--no-such-flag", NULL};
        box_proc_result r;
        box_proc_run(argv, 5000, &r);
        assert_int_equal(r.pr_status, 2);
        assert_non_null(strstr(r.pr_err, "usage:"));
        box_proc_result_free(&r);
    }
    char bin[4096];
    box_proc_bin(bin, sizeof bin, "box");
    char *argv[] = {bin, "frobnicate", NULL};
    box_proc_result r;
    box_proc_run(argv, 5000, &r);
    assert_int_equal(r.pr_status, 2);
    assert_non_null(strstr(r.pr_err, "unknown command 'frobnicate'"));
    box_proc_result_free(&r);
}

static void
test_alias_own_name_refused(void **state)
{
    (void)state;
    char bin[4096];
    box_proc_bin(bin, sizeof bin, "box-alias");
    char *argv[] = {bin, "-c", "true", NULL};
    box_proc_result r;
    box_proc_run(argv, 5000, &r);
    assert_int_equal(r.pr_status, 125);
    assert_string_equal(r.pr_err,
                        "strands-box-sock-alias: strands-box-sock-alias is not "
                        "an alias name; the trusted strands-box run process "
                        "serves broker requests\n");
    box_proc_result_free(&r);
}

/* Asks for health until it answers, for up to 60 s (a loaded CI machine
 * can be slow to start a service), on one socket for every try as box run
 * does: a fresh REQ per try leaves timed-out sockets whose close can hang
 * in nng 1.5.2 (see box_wait_pdp), and this wait ran out once under load. */
static Box__HealthResponse *
wait_health(const char *url, bool pdp)
{
    uint64_t deadline = box_svc_now_ms() + 60000;
    box_health_probe *p = NULL;
    Box__HealthResponse *h = NULL;
    if (box_health_probe_open(url, pdp, 1000, &p) != BOX_OK)
        return NULL;
    while (box_svc_now_ms() < deadline) {
        if (box_health_probe_ask(p, &h) == BOX_OK)
            break;
        h = NULL;
        usleep(20000);
    }
    box_health_probe_close(p);
    return h;
}

/* Starts a service, checks health, sends SIGTERM, expects exit 0. */
static void
service_lifecycle(const char *name, const char *flag, bool pdp)
{
    char bin[4096], url[256];
    box_proc_bin(bin, sizeof bin, name);
    snprintf(url, sizeof url, "ipc:///tmp/box-svc-test-%d-%s.sock",
             (int)getpid(), name);
    // The gateway needs a PDP address; none answers there, which is fine
    // for health (its decisions would all be refusals).
    char *argv[] = {bin, (char *)flag, url, "--pdp", "ipc:///nonexistent", NULL};
    if (strcmp(name, "box-gateway") != 0)
        argv[3] = NULL;
    box_proc p;
    assert_true(box_proc_start(&p, argv, NULL));
    Box__HealthResponse *h = wait_health(url, pdp);
    assert_non_null(h);
    assert_string_equal(h->service, name);
    assert_string_equal(h->version, BOX_VERSION);
    assert_true(h->ready);
    assert_int_equal(h->pid, p.bp_pid);
    box__health_response__free_unpacked(h, NULL);

    assert_int_equal(kill(p.bp_pid, SIGTERM), 0);
    box_proc_result r;
    box_proc_finish(&p, 5000, &r);
    assert_false(r.pr_timeout);
    assert_int_equal(r.pr_status, 0);
    assert_non_null(strstr(r.pr_err, "msg=\"stopped\""));
    box_proc_result_free(&r);
}

static void
test_services_health_and_sigterm(void **state)
{
    (void)state;
    service_lifecycle("box-pdp", "--listen", true);
    service_lifecycle("box-shell", "--control", false);
    service_lifecycle("box-gateway", "--control", false);
}

static Box__PdpResponse *
raw_call(box_rpc_client *c, const void *p, size_t n)
{
    ProtobufCMessage *m = NULL;
    box_err rv = box_rpc_call_raw(c, p, n, &box__pdp_response__descriptor, &m);
    assert_int_equal(rv, BOX_OK);
    return (Box__PdpResponse *)m;
}

/*
 * Connects to an nng IPC listener at path as a REQ peer and announces one
 * message of len bytes (nng's IPC framing: the 8-byte SP header, then a
 * 0x01 byte and a 64-bit big-endian length before each message). True when
 * the server hangs up before taking it all, as it must past its limit.
 */
static bool
raw_oversized(const char *path, uint64_t len)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return false;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        return false;
    const uint8_t sp[8] = {0, 'S', 'P', 0, 0x00, 0x30, 0, 0}; // REQ
    uint8_t peer[8];
    if (send(fd, sp, sizeof sp, MSG_NOSIGNAL) != (ssize_t)sizeof sp ||
        recv(fd, peer, sizeof peer, MSG_WAITALL) != (ssize_t)sizeof peer) {
        close(fd);
        return false;
    }
    uint8_t hdr[9] = {0x01};
    for (int i = 0; i < 8; i++)
        hdr[1 + i] = (uint8_t)(len >> (56 - 8 * i));
    bool hung_up = send(fd, hdr, sizeof hdr, MSG_NOSIGNAL) < 0;
    static const uint8_t zeros[65536];
    for (uint64_t sent = 0; !hung_up && sent < len; sent += sizeof zeros)
        hung_up = send(fd, zeros, sizeof zeros, MSG_NOSIGNAL) < 0;
    if (!hung_up) {
        // All of it went into the socket buffers: the server must still
        // close rather than answer.
        char b;
        hung_up = recv(fd, &b, 1, 0) <= 0;
    }
    close(fd);
    return hung_up;
}

static void
test_pdp_bad_requests_answered(void **state)
{
    (void)state;
    char bin[4096], url[256];
    box_proc_bin(bin, sizeof bin, "box-pdp");
    snprintf(url, sizeof url, "ipc:///tmp/box-svc-test-%d-bad.sock",
             (int)getpid());
    char *argv[] = {bin, "--listen", url, NULL};
    box_proc p;
    assert_true(box_proc_start(&p, argv, NULL));
    Box__HealthResponse *h = wait_health(url, true);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);

    box_rpc_client *c;
    assert_int_equal(box_rpc_client_open(url, 3000, &c), BOX_OK);
    const uint8_t junk[] = {0x0f, 0xff, 0x01};
    Box__PdpResponse *r = raw_call(c, junk, sizeof junk);
    assert_int_equal(r->body_case, BOX__PDP_RESPONSE__BODY_ERROR);
    assert_int_equal(r->error->code, BOX__ERROR_CODE__ERROR_MALFORMED);
    box__pdp_response__free_unpacked(r, NULL);

    size_t big = BOX_PDP_MSG_MAX + 10;
    uint8_t *blob = box_calloc(1, big);
    r = raw_call(c, blob, big);
    assert_int_equal(r->body_case, BOX__PDP_RESPONSE__BODY_ERROR);
    assert_int_equal(r->error->code, BOX__ERROR_CODE__ERROR_TOO_LARGE);
    box__pdp_response__free_unpacked(r, NULL);
    box_free(blob);

    // A valid request cut short is malformed too.
    Box__PdpRequest req = BOX__PDP_REQUEST__INIT;
    Box__DecisionRequest dr = BOX__DECISION_REQUEST__INIT;
    dr.action = "shell:exec";
    dr.resource = "a-resource-long-enough-to-cut";
    req.body_case = BOX__PDP_REQUEST__BODY_DECIDE;
    req.decide = &dr;
    size_t plen = box__pdp_request__get_packed_size(&req);
    uint8_t *packed = box_alloc(plen);
    box__pdp_request__pack(&req, packed);
    r = raw_call(c, packed, plen / 2);
    assert_int_equal(r->body_case, BOX__PDP_RESPONSE__BODY_ERROR);
    assert_int_equal(r->error->code, BOX__ERROR_CODE__ERROR_MALFORMED);
    box__pdp_response__free_unpacked(r, NULL);
    box_free(packed);

    // Past the transport's limit the connection is dropped, and others
    // are served. The oversized client speaks nng's IPC framing by hand
    // (as a hostile peer would), not through nng: a client socket whose
    // request times out mid-send can hang in nng 1.5.2's close (upstream
    // #1543) and stall this process's own later connections.
    assert_true(raw_oversized(url + strlen("ipc://"), 5u * 1024 * 1024));

    // Still serving.
    h = wait_health(url, true);
    if (h == NULL) {
        kill(p.bp_pid, SIGTERM);
        box_proc_result res;
        box_proc_finish(&p, 5000, &res);
        print_error("box-pdp stopped answering: status %d, stderr:\n%s\n",
                    res.pr_status, res.pr_err);
        box_proc_result_free(&res);
        fail();
    }
    box__health_response__free_unpacked(h, NULL);
    box_rpc_client_close(c);

    kill(p.bp_pid, SIGTERM);
    box_proc_result res;
    box_proc_finish(&p, 5000, &res);
    assert_int_equal(res.pr_status, 0);
    box_proc_result_free(&res);
}

int
main(void)
{
    sigset_t s;
    box_svc_block_signals(&s); // SIGPIPE must not kill the test
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_bad_flags_refused),
        cmocka_unit_test(test_alias_own_name_refused),
        cmocka_unit_test(test_services_health_and_sigterm),
        cmocka_unit_test(test_pdp_bad_requests_answered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
