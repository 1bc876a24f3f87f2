/* SPDX-License-Identifier: Apache-2.0 */
/* tee [-aip] [--output-error[=MODE]] [FILE]...: GNU coreutils 9.1. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define TEE_CHUNK (64u * 1024u) // one read, then one write per output
#define TEE_OUTPUT_ERROR SH_GOPT_LONG_ONLY

static const sh_gopt tee_opts[] = {
    {'a', "append", SH_GARG_NONE},
    {'i', "ignore-interrupts", SH_GARG_NONE},
    {'p', NULL, SH_GARG_NONE},
    {TEE_OUTPUT_ERROR, "output-error", SH_GARG_OPT},
    {0},
};

static const sh_gopt_spec tee_spec = {
    .gs_cmd = "tee",
    .gs_opts = tee_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: tee [OPTION]... [FILE]...\n"
        "Copy standard input to each FILE, and also to standard output.\n"
        "\n"
        "  -a, --append              append to the given FILEs, do not "
        "overwrite\n"
        "  -i, --ignore-interrupts   ignore interrupt signals\n"
        "  -p                        diagnose errors writing to non pipes\n"
        "      --output-error[=MODE]   set behavior on write error.  See "
        "MODE below\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "MODE determines behavior with write errors on the outputs:\n"
        "  warn           diagnose errors writing to any output\n"
        "  warn-nopipe    diagnose errors writing to any output not a pipe\n"
        "  exit           exit on error writing to any output\n"
        "  exit-nopipe    exit on error writing to any output not a pipe\n"
        "The default MODE for the -p option is 'warn-nopipe'.\n"
        "The default operation when --output-error is not specified, is to\n"
        "exit immediately on error writing to a pipe, and diagnose errors\n"
        "writing to non pipe outputs.\n",
};

/*
 * What a failed write does (--output-error). ORDER TEE_MODE: tee_modes
 * names them. The default is GNU's without the option: a reader that is
 * gone ends tee as SIGPIPE would (status 141); any other failure is
 * reported and that output dropped.
 */
typedef enum tee_mode {
    TEE_WARN,
    TEE_WARN_NOPIPE,
    TEE_EXIT,
    TEE_EXIT_NOPIPE,
    TEE_SIGPIPE,
} tee_mode;
static const char *const tee_modes[] = {"warn", "warn-nopipe", "exit",
                                        "exit-nopipe"};
#define TEE_NMODES (sizeof tee_modes / sizeof tee_modes[0])

/* One output: standard output first, then each FILE that opened. */
typedef struct tee_out {
    sh_stream *to_stream; // owned; NULL: a closed stdout (writes fail)
    char *to_name;        // as messages name it (quotef), owned
    bool to_live;         // false once a write failed: dropped
} tee_out;

typedef struct tee_run {
    sh_ctx *te_cx;
    tee_mode te_mode;
    tee_out *te_outs;
    int te_nouts; // outputs in te_outs
    int te_live;  // outputs not dropped
    char *te_buf;
    int te_status;
} tee_run;

/* MODE as argmatch takes it: the whole word, or the start of only one. */
static int
tee_mode_arg(sh_gopt_iter *it, const char *arg, tee_mode *mode)
{
    size_t len = strlen(arg);
    int found = -1, prefixes = 0;
    for (size_t i = 0; i < TEE_NMODES; i++) {
        if (strcmp(tee_modes[i], arg) == 0) {
            *mode = (tee_mode)i;
            return 0;
        }
        if (strncmp(tee_modes[i], arg, len) == 0) {
            found = (int)i;
            prefixes++;
        }
    }
    if (prefixes == 1) {
        *mode = (tee_mode)found;
        return 0;
    }
    char *q = sh_gquote(arg);
    sh_errf(it->gi_cx,
            "tee: %s argument %s for \xe2\x80\x98--output-error\xe2\x80\x99",
            prefixes > 1 ? "ambiguous" : "invalid", q ? q : "");
    box_free(q);
    (void)sh_puts(it->gi_cx, 2, "Valid arguments are:\n");
    for (size_t i = 0; i < TEE_NMODES; i++) {
        char line[64];
        snprintf(line, sizeof line, "  - \xe2\x80\x98%s\xe2\x80\x99\n",
                 tee_modes[i]);
        (void)sh_puts(it->gi_cx, 2, line);
    }
    (void)sh_puts(it->gi_cx, 2, "Try 'tee --help' for more information.\n");
    return 1;
}

/* Adds an output (takes s; NULL is a closed stdout, whose writes fail
 * with EBADF). False when out of memory. */
static bool
tee_add(tee_run *t, sh_stream *s, const char *name)
{
    tee_out *o = &t->te_outs[t->te_nouts];
    o->to_name = sh_gquotef(name);
    if (o->to_name == NULL) {
        sh_stream_unref(s);
        return false;
    }
    o->to_stream = s;
    o->to_live = true;
    t->te_nouts++;
    t->te_live++;
    return true;
}

