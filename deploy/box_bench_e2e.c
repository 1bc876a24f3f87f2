/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench e2e`: shell calls through alias, broker and worker, each
 * figure next to /bin/bash running the same text in the same run. */
#include "box_bench.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "box.pb-c.h"
#include "box_agent.h"
#include "box_alloc.h"
#include "box_cmd.h"
#include "box_control.h"
#include "box_proctab.h"
#include "box_svc.h"

extern char **environ;

static const char e2e_usage[] =
    "usage: box bench e2e [--runs N] [--warmup N]\n"
    "\n"
    "Times shell calls through a real box (bin/sh, a copy of box-alias,\n"
    "to box-shell's broker, a fresh worker per call, box-pdp) next to\n"
    "/bin/bash running the same text with the real tools, interleaved in\n"
    "one run, on a permit-everything policy in a temporary directory:\n"
    "  sh -c true                       vs  /bin/bash -c true\n"
    "  sh -c 'cat f | grep x | wc -l'   vs  /bin/bash -c 'cat f | ...'\n"
    "A call is posix_spawn, its output drained from a pipe, waitpid.\n"
    "\n"
    "  --runs N     measured calls per figure (default 200)\n"
    "  --warmup N   calls per figure before measuring (default 20)\n";

#define E2E_RUNS_DEFAULT 200
#define E2E_WARMUP_DEFAULT 20
#define E2E_RUNS_MAX 100000
#define E2E_START_MS 10000     // a service starting to answer
#define E2E_CALL_MS 30000      // one call; longer is a failure
#define E2E_STOP_MS 5000       // SIGTERM, then SIGKILL
#define E2E_OUT_MAX 4096       // output kept from one call
#define E2E_LOG_MAX (4u << 20) // decision-log bytes one call may add
#define E2E_SETTLE_MS 300      // log unchanged this long: records are in
#define E2E_SETTLE_MAX_MS 5000
#define E2E_TAIL_MAX 800 // service output shown on a failure
#define E2E_FILE_LINES 1000
#define E2E_FILE_EVERY 5 // every fifth line of f holds an x
#define E2E_ACTIONS_MAX 8
#define E2E_PIPELINE "cat f | grep x | wc -l"
#define E2E_PERMIT_ALL "permit (principal, action, resource);\n"
#define E2E_BASH "/bin/bash"

/* ORDER E2E_CASE: the figures, in the order they print. */
enum e2e_case {
    E2E_BOX_TRUE,
    E2E_BASH_TRUE,
    E2E_BOX_PIPE,
    E2E_BASH_PIPE,
    E2E_NCASES
};

static const struct {
    const char *ek_label;
    bool ek_box;
    const char *ek_text;
} e2e_cases[E2E_NCASES] = {
    [E2E_BOX_TRUE] = {"box   sh -c true", true, "true"},
    [E2E_BASH_TRUE] = {"bash  /bin/bash -c true", false, "true"},
    [E2E_BOX_PIPE] = {"box   sh -c '" E2E_PIPELINE "'", true, E2E_PIPELINE},
    [E2E_BASH_PIPE] = {"bash  /bin/bash -c '" E2E_PIPELINE "'", false,
                       E2E_PIPELINE},
};

/*
 * One run of the bench: the temporary directory (short, for the 107-byte
 * socket paths) holds the box directory b/ laid out as box run lays it
 * out, the workspace w/ (outside the box directory, which the reach floor
 * keeps out of every command's reach) and the services' output. It owns
 * both services; e2e_teardown stops them and removes the directory.
 */
typedef struct e2e_ctx {
    char ec_tmp[32];  // /tmp/box-e2e-XXXXXX, or "" before mkdtemp
    char ec_dir[64];  // the box directory
    char ec_ws[64];   // the workspace, holding f
    char ec_sh[96];   // <dir>/bin/sh, the alias
    char ec_sock[96]; // <dir>/run/box.sock, the broker
    char ec_log[128]; // the decision log
    char ec_pdp_url[128];
    char ec_pub_url[128];
    char ec_policy[128];
    char ec_pdp_out[64];   // box-pdp's stdout and stderr
    char ec_shell_out[64]; // box-shell's
    pid_t ec_pdp;          // 0 when not running
    pid_t ec_shell;
} e2e_ctx;

/* Decisions one call added to the log. */
typedef struct e2e_tally {
    size_t et_total;
    size_t et_cached; // marked as answered from a permit cache
    size_t et_denied; // any verdict but permit
    size_t et_nact;
    struct {
        char ea_name[32];
        size_t ea_n;
    } et_act[E2E_ACTIONS_MAX];
} e2e_tally;

typedef struct e2e_stats {
    double es_med, es_p90, es_mean; // ms per call
} e2e_stats;

/* Prints `box bench: <msg>` on stderr; returns false. */
static bool e2e_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static bool
e2e_fail(const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("box bench: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return false;
}

static uint64_t
e2e_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

static bool
e2e_write_file(const char *path, const char *p, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return e2e_fail("cannot create %s: %s", path, strerror(errno));
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, p + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            return e2e_fail("cannot write %s: %s", path, strerror(e));
        }
        off += (size_t)w;
    }
    if (fchmod(fd, mode) != 0 || close(fd) != 0)
        return e2e_fail("cannot finish %s: %s", path, strerror(errno));
    return true;
}

/* The aliases in <dir>/bin, installed the way box run installs them. */
static bool
e2e_install_alias(const e2e_ctx *c, const char *bindir)
{
    bool refreshed;
    char *err = NULL;
    if (box_agent_install_aliases(bindir, c->ec_dir, &refreshed, &err) ==
        BOX_OK)
        return true;
    bool ok = e2e_fail("%s", err ? err : "out of memory");
    box_free(err);
    return ok;
}

/* The workspace file f: E2E_FILE_LINES lines, every E2E_FILE_EVERY-th
 * holding an x. Returns the number of such lines, or -1. */
static int
e2e_write_input(const e2e_ctx *c)
{
    char path[96];
    size_t cap = E2E_FILE_LINES * 48, n = 0;
    char *text = box_alloc(cap);
    int xs = 0;
    if (text == NULL) {
        e2e_fail("out of memory");
        return -1;
    }
    for (int i = 1; i <= E2E_FILE_LINES; i++) {
        bool x = i % E2E_FILE_EVERY == 0;
        n +=
            (size_t)snprintf(text + n, cap - n, "line %d of the bench file%s\n",
                             i, x ? " x" : "");
        xs += x;
    }
    snprintf(path, sizeof path, "%s/f", c->ec_ws);
    bool ok = e2e_write_file(path, text, n, 0644);
    box_free(text);
    return ok ? xs : -1;
}

/* The box this bench runs, as the process table sees it. */
static box_proctab_box
e2e_box(const e2e_ctx *c, const char *bindir)
{
    return (box_proctab_box){.pb_bindir = bindir,
                             .pb_box_dir = c->ec_dir,
                             .pb_policy = c->ec_policy,
                             .pb_workspace = c->ec_ws};
}

/* The table's value v for our box into out (n bytes). */
static bool
e2e_table_value(const e2e_ctx *c, box_proctab_pv v, char *out, size_t n)
{
    box_proctab_box b = e2e_box(c, NULL);
    char *val = NULL;
    if (box_proctab_value(v, &b, &val) != BOX_OK || val == NULL)
        return e2e_fail("out of memory");
    int k = snprintf(out, n, "%s", val);
    box_free(val);
    return k > 0 && (size_t)k < n ? true : e2e_fail("a path is too long");
}

/* Lays out the temporary directory; fills every path in c. */
static bool
e2e_layout(e2e_ctx *c, const char *bindir)
{
    snprintf(c->ec_tmp, sizeof c->ec_tmp, "/tmp/box-e2e-XXXXXX");
    if (mkdtemp(c->ec_tmp) == NULL) {
        c->ec_tmp[0] = '\0';
        return e2e_fail("mkdtemp: %s", strerror(errno));
    }
    snprintf(c->ec_dir, sizeof c->ec_dir, "%s/b", c->ec_tmp);
    snprintf(c->ec_ws, sizeof c->ec_ws, "%s/w", c->ec_tmp);
    snprintf(c->ec_sh, sizeof c->ec_sh, "%s/bin/sh", c->ec_dir);
    snprintf(c->ec_sock, sizeof c->ec_sock, "%s/run/box.sock", c->ec_dir);
    // The services' places in the box directory are the process table's.
    if (!e2e_table_value(c, BOX_PV_DECISION_LOG, c->ec_log, sizeof c->ec_log) ||
        !e2e_table_value(c, BOX_PV_PDP_URL, c->ec_pdp_url,
                         sizeof c->ec_pdp_url) ||
        !e2e_table_value(c, BOX_PV_EPOCH_URL, c->ec_pub_url,
                         sizeof c->ec_pub_url))
        return false;
    snprintf(c->ec_policy, sizeof c->ec_policy, "%s/private/policy.dw",
             c->ec_dir);
    snprintf(c->ec_pdp_out, sizeof c->ec_pdp_out, "%s/box-pdp.out", c->ec_tmp);
    snprintf(c->ec_shell_out, sizeof c->ec_shell_out, "%s/box-shell.out",
             c->ec_tmp);
    static const char *const dirs[] = {
        "b", "b/bin", "b/run", "b/private", "b/private/telemetry", "w"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char p[64];
        snprintf(p, sizeof p, "%s/%s", c->ec_tmp, dirs[i]);
        if (mkdir(p, 0700) != 0)
            return e2e_fail("mkdir %s: %s", p, strerror(errno));
    }
    return e2e_install_alias(c, bindir) &&
           e2e_write_file(c->ec_policy, E2E_PERMIT_ALL,
                          sizeof E2E_PERMIT_ALL - 1, 0600);
}

/* ------------------------------------------------------------------ */
/* Services                                                            */
/* ------------------------------------------------------------------ */

/* Prints the end of a service's output under a failure message. */
static void
e2e_tail(const char *path)
{
    char buf[E2E_TAIL_MAX + 1];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end > E2E_TAIL_MAX ? end - E2E_TAIL_MAX : 0;
    ssize_t n = pread(fd, buf, E2E_TAIL_MAX, from);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    fprintf(stderr, "box bench: last output of %s:\n%s%s", path, buf,
            buf[n - 1] == '\n' ? "" : "\n");
}

/* Starts a service (a row of the process table, with its command line for
 * box b and its names of our environment) with a clean signal state,
 * stdin from /dev/null, its stdout and stderr appended to out_path. */
static bool
e2e_start(box_proctab_id id, const box_proctab_box *b, const char *out_path,
          pid_t *pid)
{
    box_argv av = {0}, env = {0};
    const box_proctab_row *row = box_proctab_get(id);
    *pid = 0;
    if (box_proctab_argv(row, b, &av) != BOX_OK ||
        box_proctab_env(row, environ, &env) != BOX_OK) {
        box_argv_free(&av);
        box_argv_free(&env);
        return e2e_fail("cannot start %s: out of memory", row->pt_name);
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path,
                                     O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    // Tied: a bench killed outright takes its services along.
    int rv = box_svc_spawn(pid, av.av_v[0], &fa, av.av_v,
                           box_proctab_envp(&env), BOX_SPAWN_TIED);
    posix_spawn_file_actions_destroy(&fa);
    bool ok =
        rv == 0 || e2e_fail("cannot start %s: %s", av.av_v[0], strerror(rv));
    if (rv != 0)
        *pid = 0;
    box_argv_free(&av);
    box_argv_free(&env);
    return ok;
}

/* False (and *pid = 0, reaped) when the service has exited. */
static bool
e2e_alive(pid_t *pid)
{
    int st;
    if (*pid > 0 && waitpid(*pid, &st, WNOHANG) == *pid)
        *pid = 0;
    return *pid > 0;
}

/* SIGTERM, then SIGKILL after E2E_STOP_MS. True when it exited 0. */
static bool
e2e_stop(pid_t *pid, const char *name)
{
    int st = 0;
    if (*pid <= 0)
        return true;
    kill(*pid, SIGTERM);
    uint64_t end = box_svc_now_ms() + E2E_STOP_MS;
    pid_t r;
    while ((r = waitpid(*pid, &st, WNOHANG)) == 0 && box_svc_now_ms() < end)
        usleep(5000);
    if (r == 0) {
        kill(*pid, SIGKILL);
        waitpid(*pid, &st, 0);
        *pid = 0;
        return e2e_fail("%s did not stop within %d ms of SIGTERM", name,
                        E2E_STOP_MS);
    }
    *pid = 0;
    if (r < 0)
        return e2e_fail("waitpid %s: %s", name, strerror(errno));
    if (WIFSIGNALED(st))
        return e2e_fail("%s was ended by signal %d", name, WTERMSIG(st));
    if (WEXITSTATUS(st) != 0)
        return e2e_fail("%s exited with status %d", name, WEXITSTATUS(st));
    return true;
}

static bool
e2e_sock_answers(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    bool ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd); // the broker takes an idle close quietly
    return ok;
}

/* box-pdp, then box-shell, each once it answers: the PDP its health
 * request, the broker a connection on run/box.sock. */
static bool
e2e_services(e2e_ctx *c, const char *bindir)
{
    box_proctab_box b = e2e_box(c, bindir);
    if (!e2e_start(BOX_PROC_PDP, &b, c->ec_pdp_out, &c->ec_pdp))
        return false;
    Box__HealthResponse *h = NULL;
    for (uint64_t end = box_svc_now_ms() + E2E_START_MS;
         h == NULL && box_svc_now_ms() < end && e2e_alive(&c->ec_pdp);)
        if (box_pdp_health(c->ec_pdp_url, 200, &h) != BOX_OK)
            usleep(20000);
    if (h == NULL) {
        e2e_fail("box-pdp %s at %s",
                 c->ec_pdp > 0 ? "did not answer" : "exited before answering",
                 c->ec_pdp_url);
        e2e_tail(c->ec_pdp_out);
        return false;
    }
    box__health_response__free_unpacked(h, NULL);

    if (!e2e_start(BOX_PROC_SHELL, &b, c->ec_shell_out, &c->ec_shell))
        return false;
    bool up = false;
    for (uint64_t end = box_svc_now_ms() + E2E_START_MS;
         !up && box_svc_now_ms() < end && e2e_alive(&c->ec_shell);) {
        if (!(up = e2e_sock_answers(c->ec_sock)))
            usleep(10000);
    }
    if (!up) {
        e2e_fail("box-shell %s on %s",
                 c->ec_shell > 0 ? "did not start serving"
                                 : "exited before serving",
                 c->ec_sock);
        e2e_tail(c->ec_shell_out);
        return false;
    }
    return true;
}

static int
e2e_rm_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st;
    (void)type;
    (void)f;
    if (remove(path) != 0 && errno != ENOENT)
        fprintf(stderr, "box bench: cannot remove %s: %s\n", path,
                strerror(errno));
    return 0;
}

/* Stops both services (box-shell first: it talks to the PDP) and removes
 * the temporary directory. False when a service did not stop cleanly. */
static bool
e2e_teardown(e2e_ctx *c)
{
    bool ok = e2e_stop(&c->ec_shell, "box-shell");
    if (!e2e_stop(&c->ec_pdp, "box-pdp"))
        ok = false;
    if (c->ec_tmp[0] != '\0' && strncmp(c->ec_tmp, "/tmp/box-e2e-", 13) == 0)
        nftw(c->ec_tmp, e2e_rm_one, 16, FTW_DEPTH | FTW_PHYS);
    return ok;
}

/* ------------------------------------------------------------------ */
/* Calls                                                               */
/* ------------------------------------------------------------------ */

/*
 * One call of case k: posix_spawn of the alias or of bash with -c TEXT,
 * cwd the workspace, stdin /dev/null, stdout and stderr into one pipe
 * drained to end of file, then waitpid. *ns is spawn to reap. Up to
 * outn - 1 bytes of the output land in out (NUL-terminated) when out is
 * not NULL. A call that is not done in E2E_CALL_MS is killed and fails.
 */
static bool
e2e_call(const e2e_ctx *c, enum e2e_case k, uint64_t *ns, int *wstatus,
         char *out, size_t outn)
{
    int pfd[2];
    posix_spawn_file_actions_t fa;
    const char *path = e2e_cases[k].ek_box ? c->ec_sh : E2E_BASH;
    char *argv[] = {e2e_cases[k].ek_box ? "sh" : "bash", "-c",
                    (char *)e2e_cases[k].ek_text, NULL};
    size_t kept = 0;
    bool ok = true;

    if (pipe2(pfd, O_CLOEXEC) != 0)
        return e2e_fail("pipe: %s", strerror(errno));
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
    posix_spawn_file_actions_addchdir_np(&fa, c->ec_ws);

    pid_t pid;
    uint64_t t0 = e2e_now_ns();
    int rv = box_svc_spawn(&pid, path, &fa, argv, environ, 0);
    close(pfd[1]);
    posix_spawn_file_actions_destroy(&fa);
    if (rv != 0) {
        close(pfd[0]);
        return e2e_fail("cannot run %s: %s", path, strerror(rv));
    }
    uint64_t end_ms = box_svc_now_ms() + E2E_CALL_MS;
    for (;;) {
        char buf[E2E_OUT_MAX];
        uint64_t now = box_svc_now_ms();
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        int pr = now < end_ms ? poll(&p, 1, (int)(end_ms - now)) : 0;
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0) {
            ok = e2e_fail("%s -c '%s' %s", path, e2e_cases[k].ek_text,
                          pr == 0 ? "did not finish in time; killed"
                                  : "cannot be read");
            kill(pid, SIGKILL);
            break;
        }
        ssize_t r = read(pfd[0], buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (out != NULL && kept + 1 < outn) {
            size_t take =
                (size_t)r < outn - 1 - kept ? (size_t)r : outn - 1 - kept;
            memcpy(out + kept, buf, take);
            kept += take;
        }
    }
    while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
        ;
    *ns = e2e_now_ns() - t0;
    close(pfd[0]);
    if (out != NULL)
        out[kept] = '\0';
    return ok;
}

/* A call that must exit 0; its output is kept in out when given. */
static bool
e2e_call_ok(const e2e_ctx *c, enum e2e_case k, uint64_t *ns, char *out,
            size_t outn)
{
    char mine[E2E_OUT_MAX];
    int st = 0;
    if (out == NULL) {
        out = mine;
        outn = sizeof mine;
    }
    if (!e2e_call(c, k, ns, &st, out, outn))
        return false;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return true;
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '\n')
        n--;
    e2e_fail("%s -c '%s' failed (%s %d); it printed: %.*s",
             e2e_cases[k].ek_box ? c->ec_sh : E2E_BASH, e2e_cases[k].ek_text,
             WIFEXITED(st) ? "exit" : "signal",
             WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
             (int)(n < 600 ? n : 600), out);
    if (e2e_cases[k].ek_box)
        e2e_tail(c->ec_shell_out);
    return false;
}

/* ------------------------------------------------------------------ */
/* The decision log                                                    */
/* ------------------------------------------------------------------ */

/* The log's size once it has stopped growing: decisions answered from a
 * cache reach the PDP's log after the call has returned. */
static bool
e2e_log_settle(const e2e_ctx *c, off_t *size)
{
    struct stat st;
    off_t last = -1;
    uint64_t still = box_svc_now_ms(), end = still + E2E_SETTLE_MAX_MS;
    for (;;) {
        off_t now = stat(c->ec_log, &st) == 0 ? st.st_size : 0;
        uint64_t t = box_svc_now_ms();
        if (now != last) {
            last = now;
            still = t;
        } else if (t - still >= E2E_SETTLE_MS) {
            *size = now;
            return true;
        }
        if (t >= end)
            return e2e_fail("the decision log %s kept growing", c->ec_log);
        usleep(10000);
    }
}

/* The string or boolean value of one OTLP attribute, by key. */
static json_object *
e2e_attr(json_object *attrs, const char *key, const char *kind)
{
    for (size_t i = 0; i < json_object_array_length(attrs); i++) {
        json_object *a = json_object_array_get_idx(attrs, i), *k, *v, *sv;
        if (json_object_object_get_ex(a, "key", &k) &&
            strcmp(json_object_get_string(k), key) == 0 &&
            json_object_object_get_ex(a, "value", &v) &&
            json_object_object_get_ex(v, kind, &sv))
            return sv;
    }
    return NULL;
}

static void
e2e_tally_record(json_object *lr, e2e_tally *t)
{
    json_object *ev, *attrs;
    if (!json_object_object_get_ex(lr, "eventName", &ev) ||
        strcmp(json_object_get_string(ev), "strands.box.policy.decision") !=
            0 ||
        !json_object_object_get_ex(lr, "attributes", &attrs) ||
        !json_object_is_type(attrs, json_type_array))
        return;
    json_object *act =
        e2e_attr(attrs, "strands.box.policy.action", "stringValue");
    json_object *verdict =
        e2e_attr(attrs, "strands.box.policy.verdict", "stringValue");
    json_object *cached =
        e2e_attr(attrs, "strands.box.policy.cached", "boolValue");
    const char *name = act ? json_object_get_string(act) : "(no action)";
    t->et_total++;
    t->et_cached += cached != NULL && json_object_get_boolean(cached);
    t->et_denied += verdict == NULL ||
                    strcmp(json_object_get_string(verdict), "permit") != 0;
    size_t i = 0;
    while (i < t->et_nact && strcmp(t->et_act[i].ea_name, name) != 0)
        i++;
    if (i == E2E_ACTIONS_MAX) {
        // More kinds than a pipeline asks: the last slot becomes "other".
        i--;
        snprintf(t->et_act[i].ea_name, sizeof t->et_act[i].ea_name, "other");
    } else if (i == t->et_nact) {
        t->et_nact++;
        snprintf(t->et_act[i].ea_name, sizeof t->et_act[i].ea_name, "%s", name);
    }
    t->et_act[i].ea_n++;
}

/* Tallies the decision records in the log between offsets from and to. */
static bool
e2e_log_tally(const e2e_ctx *c, off_t from, off_t to, e2e_tally *t)
{
    size_t n = (size_t)(to - from);
    bool ok = false;
    char *text = NULL;
    json_tokener *tok = NULL;
    int fd = open(c->ec_log, O_RDONLY | O_CLOEXEC);

    memset(t, 0, sizeof *t);
    if (to < from || n > E2E_LOG_MAX) {
        e2e_fail("one call added %lld bytes to the decision log",
                 (long long)(to - from));
        goto out;
    }
    if (fd < 0 || (text = box_alloc(n + 1)) == NULL ||
        (tok = json_tokener_new()) == NULL ||
        pread(fd, text, n, from) != (ssize_t)n) {
        e2e_fail("cannot read the decision log %s", c->ec_log);
        goto out;
    }
    text[n] = '\0';
    for (char *line = text, *nl; *line != '\0'; line = nl + 1) {
        if ((nl = strchr(line, '\n')) == NULL) {
            e2e_fail("the decision log ends in a partial record");
            goto out;
        }
        json_tokener_reset(tok);
        json_object *root = json_tokener_parse_ex(tok, line, (int)(nl - line));
        json_object *rls, *sls, *lrs;
        if (root == NULL) {
            e2e_fail("a decision-log record is not JSON: %.80s", line);
            goto out;
        }
        if (json_object_object_get_ex(root, "resourceLogs", &rls))
            for (size_t i = 0; i < json_object_array_length(rls); i++)
                if (json_object_object_get_ex(json_object_array_get_idx(rls, i),
                                              "scopeLogs", &sls))
                    for (size_t j = 0; j < json_object_array_length(sls); j++)
                        if (json_object_object_get_ex(
                                json_object_array_get_idx(sls, j), "logRecords",
                                &lrs))
                            for (size_t k = 0;
                                 k < json_object_array_length(lrs); k++)
                                e2e_tally_record(
                                    json_object_array_get_idx(lrs, k), t);
        json_object_put(root);
    }
    ok = true;
out:
    if (tok != NULL)
        json_tokener_free(tok);
    box_free(text);
    if (fd >= 0)
        close(fd);
    return ok;
}

/* One call of case k (a box case), counted in the decision log. */
static bool
e2e_decisions(const e2e_ctx *c, enum e2e_case k, e2e_tally *t)
{
    off_t before = 0, after = 0; // set by e2e_log_settle when it succeeds
    uint64_t ns;
    return e2e_log_settle(c, &before) && e2e_call_ok(c, k, &ns, NULL, 0) &&
           e2e_log_settle(c, &after) && e2e_log_tally(c, before, after, t);
}

/* ------------------------------------------------------------------ */
/* Figures                                                             */
/* ------------------------------------------------------------------ */

static int
e2e_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static e2e_stats
e2e_stats_of(uint64_t *s, size_t n)
{
    double sum = 0;
    qsort(s, n, sizeof *s, e2e_cmp_u64);
    for (size_t i = 0; i < n; i++)
        sum += (double)s[i];
    return (e2e_stats){.es_med = (double)s[n / 2] / 1e6,
                       .es_p90 = (double)s[(n * 90) / 100] / 1e6,
                       .es_mean = sum / (double)n / 1e6};
}

/* "shell:exec 3, fs:read 1" */
static void
e2e_tally_text(const e2e_tally *t, char *buf, size_t n)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < t->et_nact && off < n; i++)
        off +=
            (size_t)snprintf(buf + off, n - off, "%s%s %zu", i > 0 ? ", " : "",
                             t->et_act[i].ea_name, t->et_act[i].ea_n);
}

static void
e2e_print_decisions(const char *what, const e2e_tally *t)
{
    char acts[256];
    e2e_tally_text(t, acts, sizeof acts);
    printf("  %-12s %zu (%s), %zu of them from the permit cache%s\n", what,
           t->et_total, acts, t->et_cached,
           t->et_denied > 0 ? "; SOME WERE DENIED" : "");
}

static void
e2e_print_ratio(const char *what, const e2e_stats *box, const e2e_stats *bash)
{
    double med = box->es_med / bash->es_med;
    printf("%-44s %8.2f× %8.2f× %8.2f×\n", what, med,
           box->es_p90 / bash->es_p90, box->es_mean / bash->es_mean);
    printf("  %.2f times bash at the median: %s\n", med,
           med < 1 ? "faster" : "not faster");
}

static void
e2e_print(const e2e_stats *st, const e2e_tally *t_true, const e2e_tally *t_pipe,
          const char *count, int runs, int warmup, int xs)
{
    printf("\nbox bench e2e · %d calls per figure after %d warm-up, "
           "interleaved · f: %d lines, %d with x\n\n",
           runs, warmup, E2E_FILE_LINES, xs);
    printf("%-44s %9s %9s %9s\n", "per call, ms", "median", "p90", "mean");
    for (int k = 0; k < E2E_NCASES; k++)
        printf("%-44s %9.3f %9.3f %9.3f\n", e2e_cases[k].ek_label, st[k].es_med,
               st[k].es_p90, st[k].es_mean);
    printf("\n%-44s %9s %9s %9s\n", "box / bash", "median", "p90", "mean");
    e2e_print_ratio("sh -c true", &st[E2E_BOX_TRUE], &st[E2E_BASH_TRUE]);
    e2e_print_ratio("sh -c '" E2E_PIPELINE "'", &st[E2E_BOX_PIPE],
                    &st[E2E_BASH_PIPE]);
    printf("goal: faster than bash · sh -c true %s · pipeline %s\n",
           st[E2E_BOX_TRUE].es_med < st[E2E_BASH_TRUE].es_med ? "meets"
                                                              : "misses",
           st[E2E_BOX_PIPE].es_med < st[E2E_BASH_PIPE].es_med ? "meets"
                                                              : "misses");

    printf("\na box call: b/bin/sh (box-alias) → box-shell's broker → a "
           "fresh worker\nprocess per call → box-pdp, on a "
           "permit-everything policy; bash runs the\nreal cat, grep and wc."
           " Decisions per box call (one call each after the\nwarm-up, "
           "counted in the decision log):\n");
    e2e_print_decisions("sh -c true:", t_true);
    e2e_print_decisions("pipeline:", t_pipe);
    if (t_true->et_cached + t_pipe->et_cached == 0)
        printf("  none came from a cache: the permit cache does not outlive "
               "a call (each\n  worker has its own PDP client)\n");
    else
        printf("  cached answers in a fresh worker: the permit cache "
               "outlives the call\n  (the box-shell broker keeps it); the "
               "PDP still logs each decision\n");
    printf("output: box and bash both print %s for the pipeline\n", count);
}

/* ------------------------------------------------------------------ */
/* The verb                                                            */
/* ------------------------------------------------------------------ */

static int
e2e_run(int runs, int warmup)
{
    e2e_ctx c = {0};
    char bindir[4096];
    uint64_t *samples[E2E_NCASES] = {0};
    e2e_stats st[E2E_NCASES];
    e2e_tally t_true, t_pipe;
    char out_box[E2E_OUT_MAX], out_bash[E2E_OUT_MAX], count[64];
    uint64_t ns;
    bool ok = false;
    int xs;

    if (box_cmd_self_dir(bindir, sizeof bindir) == NULL) {
        e2e_fail("cannot find this program's directory (box-pdp, "
                 "box-shell and box-alias live beside it)");
        goto out;
    }
    if (access(E2E_BASH, X_OK) != 0) {
        e2e_fail("%s is needed as the peer: %s", E2E_BASH, strerror(errno));
        goto out;
    }
    for (int k = 0; k < E2E_NCASES; k++)
        if ((samples[k] = box_calloc((size_t)runs, sizeof *samples[k])) ==
            NULL) {
            e2e_fail("out of memory");
            goto out;
        }
    if (!e2e_layout(&c, bindir) || (xs = e2e_write_input(&c)) < 0 ||
        !e2e_services(&c, bindir))
        goto out;
    printf("box bench e2e: box %s, workspace %s\n", c.ec_dir, c.ec_ws);
    fflush(stdout);

    // Same answer from both, once, before any figure counts.
    for (int k = E2E_BOX_TRUE; k <= E2E_BOX_PIPE; k += 2) {
        if (!e2e_call_ok(&c, (enum e2e_case)k, &ns, out_box, sizeof out_box) ||
            !e2e_call_ok(&c, (enum e2e_case)(k + 1), &ns, out_bash,
                         sizeof out_bash))
            goto out;
        if (strcmp(out_box, out_bash) != 0) {
            e2e_fail("the box and bash differ on '%s': box printed \"%s\", "
                     "bash \"%s\"; no figures for different work",
                     e2e_cases[k].ek_text, out_box, out_bash);
            goto out;
        }
    }
    snprintf(count, sizeof count, "\"%.*s\"", (int)strcspn(out_box, "\n"),
             out_box);

    // Warm-up, then the measured runs, interleaved, starting each run at
    // the next case so no figure always follows the same one.
    for (int i = 0; i < warmup; i++)
        for (int k = 0; k < E2E_NCASES; k++)
            if (!e2e_call_ok(&c, (enum e2e_case)k, &ns, NULL, 0))
                goto out;
    if (!e2e_decisions(&c, E2E_BOX_TRUE, &t_true) ||
        !e2e_decisions(&c, E2E_BOX_PIPE, &t_pipe))
        goto out;
    printf("  warm: %d calls per figure; measuring %d\n", warmup, runs);
    fflush(stdout);
    for (int i = 0; i < runs; i++)
        for (int j = 0; j < E2E_NCASES; j++) {
            int k = (i + j) % E2E_NCASES;
            if (!e2e_call_ok(&c, (enum e2e_case)k, &samples[k][i], NULL, 0))
                goto out;
        }
    for (int k = 0; k < E2E_NCASES; k++)
        st[k] = e2e_stats_of(samples[k], (size_t)runs);
    e2e_print(st, &t_true, &t_pipe, count, runs, warmup, xs);
    ok = true;
out:
    if (!e2e_teardown(&c))
        ok = false;
    for (int k = 0; k < E2E_NCASES; k++)
        box_free(samples[k]);
    return ok ? 0 : 1;
}

int
box_bench_e2e(int argc, char **argv)
{
    static const struct option opts[] = {
        {"runs", required_argument, NULL, 'r'},
        {"warmup", required_argument, NULL, 'w'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int runs = E2E_RUNS_DEFAULT, warmup = E2E_WARMUP_DEFAULT, ch;

    optind = 1;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        char *endp;
        long v;
        switch (ch) {
        case 'r':
        case 'w':
            errno = 0;
            v = strtol(optarg, &endp, 10);
            if (*endp != '\0' || errno != 0 || v < (ch == 'r') ||
                v > E2E_RUNS_MAX) {
                e2e_fail("--%s takes %d to %d", ch == 'r' ? "runs" : "warmup",
                         ch == 'r', E2E_RUNS_MAX);
                return 2;
            }
            *(ch == 'r' ? &runs : &warmup) = (int)v;
            break;
        case 'h':
            fputs(e2e_usage, stdout);
            return 0;
        default:
            fputs(e2e_usage, stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fputs(e2e_usage, stderr);
        return 2;
    }
    return e2e_run(runs, warmup);
}
