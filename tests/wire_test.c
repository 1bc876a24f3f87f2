/* SPDX-License-Identifier: Apache-2.0 */
/* Hostile wire against the real services (issue 17, items 1 and 8):
 * messages nested past any sane depth to run/box.sock, the PDP and the
 * control sockets; connections that say nothing, or a byte at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_control.h"
#include "box_frame.h"
#include "box_proc.h"
#include "box_testutil.h"
#include "box_req.h"
#include "box_rpc.h"
#include "box_svc.h"
#include "box_wire.h"

/*
 * One box for the whole file, laid out as box run lays it out: bin/sh (the
 * alias image), run/box.sock (box-shell), run/pdp.sock (box-pdp, permitting
 * everything), and the control sockets of box-shell and box-gateway. The
 * dir is the workspace too.
 */
#define START_MS 60000 // a loaded machine can be slow to start a service
#define RUN_MS 60000
#define PERMIT_ALL "permit(principal, action, resource);\n"
// The broker's deadline for an Open, then a Call, and for each frame
// (shellsvc/broker.c), and what a loaded machine may add to it.
#define OPENING_MS 5000
#define MARGIN_MS 3000
// A control socket's transport drops bigger messages (box_control.c).
#define CONTROL_TRANSPORT_MAX (BOX_CONTROL_MSG_MAX * 4)

typedef struct wire_box {
    char wb_dir[64];
    char wb_pdp[128];
    char wb_pub[128];
    char wb_shell_ctl[128];
    char wb_gw_ctl[128];
    box_proc wb_pdp_proc;
    box_proc wb_shell;
    box_proc wb_gw;
} wire_box;

/* Nesting depths sent to every socket: shallow, at the limit, one past
 * it, and the depths that crashed the services (10,000 and more), up to
 * ~400 KB of frame, within the 1 MiB cap. */
static const unsigned depths[] = {
    10, BOX_WIRE_DEPTH_MAX, BOX_WIRE_DEPTH_MAX + 1, 3000, 10000, 100000};
#define NDEPTHS (sizeof depths / sizeof depths[0])

/* ------------------------------------------------------------------ */
/* The box                                                             */
/* ------------------------------------------------------------------ */

/* bin/sh: a real copy of the alias image, mode 0500. */
static void
install_alias(const wire_box *b)
{
    char src[PATH_MAX], dst[PATH_MAX];
    box_proc_bin(src, sizeof src, "box-alias");
    snprintf(dst, sizeof dst, "%s/bin/sh", b->wb_dir);
    box_test_copy(src, dst, 0500);
}

static int
sock_connect(const wire_box *b)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s/run/box.sock", b->wb_dir);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* One socket for every try (box_health_probe): a fresh REQ socket per
 * try leaves timed-out ones whose close can hang in nng 1.5.2, and this
 * wait once ran out that way on a loaded CI machine. */
static void
wait_control(const char *url)
{
    uint64_t deadline = box_svc_now_ms() + START_MS;
    box_health_probe *p = NULL;
    assert_int_equal(box_health_probe_open(url, false, 1000, &p), BOX_OK);
    while (box_svc_now_ms() < deadline) {
        Box__HealthResponse *h = NULL;
        if (box_health_probe_ask(p, &h) == BOX_OK) {
            box__health_response__free_unpacked(h, NULL);
            box_health_probe_close(p);
            return;
        }
        box_test_sleep_ms(20);
    }
    box_health_probe_close(p);
    fail_msg("no health answer on %s", url);
}