static void
tee_drop(tee_run *t, tee_out *o)
{
    sh_stream_unref(o->to_stream);
    o->to_stream = NULL;
    o->to_live = false;
    t->te_live--;
}

/*
 * One chunk to one output. False when tee must end now (te_status set):
 * the call is over, the default's SIGPIPE, or an exit MODE. A failed
 * output is reported (a pipe's only in the modes that say so) and
 * dropped; the others go on.
 */
static bool
tee_write(tee_run *t, tee_out *o, const char *p, size_t n)
{
    sh_ctx *cx = t->te_cx;
    int rc = sh_stream_write(cx, o->to_stream, p, n, t->te_mode == TEE_SIGPIPE);
    if (rc == SH_IO_OK)
        return true;
    int err = errno;
    if (cx->cx_flow != SH_FLOW_NONE) { // SIGPIPE, spent output, budget
        t->te_status = cx->cx_status;
        return false;
    }
    bool pipe = rc == SH_IO_PIPE;
    bool report = !pipe || t->te_mode == TEE_WARN || t->te_mode == TEE_EXIT;
    tee_drop(t, o);
    if (!report)
        return true;
    sh_cmd_err(cx, "tee", 1, "%s: %s", o->to_name,
               strerror(pipe ? EPIPE : err));
    t->te_status = 1;
    return t->te_mode != TEE_EXIT && t->te_mode != TEE_EXIT_NOPIPE;
}

/* Copies standard input to every live output until its end, a read
 * error, or no output is left (GNU stops reading then). */
static void
tee_copy(tee_run *t)
{
    sh_ctx *cx = t->te_cx;
    while (t->te_live > 0) {
        if (sh_check_stop(cx)) {
            t->te_status = cx->cx_status;
            return;
        }
        ssize_t n = sh_read(cx, 0, t->te_buf, TEE_CHUNK);
        if (n < 0 && cx->cx_flow != SH_FLOW_NONE) {
            t->te_status = cx->cx_status; // the wait ended with the call
            return;
        }
        if (n < 0) {
            t->te_status =
                sh_cmd_err(cx, "tee", 1, "read error: %s", strerror(errno));
            return;
        }
        if (n == 0)
            return;
        for (int i = 0; i < t->te_nouts; i++)
            if (t->te_outs[i].to_live &&
                !tee_write(t, &t->te_outs[i], t->te_buf, (size_t)n))
                return;
    }
}

/*
 * Every FILE is opened first, each a write decided by policy (fs:write,
 * created or truncated, or appended to with -a); one that cannot be is
 * reported and left out, and tee ends with status 1. -i is accepted: no
 * signal reaches a command in the box. -p and --output-error choose what
 * a failed write does (tee_mode).
 */
int
sh_cmd_tee(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &tee_spec, argc, argv);
    tee_run t = {.te_cx = cx, .te_mode = TEE_SIGPIPE};
    bool append = false;
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'a') {
            append = true;
        } else if (id == 'p') {
            t.te_mode = TEE_WARN_NOPIPE;
        } else if (id == TEE_OUTPUT_ERROR) {
            t.te_mode = TEE_WARN_NOPIPE;
            if (arg != NULL && (st = tee_mode_arg(&it, arg, &t.te_mode)) != 0)
                goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    t.te_outs = box_calloc((size_t)it.gi_nops + 1, sizeof *t.te_outs);
    t.te_buf = box_alloc(TEE_CHUNK);
    if (t.te_outs == NULL || t.te_buf == NULL ||
        !tee_add(&t, sh_stream_ref(cx->cx_fd[1]), "standard output")) {
        st = sh_cmd_err(cx, "tee", 1, "out of memory");
        goto out;
    }
    int flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
    for (int i = 0; i < it.gi_nops; i++) {
        const char *path = it.gi_ops[i];
        char *shown = sh_gquotef(path);
        int ost = 0;
        sh_stream *s = shown != NULL
                           ? sh_stream_open(cx, "tee", path, shown, flags, &ost)
                           : NULL;
        bool added = s != NULL && tee_add(&t, s, path);
        box_free(shown);
        if (ost == BOX_STATUS_FAULT) {
            st = ost; // the PDP failed: nothing more may run
            goto out;
        }
        if (!added && ost == 0) {
            st = sh_cmd_err(cx, "tee", 1, "out of memory");
            goto out;
        }
        if (!added)
            t.te_status = 1;
    }
    tee_copy(&t);
    st = t.te_status;
out:
    for (int i = 0; i < t.te_nouts; i++) {
        sh_stream_unref(t.te_outs[i].to_stream);
        box_free(t.te_outs[i].to_name);
    }
    box_free(t.te_outs);
    box_free(t.te_buf);
    sh_gopt_free(&it);
    return st;
}
