/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target sh_run: what the shell does after parsing, in process. */
#include <stdbool.h>
#include <string.h>

#include "box_fuzz.h"
#include "sh_exec.h"

/*
 * The input is the text of one `sh -c` call. It runs in a fresh session
 * as the worker runs it, so arithmetic, globbing and pattern matching,
 * printf's formats, brace expansion, [[ ]] and the parameter operators
 * all see what libFuzzer makes. Safe to run anywhere: the session builds
 * its own in-memory kernel (no so_kernel, no so_host: no host binds, no
 * host programs), so nothing reaches the disk; the decider permits
 * everything, so every path past admission is reached. The wall clock is
 * short and the output small, so one input cannot hold a run up: a call
 * that runs out of either ends as the shell ends it (status 124 / -1 from
 * the writer), which is not a finding. Invariant: the status is 0..255.
 */

// Long enough for real work, short enough that `while :; do :; done`
// costs libFuzzer little; a hang past it is the shell not checking.
#define FZ_TIMEOUT_MS 200u
// Per stream; past it the writer says stop, as the worker's budget does.
#define FZ_OUT_MAX (64u * 1024u)

typedef struct fz_io {
    size_t fi_out, fi_err; // bytes written so far
} fz_io;

static box_verdict
fz_permit(void *arg, const Box__DecisionRequest *rq, char **reason,
          box_ticket *ticket)
{
    (void)arg;
    (void)rq;
    (void)reason;
    return BOX_VERDICT_PERMIT;
}

/* Counts n against *used; -1 once the cap is passed. The bytes are
 * dropped: the target looks for crashes, not for what is printed. */
static int
fz_count(size_t *used, const char *p, size_t n)
{
    (void)p;
    if (n > FZ_OUT_MAX - *used)
        return -1;
    *used += n;
    return 0;
}

static int
fz_out(void *arg, const char *p, size_t n)
{
    return fz_count(&((fz_io *)arg)->fi_out, p, n);
}

static int
fz_err(void *arg, const char *p, size_t n)
{
    return fz_count(&((fz_io *)arg)->fi_err, p, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const env[] = {"HOME=/home/lash", "PATH=/bin",
                                      NULL};
    fz_io io = {0};
    sh_session_opts o = {
        .so_decide = fz_permit,
        .so_out = fz_out,
        .so_err = fz_err,
        .so_io_arg = &io,
        .so_cwd = "/",
        .so_env = env,
        .so_timeout_ms = FZ_TIMEOUT_MS,
    };
    sh_session *ss = sh_session_new(&o);
    if (ss == NULL)
        box_fuzz_fail("a session that cannot be built");
    int st = sh_session_run(ss, (const char *)data, size);
    sh_session_free(ss);
    if (st < 0 || st > 255)
        box_fuzz_fail("an exit status outside 0..255");
    return 0;
}