static int
group_setup(void **state)
{
    wire_box *b = box_calloc(1, sizeof *b);
    assert_non_null(b);
    snprintf(b->wb_dir, sizeof b->wb_dir, "/tmp/box-wire-XXXXXX");
    assert_non_null(mkdtemp(b->wb_dir));
    char p[PATH_MAX], bin[PATH_MAX], log[PATH_MAX];
    snprintf(p, sizeof p, "%s/bin", b->wb_dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/run", b->wb_dir);
    assert_int_equal(mkdir(p, 0700), 0);
    install_alias(b);
    snprintf(b->wb_pdp, sizeof b->wb_pdp, "ipc://%s/run/pdp.sock", b->wb_dir);
    snprintf(b->wb_pub, sizeof b->wb_pub, "ipc://%s/run/pdp-epoch.sock",
             b->wb_dir);
    snprintf(b->wb_shell_ctl, sizeof b->wb_shell_ctl,
             "ipc://%s/run/shell-ctl.sock", b->wb_dir);
    snprintf(b->wb_gw_ctl, sizeof b->wb_gw_ctl, "ipc://%s/run/gw-ctl.sock",
             b->wb_dir);

    snprintf(p, sizeof p, "%s/policy.dw", b->wb_dir);
    snprintf(log, sizeof log, "%s/records.jsonl", b->wb_dir);
    box_test_write(p, PERMIT_ALL, sizeof PERMIT_ALL - 1, 0600);
    box_proc_bin(bin, sizeof bin, "box-pdp");
    char *pdp_argv[] = {bin,       "--listen", b->wb_pdp, "--epoch-pub",
                        b->wb_pub, "--policy", p,         "--log",
                        log,       NULL};
    assert_true(box_proc_start(&b->wb_pdp_proc, pdp_argv, NULL));
    Box__HealthResponse *h = box_wait_pdp(b->wb_pdp, START_MS);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);

    box_proc_bin(bin, sizeof bin, "box-shell");
    char *sh_argv[] = {bin,       "--box-dir",   b->wb_dir,       "--pdp",
                       b->wb_pdp, "--epoch-pub", b->wb_pub,       "--workspace",
                       b->wb_dir, "--control",   b->wb_shell_ctl, NULL};
    assert_true(box_proc_start(&b->wb_shell, sh_argv, NULL));
    wait_control(b->wb_shell_ctl);

    box_proc_bin(bin, sizeof bin, "box-gateway");
    char *gw_argv[] = {bin,         "--pdp",      b->wb_pdp,
                       "--control", b->wb_gw_ctl, NULL};
    assert_true(box_proc_start(&b->wb_gw, gw_argv, NULL));
    wait_control(b->wb_gw_ctl);
    *state = b;
    return 0;
}

/* SIGTERM; a service that crashed or hung shows here too. */
static void
stop(box_proc *p, const char *name)
{
    assert_int_equal(kill(p->bp_pid, SIGTERM), 0);
    box_proc_result r;
    box_proc_finish(p, 15000, &r);
    if (r.pr_timeout || r.pr_status != 0)
        print_error("%s: status %d err [%.400s]\n", name, r.pr_status,
                    r.pr_err);
    assert_false(r.pr_timeout);
    assert_int_equal(r.pr_status, 0);
    box_proc_result_free(&r);
}

