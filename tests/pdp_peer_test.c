/* SPDX-License-Identifier: Apache-2.0 */
/* box-pdp serves only its own box: a process that is not its parent, its
 * shell or its gateway is refused before it carries a request. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_pdp_client.h"
#include "box_proc.h"
#include "box_testutil.h"
#include "box_req.h"

#define PEER_PDP_START_MS 60000
#define PEER_FORGE_MS 30000

static const char permit_all[] = "permit (principal, action, resource);\n";

typedef struct fx {
    char dir[64];
    char policy[128], log[128], url[128];
    box_proc proc;
} fx;

static int
setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/box-peer-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->policy, sizeof f->policy, "%s/policy.dw", f->dir);
    snprintf(f->log, sizeof f->log, "%s/records.jsonl", f->dir);
    snprintf(f->url, sizeof f->url, "ipc://%s/pdp.sock", f->dir);
    box_test_put(f->policy, permit_all);
    char bin[4096];
    box_proc_bin(bin, sizeof bin, "box-pdp");
    char *argv[] = {bin,       "--listen", f->url, "--policy",
                    f->policy, "--log",    f->log, NULL};
    assert_true(box_proc_start(&f->proc, argv, NULL));
    // The health question comes from this process, the PDP's parent.
    Box__HealthResponse *h = box_wait_pdp(f->url, PEER_PDP_START_MS);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    fx *f = *state;
    char *argv[] = {"/bin/rm", "-rf", f->dir, NULL};
    box_proc_result r;
    box_proc_run(argv, 30000, &r);
    box_proc_result_free(&r);
    box_free(f);
    return 0;
}

/* Stops the PDP; its stderr is the caller's. */
static char *
pdp_stop(fx *f)
{
    assert_int_equal(kill(f->proc.bp_pid, SIGTERM), 0);
    box_proc_result r;
    box_proc_finish(&f->proc, 30000, &r);
    assert_false(r.pr_timeout);
    assert_int_equal(r.pr_status, 0);
    box_free(r.pr_out);
    return r.pr_err;
}

/* This process (the PDP's parent) decides a shell:exec of program. */
static void
decide(const fx *f, const char *program)
{
    box_pdp_client_opts o = {.co_url = f->url, .co_timeout_ms = 10000};
    box_pdp_client *c = NULL;
    assert_int_equal(box_pdp_client_open(&o, &c), BOX_OK);
    box_req q;
    box_req_exec(&q, program, program, 0, "/");
    box_pdp_answer a;
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    box_pdp_answer_clear(&a);
    box_pdp_client_close(c);
}

/* Runs argv (a forge) and expects it refused, with no answer. */
static void
expect_refused(char *const *argv)
{
    box_proc_result r;
    box_proc_run(argv, PEER_FORGE_MS, &r);
    if (r.pr_status != 1 || strncmp(r.pr_out, "refused: ", 9) != 0)
        print_error("forge: status %d out [%s] err [%s]\n", r.pr_status,
                    r.pr_out, r.pr_err);
    assert_false(r.pr_timeout);
    assert_int_equal(r.pr_status, 1);
    assert_int_equal(strncmp(r.pr_out, "refused: ", 9), 0);
    box_proc_result_free(&r);
}

/*
 * Issue 17 item 2: a forged DecisionRequest from a child of the PDP's
 * parent that is not its shell or gateway, and from a grandchild, is
 * refused before it is read: not decided, not in the decision log, said
 * once on the PDP's stderr (rate-limited while the forge redials). The
 * parent's own request is decided and logged before and after.
 */
static void
test_forged_request_refused(void **state)
{
    fx *f = *state;
    char forge[4096], line[8192];
    box_proc_bin(forge, sizeof forge, "pdp_forge");
    decide(f, "real-before");
    char *child[] = {forge, f->url, "child", NULL};
    expect_refused(child);
    snprintf(line, sizeof line, "'%s' '%s' grandchild; exit $?", forge, f->url);
    char *grandchild[] = {"/bin/sh", "-c", line, NULL};
    expect_refused(grandchild);
    decide(f, "real-after");
    char *err = pdp_stop(f);
    char *log = box_test_slurp_or_empty(f->log);
    assert_int_equal(box_test_count(log, "forged-"), 0);
    assert_int_equal(box_test_count_lines(log, "\"real-before\""), 1);
    assert_int_equal(box_test_count_lines(log, "\"real-after\""), 1);
    size_t said = box_test_count(err, "refused a connection from pid ");
    if (said < 1 || said > 8)
        print_error("PDP stderr:\n%s\n", err);
    assert_true(said >= 1);
    // Each forge redials for 3 s; one line a second says so, not each try.
    assert_true(said <= 8);
    assert_non_null(strstr(err, "it is not this box's shell or gateway"));
    assert_non_null(strstr(err, "it is not a process of this box's run"));
    box_free(log);
    box_free(err);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_forged_request_refused, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
