/* SPDX-License-Identifier: Apache-2.0 */
/* `box sh`: one call of the box's shell in the foreground, against a
 * policy, with the worker's own interpreter, kernel and confinement. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_cmd.h"
#include "box_outcome.h"
#include "box_status.h"
#include "pdp_policy_file.h"
#include "pdp_wire.h"
#include "shell_settings.h"
#include "worker_confine.h"
#include "worker_interp.h"

#define BSH_INPUT_MAX (256u * 1024u) // box-spec §3.1's command text limit
#define BSH_ARENA_MAX (1u << 20)
#define BSH_EPOCH 1 // one policy, loaded once

static const char bsh_usage[] =
    "usage: box sh --policy FILE [--config box.toml] [--workspace DIR]\n"
    "              [--explain] (-c TEXT [NAME [ARG...]] | FILE [ARG...])\n"
    "\n"
    "Runs TEXT, as `bash -c TEXT NAME ARG...` would ($0 NAME, $1... the\n"
    "ARGs), or the script FILE, as `bash FILE ARG...` would (its errors\n"
    "placed `FILE: line N:`), as one call of the box's shell, in the\n"
    "foreground, deciding every command and file operation against the\n"
    "policy FILE with the same interpreter, kernel and confinement a box's\n"
    "shell workers have: the operator home, the agent's home and the\n"
    "workspace are the binds (--workspace, else the config's [agent]\n"
    "workspace, else the current directory); box.toml and the policy are\n"
    "out of the shell's reach. Host programs are decided but not started\n"
    "(`box sh` starts no sandbox). --explain prints each decision on\n"
    "stderr. Exits with the script's status; 2 on a usage error, 1 when the\n"
    "policy does not load.\n";

/* The in-process decision point: the policy set and scratch for one
 * decision or outcome at a time (bp_lock: the kernel asks from every
 * stage thread), and, as a broker keeps one, the book of permits whose
 * outcome the policy reads. */
typedef struct bsh_pdp {
    pdp_policy_set *bp_set;
    pdp_live *bp_live; // the call's history, for temporal rules
    box_arena *bp_arena;
    pdp_answer *bp_ans;
    bool bp_explain;
    pthread_mutex_t bp_lock;
    box_outcome_book *bp_book;
    uint64_t bp_next_id;
} bsh_pdp;

static void
bsh_explain(const pdp_wire_decided *d)
{
    const pdp_dlog_decision *l = &d->wd_log;
    fprintf(stderr, "box sh: %s %s %s (%s%s%s)\n",
            l->dd_permit ? "permit" : "deny", l->dd_action,
            l->dd_resource != NULL ? l->dd_resource : "",
            l->dd_cause != NULL ? l->dd_cause : "",
            l->dd_rule != NULL ? ", rule " : "",
            l->dd_rule != NULL ? l->dd_rule : "");
}

/* A box_decide_fn: the same wire decision box-pdp makes, with the same
 * enforcement gate (the reach floor refuses even a permit); a permit the
 * policy wants the outcome of gets a ticket, as a broker gives one. */
static box_verdict
bsh_decide(void *arg, const Box__DecisionRequest *wreq, char **reason,
           box_ticket *ticket)
{
    bsh_pdp *p = arg;
    Box__DecisionResponse out = BOX__DECISION_RESPONSE__INIT;
    pdp_wire_decided d;
    Box__DecisionRequest req = *wreq;

    pthread_mutex_lock(&p->bp_lock);
    req.request_id = ++p->bp_next_id;
    box_arena_reset(p->bp_arena);
    pdp_wire_decide(p->bp_set, p->bp_live, p->bp_arena, p->bp_ans, &req,
                    BSH_EPOCH, &out, &d);
    pdp_wire_enforce(p->bp_arena, &req, &out, &d);
    if (p->bp_explain)
        bsh_explain(&d);
    box_verdict v = box_verdict_from_wire(out.verdict);
    if (v != BOX_VERDICT_PERMIT)
        *reason = box_strdup(out.message != NULL ? out.message : "");
    else if (out.wants_outcomes &&
             box_outcome_book_expect(p->bp_book, req.request_id, &req) ==
                 BOX_OK)
        *ticket = (box_ticket){.bt_id = req.request_id, .bt_wanted = true};
    pthread_mutex_unlock(&p->bp_lock);
    return v;
}

/* " result X" / " status N" of a response, for --explain; "" else. */
static const char *
bsh_output_text(const Box__Event *ev, char *buf, size_t n)
{
    const Box__Value *v = ev->output != NULL && ev->output->record != NULL &&
                                  ev->output->record->n_fields == 1
                              ? ev->output->record->fields[0]->value
                              : NULL;
    if (v == NULL)
        return "";
    if (v->kind_case == BOX__VALUE__KIND_LONG)
        snprintf(buf, n, " status %lld", (long long)v->long_);
    else if (v->kind_case == BOX__VALUE__KIND_ENTITY)
        snprintf(buf, n, " result %s", v->entity->id);
    else
        return "";
    return buf;
}

