/* SPDX-License-Identifier: Apache-2.0 */
/* A real box for the shell benchmarks: services from the process table in
 * a temporary directory, calls through its alias or a peer, and the
 * decisions a call added to the log (box_bench_box.h). */
#include "box_bench_box.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
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
#include "box_control.h"
#include "box_proctab.h"
#include "box_svc.h"

extern char **environ;

// A service starting to answer. A liveness bound, not a measure: the
// tests' services start in milliseconds, but under ASan on a loaded
// 2-core machine one was seen silent for 10 s; the tests give 60 s.
#define BB_STOP_MS 5000       // SIGTERM, then SIGKILL
#define BB_LOG_MAX (4u << 20) // decision-log bytes one call may add
#define BB_SETTLE_MS 300      // log unchanged this long: records are in
#define BB_SETTLE_MAX_MS 5000
#define BB_TAIL_MAX 800 // service output shown on a failure
#define BB_PERMIT_ALL "permit (principal, action, resource);\n"

/* Prints `box bench: <msg>` on stderr; returns false. */
bool
bb_fail(const char *fmt, ...)
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

uint64_t
bb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* N of --runs or --warmup: lo..hi, else a message. */
static bool
bb_int_opt(const char *name, const char *arg, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
        return bb_fail("--%s takes %d to %d", name, lo, hi);
    *out = (int)v;
    return true;
}

int
bb_parse_opts(int argc, char **argv, const char *usage, unsigned which,
              int max, bb_opts *o)
{
    static const struct option all[] = {
        {"runs", required_argument, NULL, 'r'},
        {"warmup", required_argument, NULL, 'w'},
        {"only", required_argument, NULL, 'o'},
        {"dir", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", all, NULL)) != -1) {
        bool ok = true, taken = ch == 'r' || ch == 'h' ||
                                (ch == 'w' && (which & BB_OPT_WARMUP)) ||
                                (ch == 'o' && (which & BB_OPT_ONLY)) ||
                                (ch == 'd' && (which & BB_OPT_DIR));
        if (!taken) {
            fputs(usage, stderr);
            return 2;
        }
        switch (ch) {
        case 'r': ok = bb_int_opt("runs", optarg, 1, max, &o->bo_runs); break;
        case 'w': ok = bb_int_opt("warmup", optarg, 0, max, &o->bo_warmup); break;
        case 'o': o->bo_only = optarg; break;
        case 'd': o->bo_dir = optarg; break;
        default: fputs(usage, stdout); return 0;
        }
        if (!ok)
            return 2;
    }
    if (optind != argc) {
        fputs(usage, stderr);
        return 2;
    }
    return -1;
}

static int
bb_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void
bb_sort_ns(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, bb_cmp_u64);
}

uint64_t
bb_median_ns(uint64_t *v, size_t n)
{
    bb_sort_ns(v, n);
    return v[n / 2];
}

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

bool
bb_write_file(const char *path, const char *p, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return bb_fail("cannot create %s: %s", path, strerror(errno));
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, p + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            return bb_fail("cannot write %s: %s", path, strerror(e));
        }
        off += (size_t)w;
    }
    if (fchmod(fd, mode) != 0 || close(fd) != 0)
        return bb_fail("cannot finish %s: %s", path, strerror(errno));
    return true;
}

/* The aliases in <dir>/bin, installed the way box run installs them. */
static bool
bb_install_alias(const bb_box *c, const char *bindir)
{
    bool refreshed;
    char *err = NULL;
    if (box_agent_install_aliases(bindir, c->bb_dir, &refreshed, &err) ==
        BOX_OK)
        return true;
    bool ok = bb_fail("%s", err ? err : "out of memory");
    box_free(err);
    return ok;
}

/* The box, as the process table sees it. */
static box_proctab_box
bb_table_box(const bb_box *c, const char *bindir)
{
    return (box_proctab_box){.pb_bindir = bindir,
                             .pb_box_dir = c->bb_dir,
                             .pb_policy = c->bb_policy,
                             .pb_workspace = c->bb_ws};
}

/* The table's value v for our box into out (n bytes). */
static bool
bb_table_value(const bb_box *c, box_proctab_pv v, char *out, size_t n)
{
    box_proctab_box b = bb_table_box(c, NULL);
    char *val = NULL;
    if (box_proctab_value(v, &b, &val) != BOX_OK || val == NULL)
        return bb_fail("out of memory");
    int k = snprintf(out, n, "%s", val);
    box_free(val);
    return k > 0 && (size_t)k < n ? true : bb_fail("a path is too long");
}