static int
group_teardown(void **state)
{
    wire_box *b = *state;
    if (b == NULL)
        return 0; // the setup failed before it had a box to stop
    stop(&b->wb_gw, "box-gateway");
    stop(&b->wb_shell, "box-shell");
    stop(&b->wb_pdp_proc, "box-pdp");
    if (strncmp(b->wb_dir, "/tmp/box-wire-", 14) == 0) {
        char *argv[] = {"/bin/rm", "-rf", b->wb_dir, NULL};
        box_proc_result r;
        box_proc_run(argv, 10000, &r);
        box_proc_result_free(&r);
    }
    box_free(b);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Frames by hand                                                      */
/* ------------------------------------------------------------------ */

static void
send_frame(int fd, const Box__AliasFrame *f)
{
    box_err rv = box_frame_write(fd, f, BOX_FRAME_MAX, 5000);
    // A broker that refused already may have hung up; its answer stays.
    assert_true(rv == BOX_OK || rv == BOX_ECLOSED);
}

static void
send_open(int fd)
{
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Open o = BOX__OPEN__INIT;
    Box__OpenShell sh = BOX__OPEN_SHELL__INIT;
    o.version = BOX_ALIAS_PROTOCOL_VERSION;
    o.mode_case = BOX__OPEN__MODE_SHELL;
    o.shell = &sh;
    f.program = 1;
    f.body_case = BOX__ALIAS_FRAME__BODY_OPEN;
    f.open = &o;
    send_frame(fd, &f);
}

static void
send_call(int fd, const char *src)
{
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Call c = BOX__CALL__INIT;
    c.source = (char *)src;
    f.program = 1;
    f.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    f.call = &c;
    send_frame(fd, &f);
}

/* The next frame is Denied{kind, reason}, then the broker hangs up. */
static void
expect_denied(int fd, Box__DeniedKind kind, const char *reason)
{
    Box__AliasFrame *f = NULL;
    assert_int_equal(box_frame_read(fd, BOX_FRAME_MAX, RUN_MS,
                                    BOX_FRAMES_TO_ALIAS, &f, NULL),
                     BOX_OK);
    assert_int_equal(f->body_case, BOX__ALIAS_FRAME__BODY_DENIED);
    if (f->denied->kind != kind || strcmp(f->denied->reason, reason) != 0)
        fail_msg("denied %d [%s], want %d [%s]", f->denied->kind,
                 f->denied->reason, kind, reason);
    box__alias_frame__free_unpacked(f, NULL);
    assert_int_equal(box_frame_read(fd, BOX_FRAME_MAX, RUN_MS,
                                    BOX_FRAMES_TO_ALIAS, &f, NULL),
                     BOX_ECLOSED);
}

/* The box still serves: the real alias runs a real call. */
static void
expect_serving(const wire_box *b)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/bin/sh", b->wb_dir);
    char *argv[] = {path, "-c", "echo still serving", NULL};
    box_proc_result r;
    box_proc_run(argv, RUN_MS, &r);
    if (r.pr_status != 0)
        print_error("sh -c: status %d err [%.300s]\n", r.pr_status, r.pr_err);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "still serving\n");
    box_proc_result_free(&r);
}

/* ------------------------------------------------------------------ */
/* Item 1: nesting                                                     */
/* ------------------------------------------------------------------ */

/* AliasFrame{decide{input = Value nested}} straight to run/box.sock, as
 * the first frame, after the Open, and during a call: refused for its kind
 * before its body is decoded, at every depth, and the broker serves on. */
static void
test_alias_socket_nested(void **state)
{
    wire_box *b = *state;
    static const char refused[] = "the alias may not send a decide frame";
    for (size_t i = 0; i < NDEPTHS; i++) {
        size_t n;
        uint8_t *nested =
            box_req_nested(BOX__ALIAS_FRAME__BODY_DECIDE, depths[i], &n);
        assert_non_null(nested);
        assert_true(n <= BOX_FRAME_MAX);
        for (int when = 0; when < 3; when++) {
            int fd = sock_connect(b);
            assert_true(fd >= 0);
            if (when >= 1)
                send_open(fd);
            if (when == 2)
                send_call(fd, "sleep 5");
            box_err rv = box_frame_write_bytes(fd, nested, n, 5000);
            assert_true(rv == BOX_OK || rv == BOX_ECLOSED);
            expect_denied(fd, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                          refused);
            close(fd);
        }
        box_free(nested);
        expect_serving(b);
    }
}

/* Nesting the scan does not walk: a chain 100,000 deep inside an unknown
 * field of the Open is bytes to protobuf-c too, and the call runs. */
