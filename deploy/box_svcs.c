/* SPDX-License-Identifier: Apache-2.0 */
/* Runs the process table's services for box run: spawn each, wait for its
 * health, watch, stop. */
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
#include "box_proctab.h"
#include "box_svc.h"

extern char **environ;

#define SVC_START_TIMEOUT_MS 30000 // a loaded machine can be slow
#define SVC_HEALTH_TRY_MS 1000     // one health question
#define SVC_STOP_GRACE_MS 15000    // drains, plus a sanitizer's exit checks

/* One started service: a BOX_START_RUN row of the process table. */
typedef struct svc_proc {
    const box_proctab_row *sv_row;
    pid_t sv_pid;
    int sv_status; // valid once reaped
    bool sv_reaped;
    char *sv_url; // where its health is asked
} svc_proc;

struct box_svcs {
    svc_proc ss_proc[BOX_PROC_COUNT];
    size_t ss_started;
    char *ss_gw_address; // what the gateway's health said, or NULL
};

/*
 * Spawns one row: its command line and its environment both come from the
 * table. The environment is the row's names taken from ours, not all of
 * ours: a token or key in the operator's shell reaches no service.
 */
static box_err
svc_spawn(const box_proctab_box *b, svc_proc *pr, char **err)
{
    box_argv av = {0}, env = {0};
    box_err ret;
    posix_spawn_file_actions_t fa;
    bool has_fa = false;

    if ((ret = box_proctab_argv(pr->sv_row, b, &av)) != BOX_OK ||
        (ret = box_proctab_env(pr->sv_row, environ, &env)) != BOX_OK ||
        (ret = box_proctab_health_url(pr->sv_row, b, &pr->sv_url)) != BOX_OK)
        goto out;
    // The credential routes' memory file, where the row's --routes-fd
    // says (ours is far above it, and close-on-exec).
    int routes = pr->sv_row->pt_id == BOX_PROC_GATEWAY ? b->pb_gw_routes_fd
                 : pr->sv_row->pt_id == BOX_PROC_SHELL ? b->pb_sh_routes_fd
                                                       : 0;
    if (routes > 0) {
        if (posix_spawn_file_actions_init(&fa) != 0) {
            ret = BOX_ENOMEM;
            goto out;
        }
        has_fa = true;
        if (posix_spawn_file_actions_adddup2(&fa, routes,
                                             BOX_PROCTAB_ROUTES_FD) != 0) {
            ret = BOX_ENOMEM;
            goto out;
        }
    }
    // The service starts with a clean signal state whatever ours is, and
    // dies with us even when we are killed outright.
    int rv = box_svc_spawn(&pr->sv_pid, av.av_v[0], has_fa ? &fa : NULL,
                           av.av_v, box_proctab_envp(&env), BOX_SPAWN_TIED);
    if (rv != 0) {
        *err = box_asprintf("cannot start %s: %s", av.av_v[0], strerror(rv));
        ret = BOX_EIO;
        goto out;
    }
    ret = BOX_OK;
out:
    if (has_fa)
        posix_spawn_file_actions_destroy(&fa);
    box_argv_free(&av);
    box_argv_free(&env);
    return ret;
}

/* Polls the service's health until it answers, it dies, or time is up. */
static box_err
svc_wait_ready(svc_proc *pr, char **address, char **err)
{
    const box_proctab_row *row = pr->sv_row;
    uint64_t deadline = box_svc_now_ms() + SVC_START_TIMEOUT_MS;
    // One socket for every try (see box_health_probe); each try waits up
    // to a second, which a loaded machine's sanitizer build needs.
    box_health_probe *probe = NULL;
    box_err prv =
        box_health_probe_open(pr->sv_url, row->pt_health == BOX_HEALTH_PDP,
                              SVC_HEALTH_TRY_MS, &probe);
    if (prv != BOX_OK) {
        *err = box_asprintf("cannot ask %s for health at %s: %s", row->pt_name,
                            pr->sv_url, box_strerror(prv));
        return prv;
    }
    while (box_svc_now_ms() < deadline) {
        int st;
        if (waitpid(pr->sv_pid, &st, WNOHANG) == pr->sv_pid) {
            pr->sv_reaped = true;
            pr->sv_status = st;
            *err =
                box_asprintf("%s exited while starting (%s %d)", row->pt_name,
                             WIFSIGNALED(st) ? "signal" : "status",
                             WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            box_health_probe_close(probe);
            return BOX_ECLOSED;
        }
        Box__HealthResponse *h = NULL;
        box_err rv = box_health_probe_ask(probe, &h);
        if (rv == BOX_OK) {
            bool ready = h->ready;
            if (ready && h->listen_address != NULL &&
                h->listen_address[0] != '\0' &&
                (*address = box_strdup(h->listen_address)) == NULL)
                ready = false; // out of memory: ask again
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
    *err = box_asprintf("%s did not answer at %s within %d s", row->pt_name,
                        pr->sv_url, SVC_START_TIMEOUT_MS / 1000);
    return BOX_ETIMEDOUT;
}

box_err
box_svcs_start(const box_proctab_box *b, box_svcs **out, char **err)
{
    *err = NULL;
    box_svcs *s = box_calloc(1, sizeof *s);
    if (s == NULL)
        return BOX_ENOMEM;
    // The rows after the gateway learn its address (the shell points the
    // host programs' sandboxes at it).
    box_proctab_box with = *b;
    b = &with;
    // Table order: each service after the one before answers.
    for (int id = 0; id < BOX_PROC_COUNT; id++) {
        const box_proctab_row *row = box_proctab_get((box_proctab_id)id);
        if (row->pt_start != BOX_START_RUN)
            continue;
        svc_proc *pr = &s->ss_proc[s->ss_started];
        pr->sv_row = row;
        box_err rv = svc_spawn(b, pr, err);
        if (rv == BOX_OK) {
            s->ss_started++;
            char *address = NULL;
            rv = svc_wait_ready(pr, &address, err);
            if (address != NULL && s->ss_gw_address == NULL &&
                row->pt_id == BOX_PROC_GATEWAY)
                with.pb_gw_address = s->ss_gw_address = address;
            else
                box_free(address);
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
                s->ss_proc[i].sv_row->pt_name, (int)s->ss_proc[i].sv_pid,
                s->ss_proc[i].sv_url);
}

const char *
box_svcs_gateway_address(const box_svcs *s)
{
    return s->ss_gw_address;
}

const char *
box_svcs_find_dead(box_svcs *s)
{
    for (size_t i = 0; i < s->ss_started; i++) {
        svc_proc *pr = &s->ss_proc[i];
        if (pr->sv_reaped)
            return s->ss_proc[i].sv_row->pt_name;
        int st;
        if (waitpid(pr->sv_pid, &st, WNOHANG) == pr->sv_pid) {
            pr->sv_reaped = true;
            pr->sv_status = st;
            return s->ss_proc[i].sv_row->pt_name;
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
                    s->ss_proc[i].sv_row->pt_name, SVC_STOP_GRACE_MS / 1000);
            status = 1;
        } else if (!WIFEXITED(pr->sv_status) ||
                   WEXITSTATUS(pr->sv_status) != 0) {
            int st = pr->sv_status;
            fprintf(stderr, "strands-box: %s stopped with %s %d\n",
                    s->ss_proc[i].sv_row->pt_name,
                    WIFSIGNALED(st) ? "signal" : "status",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            status = 1;
        }
    }
    for (size_t i = 0; i < BOX_PROC_COUNT; i++)
        box_free(s->ss_proc[i].sv_url); // a row that failed to start too
    box_free(s->ss_gw_address);
    box_free(s);
    return status;
}