/* Lays out the temporary directory; fills every path in c. */
static bool
bb_layout(bb_box *c, const char *bindir)
{
    snprintf(c->bb_tmp, sizeof c->bb_tmp, "/tmp/box-bench-XXXXXX");
    if (mkdtemp(c->bb_tmp) == NULL) {
        c->bb_tmp[0] = '\0';
        return bb_fail("mkdtemp: %s", strerror(errno));
    }
    snprintf(c->bb_dir, sizeof c->bb_dir, "%s/b", c->bb_tmp);
    snprintf(c->bb_ws, sizeof c->bb_ws, "%s/w", c->bb_tmp);
    snprintf(c->bb_sh, sizeof c->bb_sh, "%s/bin/sh", c->bb_dir);
    snprintf(c->bb_sock, sizeof c->bb_sock, "%s/run/box.sock", c->bb_dir);
    // The services' places in the box directory are the process table's.
    if (!bb_table_value(c, BOX_PV_DECISION_LOG, c->bb_log, sizeof c->bb_log) ||
        !bb_table_value(c, BOX_PV_PDP_URL, c->bb_pdp_url,
                        sizeof c->bb_pdp_url) ||
        !bb_table_value(c, BOX_PV_EPOCH_URL, c->bb_pub_url,
                        sizeof c->bb_pub_url))
        return false;
    snprintf(c->bb_policy, sizeof c->bb_policy, "%s/private/policy.dw",
             c->bb_dir);
    snprintf(c->bb_pdp_out, sizeof c->bb_pdp_out, "%s/box-pdp.out", c->bb_tmp);
    snprintf(c->bb_shell_out, sizeof c->bb_shell_out, "%s/box-shell.out",
             c->bb_tmp);
    static const char *const dirs[] = {
        "b",         "b/bin", "b/run", "b/private", "b/private/telemetry",
        "b/private/history", "w"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char p[64];
        snprintf(p, sizeof p, "%s/%s", c->bb_tmp, dirs[i]);
        if (mkdir(p, 0700) != 0)
            return bb_fail("mkdir %s: %s", p, strerror(errno));
    }
    return bb_install_alias(c, bindir) &&
           bb_write_file(c->bb_policy, BB_PERMIT_ALL, sizeof BB_PERMIT_ALL - 1,
                         0600);
}

/* ------------------------------------------------------------------ */
/* Services                                                            */
/* ------------------------------------------------------------------ */

void
bb_tail(const char *path)
{
    char buf[BB_TAIL_MAX + 1];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    off_t end = lseek(fd, 0, SEEK_END);
    off_t from = end > BB_TAIL_MAX ? end - BB_TAIL_MAX : 0;
    ssize_t n = pread(fd, buf, BB_TAIL_MAX, from);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    fprintf(stderr, "box bench: last output of %s:\n%s%s", path, buf,
            buf[n - 1] == '\n' ? "" : "\n");
}

bool
bb_start(box_proctab_id id, const box_proctab_box *b,
         const char *const *extra, const char *out_path, pid_t *pid)
{
    box_argv av = {0}, env = {0};
    const box_proctab_row *row = box_proctab_get(id);
    bool mem = true;
    *pid = 0;
    if (box_proctab_argv(row, b, &av) != BOX_OK ||
        box_proctab_env(row, environ, &env) != BOX_OK)
        mem = false;
    for (size_t i = 0; mem && extra != NULL && extra[i] != NULL; i++)
        mem = box_argv_push(&av, extra[i]) == BOX_OK;
    if (!mem) {
        box_argv_free(&av);
        box_argv_free(&env);
        return bb_fail("cannot start %s: out of memory", row->pt_name);
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
        rv == 0 || bb_fail("cannot start %s: %s", av.av_v[0], strerror(rv));
    if (rv != 0)
        *pid = 0;
    box_argv_free(&av);
    box_argv_free(&env);
    return ok;
}

bool
bb_alive(pid_t *pid)
{
    int st;
    if (*pid > 0 && waitpid(*pid, &st, WNOHANG) == *pid)
        *pid = 0;
    return *pid > 0;
}

bool
bb_stop(pid_t *pid, const char *name)
{
    int st = 0;
    if (*pid <= 0)
        return true;
    kill(*pid, SIGTERM);
    uint64_t end = box_svc_now_ms() + BB_STOP_MS;
    pid_t r;
    while ((r = waitpid(*pid, &st, WNOHANG)) == 0 && box_svc_now_ms() < end)
        usleep(5000);
    if (r == 0) {
        kill(*pid, SIGKILL);
        waitpid(*pid, &st, 0);
        *pid = 0;
        return bb_fail("%s did not stop within %d ms of SIGTERM", name,
                       BB_STOP_MS);
    }
    *pid = 0;
    if (r < 0)
        return bb_fail("waitpid %s: %s", name, strerror(errno));
    if (WIFSIGNALED(st))
        return bb_fail("%s was ended by signal %d", name, WTERMSIG(st));
    if (WEXITSTATUS(st) != 0)
        return bb_fail("%s exited with status %d", name, WEXITSTATUS(st));
    return true;
}

static bool
bb_sock_answers(const char *path)
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
bb_services(bb_box *c, const char *bindir)
{
    box_proctab_box b = bb_table_box(c, bindir);
    if (!bb_start(BOX_PROC_PDP, &b, NULL, c->bb_pdp_out, &c->bb_pdp))
        return false;
    Box__HealthResponse *h = NULL;
    for (uint64_t end = box_svc_now_ms() + BB_START_MS;
         h == NULL && box_svc_now_ms() < end && bb_alive(&c->bb_pdp);)
        if (box_pdp_health(c->bb_pdp_url, 200, &h) != BOX_OK)
            usleep(20000);
    if (h == NULL) {
        if (c->bb_pdp > 0)
            bb_fail("box-pdp did not answer at %s within %d ms",
                    c->bb_pdp_url, BB_START_MS);
        else
            bb_fail("box-pdp exited before answering at %s", c->bb_pdp_url);
        bb_tail(c->bb_pdp_out);
        return false;
    }
    box__health_response__free_unpacked(h, NULL);

    if (!bb_start(BOX_PROC_SHELL, &b, NULL, c->bb_shell_out, &c->bb_shell))
        return false;
    bool up = false;
    for (uint64_t end = box_svc_now_ms() + BB_START_MS;
         !up && box_svc_now_ms() < end && bb_alive(&c->bb_shell);) {
        if (!(up = bb_sock_answers(c->bb_sock)))
            usleep(10000);
    }
    if (!up) {
        bb_fail("box-shell %s on %s",
                c->bb_shell > 0 ? "did not start serving"
                                : "exited before serving",
                c->bb_sock);
        bb_tail(c->bb_shell_out);
        return false;
    }
    return true;
}

static int
bb_rm_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st;
    (void)type;
    (void)f;
    if (remove(path) != 0 && errno != ENOENT)
        fprintf(stderr, "box bench: cannot remove %s: %s\n", path,
                strerror(errno));
    return 0;
}