static void
test_alias_socket_unknown_field(void **state)
{
    wire_box *b = *state;
    size_t n;
    uint8_t *inner = box_req_nested(BOX__ALIAS_FRAME__BODY_DECIDE, 100000, &n);
    assert_non_null(inner);
    // protobuf-c keeps a length-prefixed unknown field with its prefix.
    uint8_t *data = box_alloc(n + 10);
    assert_non_null(data);
    size_t k = 0;
    for (uint64_t x = n; k == 0 || x != 0; x >>= 7)
        data[k++] = (uint8_t)((x & 0x7f) | (x >> 7 ? 0x80 : 0));
    memcpy(data + k, inner, n);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Open o = BOX__OPEN__INIT;
    Box__OpenShell sh = BOX__OPEN_SHELL__INIT;
    ProtobufCMessageUnknownField u = {.tag = 100, // field number
                                      .wire_type =
                                          PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
                                      .len = k + n,
                                      .data = data};
    o.version = BOX_ALIAS_PROTOCOL_VERSION;
    o.mode_case = BOX__OPEN__MODE_SHELL;
    o.shell = &sh;
    f.program = 1;
    f.body_case = BOX__ALIAS_FRAME__BODY_OPEN;
    f.open = &o;
    f.base.n_unknown_fields = 1;
    f.base.unknown_fields = &u;
    int fd = sock_connect(b);
    assert_true(fd >= 0);
    send_frame(fd, &f);
    send_call(fd, "echo past the bytes");
    Box__AliasFrame *g = NULL;
    assert_int_equal(box_frame_read(fd, BOX_FRAME_MAX, RUN_MS,
                                    BOX_FRAMES_TO_ALIAS, &g, NULL),
                     BOX_OK);
    if (g->body_case == BOX__ALIAS_FRAME__BODY_DENIED)
        fail_msg("denied: %s", g->denied->reason);
    assert_int_equal(g->body_case, BOX__ALIAS_FRAME__BODY_OUTPUT);
    assert_int_equal(g->output->data.len, 15);
    assert_memory_equal(g->output->data.data, "past the bytes\n", 15);
    box__alias_frame__free_unpacked(g, NULL);
    assert_int_equal(box_frame_read(fd, BOX_FRAME_MAX, RUN_MS,
                                    BOX_FRAMES_TO_ALIAS, &g, NULL),
                     BOX_OK);
    assert_int_equal(g->body_case, BOX__ALIAS_FRAME__BODY_EXIT);
    assert_int_equal(g->exit->status, 0);
    box__alias_frame__free_unpacked(g, NULL);
    close(fd);
    box_free(data);
    box_free(inner);
}

/* PdpRequest{decide{input = Value nested}} to the PDP: up to the limit it
 * decodes and is decided (a deny: the PDP takes values 32 deep), past it
 * ErrorReply{ERROR_MALFORMED} naming the limit; health answers after each. */
static void
test_pdp_nested(void **state)
{
    wire_box *b = *state;
    box_rpc_client *c = NULL;
    assert_int_equal(box_rpc_client_open(b->wb_pdp, 30000, &c), BOX_OK);
    for (size_t i = 0; i < NDEPTHS; i++) {
        size_t n;
        uint8_t *nested =
            box_req_nested(BOX__PDP_REQUEST__BODY_DECIDE, depths[i], &n);
        assert_non_null(nested);
        ProtobufCMessage *m = NULL;
        assert_int_equal(
            box_rpc_call_raw(c, nested, n, &box__pdp_response__descriptor, &m),
            BOX_OK);
        Box__PdpResponse *r = (Box__PdpResponse *)m;
        if (depths[i] <= BOX_WIRE_DEPTH_MAX) {
            assert_int_equal(r->body_case, BOX__PDP_RESPONSE__BODY_DECIDE);
            assert_int_not_equal(r->decide->verdict,
                                 BOX__VERDICT__VERDICT_PERMIT);
        } else {
            assert_int_equal(r->body_case, BOX__PDP_RESPONSE__BODY_ERROR);
            assert_int_equal(r->error->code, BOX__ERROR_CODE__ERROR_MALFORMED);
            assert_string_equal(r->error->message,
                                "request nests messages deeper than "
                                "128");
        }
        box__pdp_response__free_unpacked(r, NULL);
        box_free(nested);

        Box__HealthResponse *h = NULL;
        assert_int_equal(box_pdp_health(b->wb_pdp, 30000, &h), BOX_OK);
        assert_string_equal(h->service, "box-pdp");
        box__health_response__free_unpacked(h, NULL);
    }
    box_rpc_client_close(c);
}

/*
 * The same bytes to each control socket (box-shell's and box-gateway's).
 * There they read as ControlRequest{health{unknown field}}: the chain is
 * in a field HealthRequest does not have, bytes to the scan and to
 * protobuf-c alike, so health is answered at every depth. The same bytes
 * cut short are ErrorReply{ERROR_MALFORMED}; past 64 KiB, ERROR_TOO_LARGE;
 * past the transport's limit nng drops them (services_test covers that).
 * Health answers after each.
 */