/* Appends one outcome event to the call's history. Caller holds bp_lock. */
static void
bsh_append(bsh_pdp *p, box_outcome_ev *ev)
{
    box_arena_reset(p->bp_arena);
    box_err rv = pdp_wire_record(p->bp_set, p->bp_live, BSH_EPOCH, p->bp_arena,
                                 &ev->oe_ev);
    char out[64];
    if (p->bp_explain || rv != BOX_OK)
        fprintf(stderr, "box sh: %s %s::%s%s%s\n",
                rv == BOX_OK ? "recorded" : "could not record",
                ev->oe_ev.action,
                ev->oe_ev.kind == BOX__EVENT_KIND__EVENT_ERROR ? "error"
                                                               : "response",
                bsh_output_text(&ev->oe_ev, out, sizeof out),
                rv == BOX_OK ? ""
                             : " (policy outcome recording was not "
                               "confirmed)");
    box_outcome_ev_clear(ev);
}

/* A box_record_fn: the outcome of a permit bsh_decide gave a ticket. */
static void
bsh_record(void *arg, box_ticket t, const box_outcome *o)
{
    bsh_pdp *p = arg;
    box_outcome_ev ev;
    pthread_mutex_lock(&p->bp_lock);
    if (box_outcome_book_take(p->bp_book, t.bt_id, o, &ev) == BOX_OK)
        bsh_append(p, &ev);
    pthread_mutex_unlock(&p->bp_lock);
}

