/* SPDX-License-Identifier: Apache-2.0 */
/* The box's process table: spawn each service, wait for health, stop. */
#include "box_svcs.h"

#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_control.h"
#include "box_svc.h"

extern char **environ;

#define SVC_START_TIMEOUT_MS 30000 // a loaded machine can be slow
#define SVC_HEALTH_TRY_MS 1000     // one health question
#define SVC_STOP_GRACE_MS 15000    // drains, plus a sanitizer's exit checks
#define SVC_ARGV_MAX 20

enum svc_health { SVC_HEALTH_PDP, SVC_HEALTH_CONTROL };

/* Address of each socket, relative to the box directory. Only the alias
 * socket (run/box.sock, the shell's own) is meant for the agent; every
 * other socket lives under private/, which the agent's sandbox hides. */
#define SVC_PDP_SOCK "private/pdp.sock"
#define SVC_EPOCH_SOCK "private/pdp-epoch.sock"
#define SVC_GW_CTL_SOCK "private/gateway-ctl.sock"
#define SVC_SHELL_CTL_SOCK "private/shell-ctl.sock"
#define SVC_DECISION_LOG "private/telemetry/records.jsonl"

/* One row per service, in start order. Argument templates name paths by
 * token: {pdp} {epoch} {gwctl} {shctl} {dir} {log} {policy} {boxid}
 * {runid} {config} {workspace}; a pair
 * whose value is {policy} is dropped when the box has no policy. */
typedef struct svc_row {
    const char *sr_name;
    enum svc_health sr_health;
    const char *sr_health_token; // which address answers health
    const char *sr_args[SVC_ARGV_MAX];
} svc_row;

static const svc_row svc_table[] = {
    {"box-pdp",
     SVC_HEALTH_PDP,
     "{pdp}",
     {"--listen", "{pdp}", "--epoch-pub", "{epoch}", "--log", "{log}",
      "--policy", "{policy}", "--box-id", "{boxid}", "--run-id", "{runid}",
      NULL}},
    {"box-gateway",
     SVC_HEALTH_CONTROL,
     "{gwctl}",
     {"--pdp", "{pdp}", "--control", "{gwctl}", NULL}},
    {"box-shell",
     SVC_HEALTH_CONTROL,
     "{shctl}",
     {"--box-dir", "{dir}", "--pdp", "{pdp}", "--epoch-pub", "{epoch}",
      "--box-id", "{boxid}", "--config", "{config}", "--workspace",
      "{workspace}", "--control", "{shctl}", NULL}},
};
#define SVC_COUNT (sizeof svc_table / sizeof svc_table[0])

typedef struct svc_proc {
    pid_t sv_pid;
    int sv_status; // valid once reaped
    bool sv_reaped;
    char *sv_url;
} svc_proc;

struct box_svcs {
    svc_proc ss_proc[SVC_COUNT];
    size_t ss_started;
};

/* Expands one template token; the result is owned by the caller. */
static char *
svc_expand(const char *tok, const box_svcs_paths *p)
{
    static const struct {
        const char *t;
        const char *rel;
    } socks[] = {
        {"{pdp}", SVC_PDP_SOCK},
        {"{epoch}", SVC_EPOCH_SOCK},
        {"{gwctl}", SVC_GW_CTL_SOCK},
        {"{shctl}", SVC_SHELL_CTL_SOCK},
    };
    for (size_t i = 0; i < sizeof socks / sizeof socks[0]; i++)
        if (strcmp(tok, socks[i].t) == 0)
            return box_asprintf("ipc://%s/%s", p->sp_box_dir, socks[i].rel);
    if (strcmp(tok, "{dir}") == 0)
        return box_strdup(p->sp_box_dir);
    if (strcmp(tok, "{log}") == 0)
        return box_asprintf("%s/%s", p->sp_box_dir, SVC_DECISION_LOG);
    if (strcmp(tok, "{boxid}") == 0)
        return box_strdup(p->sp_box_id ? p->sp_box_id : "box-unknown");
    if (strcmp(tok, "{runid}") == 0)
        return box_strdup(p->sp_run_id ? p->sp_run_id : "");
    if (strcmp(tok, "{config}") == 0)
        return box_strdup(p->sp_config);
    if (strcmp(tok, "{workspace}") == 0)
        return box_strdup(p->sp_workspace);
    if (strcmp(tok, "{policy}") == 0)
        return p->sp_policy ? box_strdup(p->sp_policy) : NULL;
    return box_strdup(tok);
}

char *
box_svcs_decision_log(const char *box_dir)
{
    return box_asprintf("%s/%s", box_dir, SVC_DECISION_LOG);
}

static void
svc_free_argv(char **argv)
{
    for (size_t i = 0; argv[i] != NULL; i++)
        box_free(argv[i]);
}

static box_err
svc_spawn(const svc_row *row, const box_svcs_paths *p, svc_proc *pr, char **err)
{
    char *argv[SVC_ARGV_MAX + 2] = {0};
    size_t n = 0;
    box_err ret = BOX_ENOMEM;

    if ((argv[n++] = box_asprintf("%s/%s", p->sp_bindir, row->sr_name)) == NULL)
        goto out;
    for (size_t i = 0; row->sr_args[i] != NULL; i += 2) {
        if (strcmp(row->sr_args[i + 1], "{policy}") == 0 &&
            p->sp_policy == NULL)
            continue;
        if ((argv[n++] = svc_expand(row->sr_args[i], p)) == NULL ||
            (argv[n++] = svc_expand(row->sr_args[i + 1], p)) == NULL)
            goto out;
    }
    if ((pr->sv_url = svc_expand(row->sr_health_token, p)) == NULL)
        goto out;
    // The service starts with a clean signal state whatever ours is, and
    // dies with us even when we are killed outright.
    int rv = box_svc_spawn(&pr->sv_pid, argv[0], NULL, argv, environ,
                           BOX_SPAWN_TIED);
    if (rv != 0) {
        *err = box_asprintf("cannot start %s: %s", argv[0], strerror(rv));
        ret = BOX_EIO;
        goto out;
    }
    ret = BOX_OK;
out:
    svc_free_argv(argv);
    return ret;
}