static void
test_control_nested(void **state)
{
    wire_box *b = *state;
    const char *urls[] = {b->wb_shell_ctl, b->wb_gw_ctl};
    const char *names[] = {"box-shell", "box-gateway"};
    for (size_t s = 0; s < 2; s++) {
        box_rpc_client *c = NULL;
        assert_int_equal(box_rpc_client_open(urls[s], 30000, &c), BOX_OK);
        for (size_t i = 0; i < NDEPTHS; i++) {
            size_t n;
            uint8_t *nested = box_req_nested(BOX__CONTROL_REQUEST__BODY_HEALTH,
                                             depths[i], &n);
            assert_non_null(nested);
            if (n > CONTROL_TRANSPORT_MAX) { // dropped by nng, not answered
                box_free(nested);
                continue;
            }
            for (int cut = 0; cut < 2; cut++) {
                ProtobufCMessage *m = NULL;
                assert_int_equal(
                    box_rpc_call_raw(c, nested, cut ? n - 1 : n,
                                     &box__control_response__descriptor, &m),
                    BOX_OK);
                Box__ControlResponse *r = (Box__ControlResponse *)m;
                if (n > BOX_CONTROL_MSG_MAX) { // its own limit comes first
                    assert_int_equal(r->body_case,
                                     BOX__CONTROL_RESPONSE__BODY_ERROR);
                    assert_int_equal(r->error->code,
                                     BOX__ERROR_CODE__ERROR_TOO_LARGE);
                } else if (cut) {
                    assert_int_equal(r->body_case,
                                     BOX__CONTROL_RESPONSE__BODY_ERROR);
                    assert_int_equal(r->error->code,
                                     BOX__ERROR_CODE__ERROR_MALFORMED);
                } else {
                    assert_int_equal(r->body_case,
                                     BOX__CONTROL_RESPONSE__BODY_HEALTH);
                    assert_string_equal(r->health->service, names[s]);
                }
                box__control_response__free_unpacked(r, NULL);
            }
            box_free(nested);
            Box__HealthResponse *h = NULL;
            assert_int_equal(box_control_health(urls[s], 30000, &h), BOX_OK);
            box__health_response__free_unpacked(h, NULL);
        }
        box_rpc_client_close(c);
    }
}

/* ------------------------------------------------------------------ */
/* Item 8: silent and dribbling connections                            */
/* ------------------------------------------------------------------ */

#define IDLE_CONNECTIONS 70

/*
 * 70 connections that send nothing: 64 take every slot (the other 6 are
 * refused flow_control), so a real call is refused at first; within the
 * opening deadline (+ a margin) each silent one gets denied{timeout} and
 * its slot back, and a real call succeeds.
 */