bool
bb_close(bb_box *c)
{
    bool ok = bb_stop(&c->bb_shell, "box-shell");
    if (!bb_stop(&c->bb_pdp, "box-pdp"))
        ok = false;
    bb_rmtree(c->bb_tmp);
    return ok;
}

void
bb_rmtree(const char *tmp)
{
    if (strncmp(tmp, "/tmp/box-bench-", 15) == 0)
        nftw(tmp, bb_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ------------------------------------------------------------------ */
/* Calls                                                               */
/* ------------------------------------------------------------------ */

/* The call's text for messages: its last argument (the -c script). */
static const char *
bb_call_text(const bb_call_spec *cs)
{
    const char *t = cs->bc_path;
    for (char *const *a = cs->bc_argv; *a != NULL; a++)
        t = *a;
    return t;
}

bool
bb_call(const bb_call_spec *cs, uint64_t *ns, int *wstatus, char *out,
        size_t outn)
{
    int pfd[2];
    posix_spawn_file_actions_t fa;
    size_t kept = 0;
    bool ok = true;

    if (pipe2(pfd, O_CLOEXEC) != 0)
        return bb_fail("pipe: %s", strerror(errno));
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(
        &fa, 0, cs->bc_stdin_path ? cs->bc_stdin_path : "/dev/null", O_RDONLY,
        0);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    if (cs->bc_err_path != NULL)
        posix_spawn_file_actions_addopen(&fa, 2, cs->bc_err_path,
                                         O_WRONLY | O_CREAT | O_APPEND, 0600);
    else
        posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
    if (cs->bc_cwd != NULL)
        posix_spawn_file_actions_addchdir_np(&fa, cs->bc_cwd);

    pid_t pid;
    uint64_t t0 = bb_now_ns();
    int rv = box_svc_spawn(&pid, cs->bc_path, &fa, cs->bc_argv, environ, 0);
    close(pfd[1]);
    posix_spawn_file_actions_destroy(&fa);
    if (rv != 0) {
        close(pfd[0]);
        return bb_fail("cannot run %s: %s", cs->bc_path, strerror(rv));
    }
    uint64_t end_ms =
        box_svc_now_ms() + (cs->bc_timeout_ms > 0 ? (uint64_t)cs->bc_timeout_ms
                                                  : BB_CALL_MS_DEFAULT);
    for (;;) {
        char buf[BB_OUT_MAX];
        uint64_t now = box_svc_now_ms();
        struct pollfd p = {.fd = pfd[0], .events = POLLIN};
        int pr = now < end_ms ? poll(&p, 1, (int)(end_ms - now)) : 0;
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0) {
            ok = bb_fail("%s -c '%s' %s", cs->bc_path, bb_call_text(cs),
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
    *ns = bb_now_ns() - t0;
    close(pfd[0]);
    if (out != NULL)
        out[kept] = '\0';
    if (cs->bc_kept != NULL)
        *cs->bc_kept = kept;
    return ok;
}

bool
bb_call_ok(const bb_box *b, const bb_call_spec *cs, uint64_t *ns, char *out,
           size_t outn)
{
    char mine[BB_OUT_MAX];
    int st = 0;
    if (out == NULL) {
        out = mine;
        outn = sizeof mine;
    }
    if (!bb_call(cs, ns, &st, out, outn))
        return false;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return true;
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '\n')
        n--;
    bb_fail("%s -c '%s' failed (%s %d); it printed: %.*s", cs->bc_path,
            bb_call_text(cs), WIFEXITED(st) ? "exit" : "signal",
            WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
            (int)(n < 600 ? n : 600), out);
    if (b != NULL)
        bb_tail(b->bb_shell_out);
    return false;
}

/* ------------------------------------------------------------------ */
/* The decision log                                                    */
/* ------------------------------------------------------------------ */

bool
bb_log_settle(const bb_box *c, off_t *size)
{
    struct stat st;
    off_t last = -1;
    uint64_t still = box_svc_now_ms(), end = still + BB_SETTLE_MAX_MS;
    for (;;) {
        off_t now = stat(c->bb_log, &st) == 0 ? st.st_size : 0;
        uint64_t t = box_svc_now_ms();
        if (now != last) {
            last = now;
            still = t;
        } else if (t - still >= BB_SETTLE_MS) {
            *size = now;
            return true;
        }
        if (t >= end)
            return bb_fail("the decision log %s kept growing", c->bb_log);
        usleep(10000);
    }
}

/* The string or boolean value of one OTLP attribute, by key. */
static json_object *
bb_attr(json_object *attrs, const char *key, const char *kind)
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
bb_tally_record(json_object *lr, bb_tally *t)
{
    json_object *ev, *attrs;
    if (!json_object_object_get_ex(lr, "eventName", &ev) ||
        strcmp(json_object_get_string(ev), "strands.box.policy.decision") !=
            0 ||
        !json_object_object_get_ex(lr, "attributes", &attrs) ||
        !json_object_is_type(attrs, json_type_array))
        return;
    json_object *act =
        bb_attr(attrs, "strands.box.policy.action", "stringValue");
    json_object *verdict =
        bb_attr(attrs, "strands.box.policy.verdict", "stringValue");
    json_object *cached =
        bb_attr(attrs, "strands.box.policy.cached", "boolValue");
    const char *name = act ? json_object_get_string(act) : "(no action)";
    t->bt_total++;
    t->bt_cached += cached != NULL && json_object_get_boolean(cached);
    t->bt_denied += verdict == NULL ||
                    strcmp(json_object_get_string(verdict), "permit") != 0;
    size_t i = 0;
    while (i < t->bt_nact && strcmp(t->bt_act[i].ba_name, name) != 0)
        i++;
    if (i == BB_ACTIONS_MAX) {
        // More kinds than a pipeline asks: the last slot becomes "other".
        i--;
        snprintf(t->bt_act[i].ba_name, sizeof t->bt_act[i].ba_name, "other");
    } else if (i == t->bt_nact) {
        t->bt_nact++;
        snprintf(t->bt_act[i].ba_name, sizeof t->bt_act[i].ba_name, "%s", name);
    }
    t->bt_act[i].ba_n++;
}

bool
bb_log_tally(const bb_box *c, off_t from, off_t to, bb_tally *t)
{
    size_t n = (size_t)(to - from);
    bool ok = false;
    char *text = NULL;
    json_tokener *tok = NULL;
    int fd = open(c->bb_log, O_RDONLY | O_CLOEXEC);

    memset(t, 0, sizeof *t);
    if (to < from || n > BB_LOG_MAX) {
        bb_fail("one call added %lld bytes to the decision log",
                (long long)(to - from));
        goto out;
    }
    if (fd < 0 || (text = box_alloc(n + 1)) == NULL ||
        (tok = json_tokener_new()) == NULL ||
        pread(fd, text, n, from) != (ssize_t)n) {
        bb_fail("cannot read the decision log %s", c->bb_log);
        goto out;
    }
    text[n] = '\0';
    for (char *line = text, *nl; *line != '\0'; line = nl + 1) {
        if ((nl = strchr(line, '\n')) == NULL) {
            bb_fail("the decision log ends in a partial record");
            goto out;
        }
        json_tokener_reset(tok);
        json_object *root = json_tokener_parse_ex(tok, line, (int)(nl - line));
        json_object *rls, *sls, *lrs;
        if (root == NULL) {
            bb_fail("a decision-log record is not JSON: %.80s", line);
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
                                bb_tally_record(
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

bool
bb_open(bb_box *b, const char *bindir)
{
    return bb_layout(b, bindir) && bb_services(b, bindir);
}