/* Polls the service's health until it answers, it dies, or time is up. */
static box_err
svc_wait_ready(const svc_row *row, svc_proc *pr, char **err)
{
    uint64_t deadline = box_svc_now_ms() + SVC_START_TIMEOUT_MS;
    // One socket for every try (see box_health_probe); each try waits up
    // to a second, which a loaded machine's sanitizer build needs.
    box_health_probe *probe = NULL;
    box_err prv =
        box_health_probe_open(pr->sv_url, row->sr_health == SVC_HEALTH_PDP,
                              SVC_HEALTH_TRY_MS, &probe);
    if (prv != BOX_OK) {
        *err = box_asprintf("cannot ask %s for health at %s: %s", row->sr_name,
                            pr->sv_url, box_strerror(prv));
        return prv;
    }
    while (box_svc_now_ms() < deadline) {
        int st;
        if (waitpid(pr->sv_pid, &st, WNOHANG) == pr->sv_pid) {
            pr->sv_reaped = true;
            pr->sv_status = st;
            *err =
                box_asprintf("%s exited while starting (%s %d)", row->sr_name,
                             WIFSIGNALED(st) ? "signal" : "status",
                             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            box_health_probe_close(probe);
            return BOX_ECLOSED;
        }
        Box__HealthResponse *h = NULL;
        box_err rv = box_health_probe_ask(probe, &h);
        if (rv == BOX_OK) {
            bool ready = h->ready;
            box__health_response__free_unpacked(h, NULL);
            if (ready) {
                box_health_probe_close(probe);
                return BOX_OK;
            }
        }
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    box_health_probe_close(probe);
    *err = box_asprintf("%s did not answer at %s within %d s", row->sr_name,
                        pr->sv_url, SVC_START_TIMEOUT_MS / 1000);
    return BOX_ETIMEDOUT;
}

box_err
box_svcs_start(const box_svcs_paths *p, box_svcs **out, char **err)
{
    *err = NULL;
    box_svcs *s = box_calloc(1, sizeof *s);
    if (s == NULL)
        return BOX_ENOMEM;
    for (size_t i = 0; i < SVC_COUNT; i++) {
        box_err rv = svc_spawn(&svc_table[i], p, &s->ss_proc[i], err);
        if (rv == BOX_OK) {
            s->ss_started = i + 1;
            rv = svc_wait_ready(&svc_table[i], &s->ss_proc[i], err);
        }
        if (rv != BOX_OK) {
            (void)box_svcs_stop(s);
            return rv;
        }
    }
    *out = s;
    return BOX_OK;
}

void
box_svcs_report(const box_svcs *s, FILE *out)
{
    for (size_t i = 0; i < s->ss_started; i++)
        fprintf(out, "strands-box: %s up \xc2\xb7 pid %d \xc2\xb7 %s\n",
                svc_table[i].sr_name, (int)s->ss_proc[i].sv_pid,
                s->ss_proc[i].sv_url);
}

const char *
box_svcs_find_dead(box_svcs *s)
{
    for (size_t i = 0; i < s->ss_started; i++) {
        svc_proc *pr = &s->ss_proc[i];
        if (pr->sv_reaped)
            return svc_table[i].sr_name;
        int st;
        if (waitpid(pr->sv_pid, &st, WNOHANG) == pr->sv_pid) {
            pr->sv_reaped = true;
            pr->sv_status = st;
            return svc_table[i].sr_name;
        }
    }
    return NULL;
}

/* Waits for pid up to ms; true if reaped. */
static bool
svc_reap_within(svc_proc *pr, uint64_t ms)
{
    uint64_t deadline = box_svc_now_ms() + ms;
    while (!pr->sv_reaped) {
        int st;
        pid_t r = waitpid(pr->sv_pid, &st, WNOHANG);
        if (r == pr->sv_pid || (r < 0 && errno == ECHILD)) {
            pr->sv_reaped = true;
            pr->sv_status = r == pr->sv_pid ? st : 0;
            break;
        }
        if (box_svc_now_ms() >= deadline)
            return false;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return true;
}

int
box_svcs_stop(box_svcs *s)
{
    int status = 0;
    if (s == NULL)
        return 0;
    for (size_t i = s->ss_started; i-- > 0;) {
        svc_proc *pr = &s->ss_proc[i];
        if (!pr->sv_reaped)
            kill(pr->sv_pid, SIGTERM);
        if (!svc_reap_within(pr, SVC_STOP_GRACE_MS)) {
            kill(pr->sv_pid, SIGKILL);
            (void)svc_reap_within(pr, SVC_STOP_GRACE_MS);
            fprintf(stderr,
                    "strands-box: %s did not stop within %d s and was "
                    "killed\n",
                    svc_table[i].sr_name, SVC_STOP_GRACE_MS / 1000);
            status = 1;
        } else if (!WIFEXITED(pr->sv_status) ||
                   WEXITSTATUS(pr->sv_status) != 0) {
            int st = pr->sv_status;
            fprintf(stderr, "strands-box: %s stopped with %s %d\n",
                    svc_table[i].sr_name, WIFSIGNALED(st) ? "signal" : "status",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            status = 1;
        }
    }
    for (size_t i = 0; i < SVC_COUNT; i++)
        box_free(s->ss_proc[i].sv_url);
    box_free(s);
    return status;
}