static void
test_idle_connections_freed(void **state)
{
    wire_box *b = *state;
    int held[IDLE_CONNECTIONS];
    uint64_t t0 = box_svc_now_ms();
    for (int i = 0; i < IDLE_CONNECTIONS; i++) {
        held[i] = sock_connect(b);
        assert_true(held[i] >= 0);
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/bin/sh", b->wb_dir);
    char *argv[] = {path, "-c", "echo through", NULL};
    int tries = 0;
    for (;; tries++) {
        box_proc_result r;
        box_proc_run(argv, RUN_MS, &r);
        bool ok = r.pr_status == 0 && strcmp(r.pr_out, "through\n") == 0;
        if (!ok)
            assert_string_equal(r.pr_err,
                                "strands-box: the box broker is already "
                                "serving 64 connections; retry shortly\n");
        box_proc_result_free(&r);
        if (ok)
            break;
        assert_true(box_svc_now_ms() - t0 < OPENING_MS + MARGIN_MS);
        box_test_sleep_ms(100);
    }
    uint64_t took = box_svc_now_ms() - t0;
    print_message("a real call went through after %llu ms (%d refused)\n",
                  (unsigned long long)took, tries);
    assert_true(tries > 0); // the silent ones did hold every slot
    assert_true(took < OPENING_MS + MARGIN_MS);

    int timed_out = 0, flow = 0;
    for (int i = 0; i < IDLE_CONNECTIONS; i++) {
        Box__AliasFrame *f = NULL;
        assert_int_equal(box_frame_read(held[i], BOX_FRAME_MAX, RUN_MS,
                                        BOX_FRAMES_TO_ALIAS, &f, NULL),
                         BOX_OK);
        assert_int_equal(f->body_case, BOX__ALIAS_FRAME__BODY_DENIED);
        if (f->denied->kind == BOX__DENIED_KIND__DENIED_TIMEOUT) {
            assert_string_equal(f->denied->reason,
                                "the alias sent no open frame within 5 s");
            timed_out++;
        } else {
            assert_int_equal(f->denied->kind,
                             BOX__DENIED_KIND__DENIED_FLOW_CONTROL);
            flow++;
        }
        box__alias_frame__free_unpacked(f, NULL);
        close(held[i]);
    }
    assert_int_equal(timed_out, BOX_MAX_CONNECTIONS);
    assert_int_equal(flow, IDLE_CONNECTIONS - BOX_MAX_CONNECTIONS);
}

/* An Open, then nothing: the Call has the same deadline. */
static void
test_open_then_silence(void **state)
{
    wire_box *b = *state;
    int fd = sock_connect(b);
    assert_true(fd >= 0);
    send_open(fd);
    uint64_t t0 = box_svc_now_ms();
    expect_denied(fd, BOX__DENIED_KIND__DENIED_TIMEOUT,
                  "the alias sent no call frame within 5 s");
    uint64_t took = box_svc_now_ms() - t0;
    assert_true(took >= OPENING_MS - 500 && took < OPENING_MS + MARGIN_MS);
    close(fd);
}

/* Sends one byte of p every second (or until the broker hangs up) on a
 * child process, so the test reads the answer meanwhile. */
static pid_t
dribble(int fd, const uint8_t *p, size_t n)
{
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0) {
        for (size_t i = 0; i < n; i++) {
            if (send(fd, p + i, 1, MSG_NOSIGNAL) != 1)
                _exit(0);
            sleep(1);
        }
        _exit(0);
    }
    return kid;
}

/*
 * A byte a second, as the first frame and as a frame during a call: each
 * gap is well inside 5 s, but the frame is cut 5 s after it began (before,
 * each read waited 5 s afresh and the slot was held for good).
 */
static void
test_dribbling_frames_cut(void **state)
{
    wire_box *b = *state;
    // A frame announced as 64 bytes, of which 10 ever come.
    static const uint8_t slow[] = {0,    0,    0,    64,   0x08, 0x01, 0x08,
                                   0x01, 0x08, 0x01, 0x08, 0x01, 0x08, 0x01};
    for (int during_call = 0; during_call < 2; during_call++) {
        int fd = sock_connect(b);
        assert_true(fd >= 0);
        if (during_call) {
            send_open(fd);
            send_call(fd, "sleep 20");
        }
        uint64_t t0 = box_svc_now_ms();
        pid_t kid = dribble(fd, slow, sizeof slow);
        expect_denied(fd, BOX__DENIED_KIND__DENIED_TIMEOUT,
                      "the alias did not finish a frame within 5 s");
        uint64_t took = box_svc_now_ms() - t0;
        print_message("dribbling frame cut after %llu ms\n",
                      (unsigned long long)took);
        assert_true(took >= OPENING_MS - 1500 && took < OPENING_MS + MARGIN_MS);
        close(fd);
        kill(kid, SIGKILL);
        assert_int_equal(waitpid(kid, NULL, 0), kid);
    }
    expect_serving(b);
}

int
main(void)
{
    sigset_t s;
    box_svc_block_signals(&s); // SIGPIPE must not kill the test
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alias_socket_nested),
        cmocka_unit_test(test_alias_socket_unknown_field),
        cmocka_unit_test(test_pdp_nested),
        cmocka_unit_test(test_control_nested),
        cmocka_unit_test(test_idle_connections_freed),
        cmocka_unit_test(test_open_then_silence),
        cmocka_unit_test(test_dribbling_frames_cut),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