static int
bsh_write(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int
bsh_out(void *ctx, const char *p, size_t n)
{
    (void)ctx;
    return bsh_write(STDOUT_FILENO, p, n);
}

static int
bsh_err(void *ctx, const char *p, size_t n)
{
    (void)ctx;
    return bsh_write(STDERR_FILENO, p, n);
}

/* A host program's shell:spawn was permitted; box sh builds no sandbox. */
static box_err
bsh_launch(void *arg, int argc, char *const *argv, const char *cwd,
           const int io[3], int *status_fd, int *status, char **err)
{
    (void)arg, (void)argc, (void)cwd, (void)io, (void)status_fd, (void)status;
    *err = box_asprintf("box sh starts no host program (%s was permitted)",
                        argv[0]);
    return BOX_ENOTSUP;
}

/* The script FILE, whole, into *out (caller frees): at most the shell's
 * input limit. Returns 0, or 1 having said why. */
static int
bsh_read_script(const char *path, char **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return box_cmd_error("%s: %s", path, strerror(errno));
    char *buf = box_alloc(BSH_INPUT_MAX + 2);
    size_t got = 0;
    int rc = 1;
    if (buf == NULL) {
        box_cmd_error("out of memory");
        goto out;
    }
    for (;;) {
        ssize_t n = read(fd, buf + got, BSH_INPUT_MAX + 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            box_cmd_error("%s: %s", path, strerror(errno));
            goto out;
        }
        if (n == 0)
            break;
        got += (size_t)n;
        if (got > BSH_INPUT_MAX) {
            box_cmd_error("%s: input too large (the shell takes at most "
                          "%u bytes)",
                          path, BSH_INPUT_MAX);
            goto out;
        }
    }
    buf[got] = '\0';
    // The call's text is a string: a NUL would end it there, silently (the
    // alias refuses such a command the same way).
    if (memchr(buf, '\0', got) != NULL) {
        box_cmd_error("%s: the script contains a NUL byte", path);
        goto out;
    }
    *out = buf;
    *len = got;
    buf = NULL;
    rc = 0;
out:
    box_free(buf);
    close(fd);
    return rc;
}

/* path made absolute and canonical (the covers are checked after the
 * working directory becomes /). NULL having said why. */
static char *
bsh_real(const char *what, const char *path)
{
    char buf[PATH_MAX];
    if (realpath(path, buf) == NULL) {
        box_cmd_error("%s %s: %s", what, path, strerror(errno));
        return NULL;
    }
    return box_strdup(buf);
}

int
box_cmd_sh(int argc, char **argv)
{
    static const struct option opts[] = {
        {"policy", required_argument, NULL, 'p'},
        {"config", required_argument, NULL, 'f'},
        {"workspace", required_argument, NULL, 'w'},
        {"explain", no_argument, NULL, 'x'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *policy = NULL, *config = NULL, *workspace = NULL;
    const char *text = NULL;
    bsh_pdp pdp = {.bp_lock = PTHREAD_MUTEX_INITIALIZER};
    char *script = NULL, *policy_real = NULL, *config_real = NULL;
    char *err = NULL;
    size_t len = 0;
    shell_settings set;
    bool have_set = false, confined = false;
    int c, status = 2;

    memset(&set, 0, sizeof set);
    optind = 1;
    while ((c = getopt_long(argc, argv, "+c:", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            policy = optarg;
            break;
        case 'f':
            config = optarg;
            break;
        case 'w':
            workspace = optarg;
            break;
        case 'x':
            pdp.bp_explain = true;
            break;
        case 'c':
            text = optarg;
            break;
        case 'h':
            fputs(bsh_usage, stdout);
            return 0;
        default:
            fputs(bsh_usage, stderr);
            return 2;
        }
    }
    if (policy == NULL || (text == NULL && optind >= argc)) {
        fputs(bsh_usage, stderr);
        return 2;
    }
    status = 1;
    if (text != NULL) {
        len = strlen(text);
        if (len > BSH_INPUT_MAX) {
            fputs("strands-shell: input too large\n", stderr);
            goto out;
        }
    } else if (bsh_read_script(argv[optind], &script, &len) != 0) {
        goto out;
    } else {
        text = script;
    }
    if ((policy_real = bsh_real("policy file", policy)) == NULL ||
        (config != NULL &&
         (config_real = bsh_real("configuration", config)) == NULL))
        goto out;
    const char *home = getenv("HOME");
    if (pdp_policy_load_file(policy_real, home, &pdp.bp_set, NULL, &err) !=
        BOX_OK) {
        box_cmd_error("policy file %s will not load: %s", policy,
                      err != NULL ? err : "out of memory");
        goto out;
    }
    if ((pdp.bp_arena = box_arena_new(BSH_ARENA_MAX)) == NULL ||
        (pdp.bp_ans = pdp_answer_new()) == NULL ||
        (pdp.bp_live = pdp_live_new(NULL, NULL)) == NULL ||
        (pdp.bp_book = box_outcome_book_new()) == NULL) {
        box_cmd_error("out of memory");
        goto out;
    }
    shell_args sa = {.sa_routes_fd = -1, // no routes: fd 0 is the user's
                     .sa_config = config_real,
                     .sa_policy = policy_real,
                     .sa_workspace = workspace};
    if (shell_settings_build(&sa, &set, &err) != BOX_OK) {
        box_cmd_error("%s", err != NULL ? err : "out of memory");
        goto out;
    }
    have_set = true;
    // The worker's confinement, as the zygote applies it: the shell may
    // then reach only the binds, and box.toml and the policy not at all.
    worker_covers covers;
    if (close_range(3, ~0u, 0) != 0 ||
        worker_confine(&set.ss_settings, &covers) != 0) {
        box_cmd_error("cannot confine the shell (the log line above says "
                      "why)");
        status = BOX_STATUS_FAULT;
        goto out;
    }
    confined = true;
    worker_io io = {.wi_out = bsh_out,
                    .wi_err = bsh_err,
                    .wi_decide = bsh_decide,
                    .wi_record = bsh_record,
                    .wi_launch = bsh_launch,
                    .wi_ctx = &pdp};
    // The interpreter passes its one context to every callback. As the
    // alias words them: -c TEXT [NAME [ARG...]] or FILE [ARG...] (the
    // script, read above).
    (void)len; // a NUL-free string of this length
    Box__Call call = BOX__CALL__INIT;
    call.source = (char *)text;
    call.script = script != NULL;
    if (optind < argc) {
        call.has_arg0 = true;
        call.arg0 = argv[optind];
        call.args = argv + optind + 1;
        call.n_args = (size_t)(argc - optind - 1);
    }
    status =
        worker_interp_run(&set.ss_settings, &call, -1, &io, NULL); // no stdin
    // What the call still owes (an effect whose end never came), as a
    // broker records it: indeterminate, a command's status -1.
    box_outcome_ev ev;
    pthread_mutex_lock(&pdp.bp_lock);
    while (box_outcome_book_take_unreported(pdp.bp_book, &ev) == BOX_OK)
        bsh_append(&pdp, &ev);
    pthread_mutex_unlock(&pdp.bp_lock);
out:
    if (have_set)
        shell_settings_free(&set);
    box_outcome_book_free(pdp.bp_book);
    pdp_answer_free(pdp.bp_ans);
    pdp_live_free(pdp.bp_live);
    box_arena_free(pdp.bp_arena);
    pdp_policy_free(pdp.bp_set);
    box_free(script);
    box_free(policy_real);
    box_free(config_real);
    box_free(err);
    // A confined process ends as a worker does, without exit handlers:
    // its filter refuses what some of them do (LeakSanitizer's ptrace).
    if (confined) {
        fflush(NULL);
        _exit(status);
    }
    return status;
}
