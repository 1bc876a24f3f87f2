/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: run a script in a session with a table decider, capture all. */
#ifndef SH_TEST_HARNESS_H
#define SH_TEST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_exec.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* The decider table: comma-separated program names to deny / fault, and
 * reported paths whose fs:* requests are denied / faulted. */
typedef struct th {
    const char *th_deny;
    const char *th_fault;
    const char *th_deny_fs;
    const char *th_fault_fs;
    const char *th_deny_write; // paths whose fs:write requests are denied
    box_buf th_out, th_err, th_log;
    box_buf th_fslog; // "action operation path\n" per fs:* request
} th;

static inline bool
th_listed(const char *list, const char *name)
{
    if (list == NULL)
        return false;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && memcmp(p, name, n) == 0)
            return true;
        p += l + (e ? 1 : 0);
    }
    return false;
}

static inline const Box__Value *
th_field(const Box__DecisionRequest *rq, const char *name)
{
    const Box__ValueRecord *r = rq->input->record;
    for (size_t i = 0; i < r->n_fields; i++)
        if (strcmp(r->fields[i]->name, name) == 0)
            return r->fields[i]->value;
    return NULL;
}

static inline box_verdict
th_decide_fs(th *t, const Box__DecisionRequest *rq, char **msg)
{
    const Box__Value *path = th_field(rq, "path");
    const Box__Value *op = th_field(rq, "operation");
    assert_non_null(path);
    assert_non_null(op);
    // The operation is an enum entity (Box::FsReadOperation::"…").
    assert_int_equal(op->kind_case, BOX__VALUE__KIND_ENTITY);
    assert_int_equal(box_buf_printf(&t->th_fslog, "%s %s %s\n", rq->action,
                                    op->entity->id, path->str),
                     BOX_OK);
    if (th_listed(t->th_fault_fs, path->str)) {
        *msg = box_strdup("the policy decision point did not answer");
        return BOX_VERDICT_FAULT;
    }
    if (th_listed(t->th_deny_fs, path->str) ||
        (strcmp(rq->action, "fs:write") == 0 &&
         th_listed(t->th_deny_write, path->str))) {
        *msg = box_asprintf("policy denied this operation on '%s' "
                            "[default-deny]: No permit policy matched this "
                            "request.",
                            path->str);
        return BOX_VERDICT_DENY;
    }
    return BOX_VERDICT_PERMIT;
}

/* Logs "program|command|arg1|arg2|arg_count\n" ("^" for absent). */
static inline box_verdict
th_decide(void *arg, const Box__DecisionRequest *rq, char **msg,
          box_ticket *ticket)
{
    th *t = arg;
    assert_int_equal(rq->input->kind_case, BOX__VALUE__KIND_RECORD);
    if (strncmp(rq->action, "fs:", 3) == 0)
        return th_decide_fs(t, rq, msg);
    assert_string_equal(rq->action, "shell:exec");
    const Box__Value *p = th_field(rq, "program");
    const Box__Value *c = th_field(rq, "command");
    const Box__Value *a1 = th_field(rq, "arg1");
    const Box__Value *a2 = th_field(rq, "arg2");
    const Box__Value *n = th_field(rq, "arg_count");
    assert_non_null(p);
    assert_non_null(c);
    assert_non_null(n);
    assert_non_null(th_field(rq, "cwd"));
    assert_string_equal(rq->resource, p->str);
    assert_int_equal(box_buf_printf(&t->th_log, "%s|%s|%s|%s|%lld\n", p->str,
                                    c->str, a1 ? a1->str : "^",
                                    a2 ? a2->str : "^", (long long)n->long_),
                     BOX_OK);
    if (th_listed(t->th_fault, p->str)) {
        *msg = box_strdup("the policy decision point did not answer");
        return BOX_VERDICT_FAULT;
    }
    if (th_listed(t->th_deny, p->str)) {
        *msg = box_asprintf("policy denied this operation on '%s' "
                            "[default-deny]: No permit policy matched this "
                            "request.",
                            p->str);
        return BOX_VERDICT_DENY;
    }
    return BOX_VERDICT_PERMIT;
}

static inline int
th_out(void *arg, const char *p, size_t n)
{
    th *t = arg;
    return box_buf_append(&t->th_out, p, n) == BOX_OK ? 0 : -1;
}

static inline int
th_err(void *arg, const char *p, size_t n)
{
    th *t = arg;
    return box_buf_append(&t->th_err, p, n) == BOX_OK ? 0 : -1;
}

static inline const char *
th_s(const box_buf *b)
{
    return b->b_len ? b->b_data : "";
}

/* Runs script with decide (arg its argument) as the decider; output in t
 * (reset with th_reset). For a test whose decider wraps th_decide. */
static inline int
th_run_with(th *t, const char *script, unsigned timeout_ms,
            box_decide_fn decide, void *arg)
{
    box_buf_init(&t->th_out, 1u << 22);
    box_buf_init(&t->th_err, 1u << 22);
    box_buf_init(&t->th_log, 1u << 22);
    box_buf_init(&t->th_fslog, 1u << 22);
    static const char *const env[] = {"HOME=/home/lash", NULL};
    sh_session_opts o = {
        .so_decide = decide,
        .so_decide_arg = arg,
        .so_out = th_out,
        .so_err = th_err,
        .so_io_arg = t,
        .so_cwd = "/home/lash",
        .so_env = env,
        .so_timeout_ms = timeout_ms,
    };
    sh_session *ss = sh_session_new(&o);
    assert_non_null(ss);
    int st = sh_session_run(ss, script, strlen(script));
    sh_session_free(ss);
    return st;
}

/* Runs script with th_decide; output in t (reset with th_reset). */
static inline int
th_run(th *t, const char *script, unsigned timeout_ms)
{
    return th_run_with(t, script, timeout_ms, th_decide, t);
}

static inline void
th_reset(th *t)
{
    box_buf_reset(&t->th_out);
    box_buf_reset(&t->th_err);
    box_buf_reset(&t->th_log);
    box_buf_reset(&t->th_fslog);
}

/* Appends everything fd gives to b, then closes fd. */
static inline void
th_drain(int fd, box_buf *b)
{
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        assert_int_equal(box_buf_append(b, buf, (size_t)n), BOX_OK);
    close(fd);
}

/*
 * Runs the reference shell `path -c script` (argv[0] its file name, as
 * its messages name it) in dir with exactly envp; stdout into out, stderr
 * into err (NULL: /dev/null). For small outputs: stdout is read whole
 * before stderr. Returns its exit status (128 + signal when killed).
 */
static inline int
th_run_ref(const char *path, const char *dir, const char *script,
           char *const *envp, box_buf *out, box_buf *err)
{
    int po[2], pe[2] = {-1, -1};
    assert_int_equal(pipe(po), 0);
    if (err != NULL)
        assert_int_equal(pipe(pe), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_addclose(&fa, po[0]);
    if (err != NULL) {
        posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
        posix_spawn_file_actions_addclose(&fa, pe[0]);
    } else {
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
    }
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    const char *slash = strrchr(path, '/');
    char *argv[] = {(char *)(slash != NULL ? slash + 1 : path), (char *)"-c",
                    (char *)script, NULL};
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, path, &fa, NULL, argv, envp), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    th_drain(po[0], out);
    if (err != NULL) {
        close(pe[1]);
        th_drain(pe[0], err);
    }
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

#endif
