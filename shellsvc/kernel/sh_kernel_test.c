/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for sh_kernel: requests sent, `~` reporting, links, the reach
 * floor, the identity re-check, VFS limits and threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "box_alloc.h"
#include "sh_kernel.h"
#include "sh_vfs.h"

/* ---- a table-driven decider that logs every request --------------------- */

typedef struct rule {
    const char *action;    // NULL = any
    const char *operation; // NULL = any
    const char *resource;  // NULL = any; trailing '*' = prefix
    box_verdict verdict;
} rule;

#define LOG_MAX 64
typedef struct logent {
    char action[32];
    char operation[32];
    char optype[40];
    char resource[PATH_MAX];
    char input_path[PATH_MAX];
    char file_path[PATH_MAX];
} logent;

/* One outcome the kernel recorded: the ticket's id (1000 + the index of
 * its request in the log) and how the effect ended. */
typedef struct recent {
    uint64_t id;
    box_outcome_kind kind;
} recent;

typedef struct decider {
    const rule *rules;
    size_t nrules;
    box_verdict dflt;
    pthread_mutex_t lock;
    logent log[LOG_MAX];
    size_t n;
    bool tickets; // permits want their outcome (a policy with history)
    recent rec[LOG_MAX];
    size_t nrec;
} decider;

static bool
match(const char *pat, const char *s)
{
    if (pat == NULL)
        return true;
    size_t l = strlen(pat);
    if (l > 0 && pat[l - 1] == '*')
        return strncmp(pat, s, l - 1) == 0;
    return strcmp(pat, s) == 0;
}

static box_verdict
decide(void *arg, const Box__DecisionRequest *req, char **message,
       box_ticket *ticket)
{
    decider *d = arg;
    const Box__ValueRecord *rec = req->input->record;
    const char *path = NULL, *op = NULL, *opty = NULL;
    for (size_t i = 0; i < rec->n_fields; i++) {
        if (strcmp(rec->fields[i]->name, "path") == 0)
            path = rec->fields[i]->value->str;
        if (strcmp(rec->fields[i]->name, "operation") == 0) {
            op = rec->fields[i]->value->entity->id;
            opty = rec->fields[i]->value->entity->type;
        }
    }
    pthread_mutex_lock(&d->lock);
    if (d->n < LOG_MAX) {
        logent *e = &d->log[d->n++];
        snprintf(e->action, sizeof e->action, "%s", req->action);
        snprintf(e->operation, sizeof e->operation, "%s", op);
        snprintf(e->optype, sizeof e->optype, "%s", opty);
        snprintf(e->resource, sizeof e->resource, "%s", req->resource);
        snprintf(e->input_path, sizeof e->input_path, "%s", path);
        snprintf(e->file_path, sizeof e->file_path, "%s",
                 req->subject->file_path);
    }
    pthread_mutex_unlock(&d->lock);
    box_verdict v = d->dflt;
    for (size_t i = 0; i < d->nrules; i++) {
        const rule *r = &d->rules[i];
        if (match(r->action, req->action) && match(r->operation, op) &&
            match(r->resource, req->resource)) {
            v = r->verdict;
            break;
        }
    }
    if (v == BOX_VERDICT_DENY)
        *message = box_asprintf("policy denied this operation on '%s' "
                                "[policy: test].",
                                req->resource);
    else if (v == BOX_VERDICT_FAULT)
        *message = box_strdup("the PDP did not answer");
    else if (v == BOX_VERDICT_PERMIT && d->tickets)
        *ticket = (box_ticket){.bt_id = 1000 + d->n - 1, .bt_wanted = true};
    return v;
}

static void
record(void *arg, box_ticket t, const box_outcome *o)
{
    decider *d = arg;
    assert_true(t.bt_wanted);
    pthread_mutex_lock(&d->lock);
    if (d->nrec < LOG_MAX)
        d->rec[d->nrec++] = (recent){t.bt_id, o->bo_kind};
    pthread_mutex_unlock(&d->lock);
}

/* ---- fixture ----------------------------------------------------------- */

typedef struct fx {
    char root[PATH_MAX]; // canonical temp dir
    char home[PATH_MAX], agent[PATH_MAX], ws[PATH_MAX], out[PATH_MAX];
    char boxdir[PATH_MAX], toml[PATH_MAX], policy[PATH_MAX];
    decider d;
    sh_kernel *k;
    void (*hook)(struct fx *f, const char *canon);
    void (*act_hook)(struct fx *f, const char *canon); // right before acts
    bool in_hook;
    int hook_calls;
} fx;

static void
mkfile(const char *dir, const char *name, const char *text)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void
hook_tramp(void *arg, const char *canon)
{
    fx *f = arg;
    if (f->hook != NULL && !f->in_hook) {
        f->in_hook = true;
        f->hook_calls++;
        f->hook(f, canon);
        f->in_hook = false;
    }
}

static void
act_hook_tramp(void *arg, const char *canon)
{
    fx *f = arg;
    if (f->act_hook != NULL && !f->in_hook) {
        f->in_hook = true;
        f->act_hook(f, canon);
        f->in_hook = false;
    }
}

static int
rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    chmod(p, 0700);
    return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static int
setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    assert_non_null(f);
    char tmpl[] = "/tmp/shk.XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    assert_non_null(realpath(tmpl, f->root));
    snprintf(f->home, sizeof f->home, "%s/home", f->root);
    snprintf(f->agent, sizeof f->agent, "%s/agent", f->root);
    snprintf(f->ws, sizeof f->ws, "%s/ws", f->root);
    snprintf(f->out, sizeof f->out, "%s/outside", f->root);
    snprintf(f->boxdir, sizeof f->boxdir, "%s/.box", f->home);
    snprintf(f->toml, sizeof f->toml, "%s/cfg/box.toml", f->ws);
    snprintf(f->policy, sizeof f->policy, "%s/policy.dw", f->ws);
    assert_int_equal(mkdir(f->home, 0755), 0);
    assert_int_equal(mkdir(f->agent, 0755), 0);
    assert_int_equal(mkdir(f->ws, 0755), 0);
    assert_int_equal(mkdir(f->out, 0755), 0);
    assert_int_equal(mkdir(f->boxdir, 0700), 0);
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/cfg", f->ws);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/sub", f->ws);
    assert_int_equal(mkdir(p, 0755), 0);
    mkfile(f->ws, "cfg/box.toml", "[agent]\n");
    mkfile(f->ws, "policy.dw", "permit(principal, action, resource);\n");
    mkfile(f->ws, "sub/file", "inside\n");
    mkfile(f->ws, "secret", "s3cret\n");
    mkfile(f->out, "file", "outside\n");
    mkfile(f->home, "notes.txt", "home notes\n");
    mkfile(f->boxdir, "state", "trusted\n");
    pthread_mutex_init(&f->d.lock, NULL);
    f->d.dflt = BOX_VERDICT_PERMIT;

    char nested[PATH_MAX];
    snprintf(nested, sizeof nested, "%s/proj", f->home);
    assert_int_equal(mkdir(nested, 0755), 0);
    const char *binds[] = {f->home, f->agent, f->ws, nested};
    const char *auth[] = {f->toml, f->policy};
    const char *res[] = {f->boxdir};
    sh_kernel_opts o = {
        .ko_binds = binds,
        .ko_nbinds = 4,
        .ko_operator_home = f->home,
        .ko_decide = decide,
        .ko_decide_arg = &f->d,
        .ko_record = record,
        .ko_record_arg = &f->d,
        .ko_authority = auth,
        .ko_nauthority = 2,
        .ko_reserved = res,
        .ko_nreserved = 1,
        .ko_hook = hook_tramp,
        .ko_act_hook = act_hook_tramp,
        .ko_hook_arg = f,
    };
    assert_int_equal(sh_kernel_new(&o, &f->k), BOX_OK);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    fx *f = *state;
    sh_kernel_free(f->k);
    if (strncmp(f->root, "/tmp/shk.", 9) == 0)
        nftw(f->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    pthread_mutex_destroy(&f->d.lock);
    box_free(f);
    return 0;
}

static void
reset_log(fx *f)
{
    f->d.n = 0;
    f->d.nrec = 0;
}

static const logent *
last(fx *f)
{
    assert_true(f->d.n > 0);
    return &f->d.log[f->d.n - 1];
}

static void
expect_req(const logent *e, const char *action, const char *op,
           const char *resource)
{
    assert_string_equal(e->action, action);
    assert_string_equal(e->operation, op);
    assert_string_equal(e->resource, resource);
    assert_string_equal(e->input_path, resource);
    if (strcmp(action, "fs:read") == 0)
        assert_string_equal(e->optype, "Box::FsReadOperation");
    else if (strcmp(action, "fs:write") == 0)
        assert_string_equal(e->optype, "Box::FsWriteOperation");
    else if (strcmp(action, "fs:delete") == 0)
        assert_string_equal(e->optype, "Box::FsDeleteOperation");
    else
        assert_string_equal(e->optype, "Box::FsMoveOperation");
}

static char *
pj(const char *a, const char *b)
{
    static __thread char buf[4][PATH_MAX];
    static __thread int i;
    char *p = buf[i++ % 4];
    snprintf(p, PATH_MAX, "%s/%s", a, b);
    return p;
}

static void
read_all(sh_kernel_file *kf, char *buf, size_t n)
{
    ssize_t got = sh_kernel_read(kf, buf, n - 1);
    assert_true(got >= 0);
    buf[got] = '\0';
}

/* ---- tests --------------------------------------------------------------- */

/* The outcomes recorded since reset_log are exactly want[] (ids relative
 * to the log: 0 is the first request asked). */
static void
expect_outcomes(fx *f, const recent *want, size_t n)
{
    assert_int_equal(f->d.nrec, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(f->d.rec[i].id, 1000 + want[i].id);
        assert_int_equal(f->d.rec[i].kind, want[i].kind);
    }
}

/* dogwood-spec §5.6 through the kernel: each permitted question gets one
 * outcome when its operation is over; denied ones none; nothing at all
 * while no ticket wants one. */
static void
test_outcomes(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf = NULL;
    sh_kernel_stat st;
    char deny[PATH_MAX];
    snprintf(deny, sizeof deny, "%s/secret", f->ws);
    const rule rules[] = {
        {"fs:read", "read_content", deny, BOX_VERDICT_DENY},
        {"fs:delete", NULL, deny, BOX_VERDICT_DENY},
    };
    f->d.rules = rules;
    f->d.nrules = 2;

    // No temporal rule: permits carry no ticket, nothing is recorded.
    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "sub/file", O_RDONLY, 0, &kf, &r), 0);
    sh_kernel_close(kf);
    assert_int_equal(sh_kernel_mkdir(f->k, f->ws, "d0", 0755, &r), 0);
    assert_int_equal(f->d.n, 2);
    expect_outcomes(f, NULL, 0);

    f->d.tickets = true;
    // Permitted and done: an open issues a descriptor (`<>`: both legs).
    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "sub/file", O_RDWR, 0, &kf, &r), 0);
    sh_kernel_close(kf);
    expect_outcomes(
        f, (recent[]){{0, BOX_OUTCOME_DESCRIPTOR}, {1, BOX_OUTCOME_DESCRIPTOR}},
        2);
    // Permitted but failed: a missing file is an ::error.
    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "missing", O_RDONLY, 0, &kf, &r), ENOENT);
    sh_kernel_result_clear(&r);
    expect_outcomes(f, (recent[]){{0, BOX_OUTCOME_ERROR}}, 1);
    // Denied: nothing.
    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "secret", O_RDONLY, 0, &kf, &r), EACCES);
    sh_kernel_result_clear(&r);
    assert_int_equal(f->d.n, 1);
    expect_outcomes(f, NULL, 0);
    // A probe: a stat that finds nothing is an ::error, one that finds
    // the file completed.
    reset_log(f);
    assert_int_equal(sh_kernel_stat_path(f->k, f->ws, "nope", &st, &r), ENOENT);
    sh_kernel_result_clear(&r);
    assert_int_equal(sh_kernel_stat_path(f->k, f->ws, "secret", &st, &r), 0);
    expect_outcomes(
        f, (recent[]){{0, BOX_OUTCOME_ERROR}, {1, BOX_OUTCOME_COMPLETED}}, 2);
    // mkdir: new completed, existing an ::error.
    reset_log(f);
    assert_int_equal(sh_kernel_mkdir(f->k, f->ws, "d1", 0755, &r), 0);
    assert_int_equal(sh_kernel_mkdir(f->k, f->ws, "d1", 0755, &r), EEXIST);
    sh_kernel_result_clear(&r);
    expect_outcomes(
        f, (recent[]){{0, BOX_OUTCOME_COMPLETED}, {1, BOX_OUTCOME_ERROR}}, 2);
    // A rename over an existing file: four legs, all completed.
    mkfile(f->ws, "from", "x\n");
    mkfile(f->ws, "to", "y\n");
    reset_log(f);
    assert_int_equal(sh_kernel_rename(f->k, f->ws, "from", "to", &r), 0);
    assert_int_equal(f->d.n, 4);
    expect_outcomes(f,
                    (recent[]){{0, BOX_OUTCOME_COMPLETED},
                               {1, BOX_OUTCOME_COMPLETED},
                               {2, BOX_OUTCOME_COMPLETED},
                               {3, BOX_OUTCOME_COMPLETED}},
                    4);
    // A later leg denied: the permitted legs did not happen.
    reset_log(f);
    assert_int_equal(sh_kernel_rename(f->k, f->ws, "to", "secret", &r), EACCES);
    sh_kernel_result_clear(&r);
    assert_int_equal(f->d.n, 3);
    expect_outcomes(
        f, (recent[]){{0, BOX_OUTCOME_ERROR}, {1, BOX_OUTCOME_ERROR}}, 2);
    // The reach floor refuses after the permit: an ::error.
    reset_log(f);
    assert_int_equal(sh_kernel_open(f->k, "/", f->toml, O_RDONLY, 0, &kf, &r),
                     EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_FLOOR);
    sh_kernel_result_clear(&r);
    expect_outcomes(f, (recent[]){{0, BOX_OUTCOME_ERROR}}, 1);
    // unlink and a link.
    reset_log(f);
    assert_int_equal(sh_kernel_unlink(f->k, f->ws, "to", &r), 0);
    assert_int_equal(sh_kernel_symlink(f->k, f->ws, "sub/file", "ln", &r), 0);
    expect_outcomes(f,
                    (recent[]){{0, BOX_OUTCOME_COMPLETED},
                               {1, BOX_OUTCOME_COMPLETED},
                               {2, BOX_OUTCOME_COMPLETED},
                               {3, BOX_OUTCOME_COMPLETED}},
                    4);
    f->d.rules = NULL;
    f->d.nrules = 0;
}

static void
test_host_open_read_write(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf = NULL;
    reset_log(f);
    assert_int_equal(sh_kernel_open(f->k, f->ws, "a.txt",
                                    O_WRONLY | O_CREAT | O_TRUNC, 0644, &kf,
                                    &r),
                     0);
    expect_req(last(f), "fs:write", "write_content", pj(f->ws, "a.txt"));
    assert_string_equal(last(f)->file_path, pj(f->ws, "a.txt"));
    assert_int_equal(sh_kernel_write(kf, "hi\n", 3), 3);
    sh_kernel_close(kf);

    reset_log(f);
    assert_int_equal(sh_kernel_open(f->k, "/", pj(f->ws, "sub/../a.txt"),
                                    O_RDONLY, 0, &kf, &r),
                     0);
    assert_int_equal(f->d.n, 1);
    expect_req(last(f), "fs:read", "read_content", pj(f->ws, "a.txt"));
    char buf[64];
    read_all(kf, buf, sizeof buf);
    assert_string_equal(buf, "hi\n");
    sh_kernel_close(kf);

    // <> asks both.
    reset_log(f);
    assert_int_equal(sh_kernel_open(f->k, f->ws, "a.txt", O_RDWR, 0, &kf, &r),
                     0);
    assert_int_equal(f->d.n, 2);
    expect_req(&f->d.log[0], "fs:read", "read_content", pj(f->ws, "a.txt"));
    expect_req(&f->d.log[1], "fs:write", "write_content", pj(f->ws, "a.txt"));
    sh_kernel_close(kf);

    // touch: the decided descriptor's times are set to now.
    struct timespec old[2] = {{1000000, 0}, {1000000, 0}};
    assert_int_equal(utimensat(AT_FDCWD, pj(f->ws, "a.txt"), old, 0), 0);
    static const struct timespec now2[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    assert_int_equal(sh_kernel_set_times(f->k, f->ws, "a.txt", now2,
                                         SH_KT_CREATE, 0644, &r),
                     0);
    struct stat tst;
    assert_int_equal(stat(pj(f->ws, "a.txt"), &tst), 0);
    assert_true(tst.st_mtime > 1000000);
    assert_int_equal(tst.st_size, 3); // contents kept

    // Missing file: policy is asked, then "No such file or directory".
    reset_log(f);
    assert_int_equal(sh_kernel_open(f->k, f->ws, "nope", O_RDONLY, 0, &kf, &r),
                     ENOENT);
    assert_int_equal(f->d.n, 1);
    char *t = sh_kernel_result_text(&r, "nope");
    assert_string_equal(t, "nope: No such file or directory");
    box_free(t);
    sh_kernel_result_clear(&r);
}

static void
test_home_reporting(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    reset_log(f);
    assert_int_equal(sh_kernel_stat_path(f->k, "/", f->home, &st, &r), 0);
    expect_req(last(f), "fs:read", "read_metadata", "~");
    assert_true(st.ks_host);
    assert_int_equal(sh_kernel_stat_path(f->k, f->home, "notes.txt", &st, &r),
                     0);
    expect_req(last(f), "fs:read", "read_metadata", "~/notes.txt");
    assert_string_equal(last(f)->file_path, pj(f->home, "notes.txt"));
    char spelled[PATH_MAX];
    snprintf(spelled, sizeof spelled, "%s/proj/", f->home);
    assert_int_equal(sh_kernel_stat_path(f->k, "/", spelled, &st, &r), 0);
    expect_req(last(f), "fs:read", "read_metadata", "~/proj");
    char *s = sh_kernel_report_path(f->k, "/tmp/");
    assert_string_equal(s, "/tmp");
    box_free(s);
    // A home-like prefix is not the home.
    snprintf(spelled, sizeof spelled, "%sx/y", f->home);
    s = sh_kernel_report_path(f->k, spelled);
    assert_string_equal(s, spelled);
    box_free(s);
    sh_kernel_result_clear(&r);
}

static void
test_vfs_paths(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf;
    sh_kernel_stat st;
    char buf[64];
    reset_log(f);
    assert_int_equal(sh_kernel_open(f->k, "/tmp", "x",
                                    O_WRONLY | O_CREAT | O_TRUNC, 0644, &kf,
                                    &r),
                     0);
    expect_req(last(f), "fs:write", "write_content", "/tmp/x");
    assert_int_equal(sh_kernel_write(kf, "vfs", 3), 3);
    sh_kernel_close(kf);
    assert_int_equal(sh_kernel_open(f->k, "/", "/tmp/x", O_RDONLY, 0, &kf, &r),
                     0);
    read_all(kf, buf, sizeof buf);
    assert_string_equal(buf, "vfs");
    sh_kernel_close(kf);
    assert_int_equal(sh_kernel_stat_path(f->k, "/", "/tmp/x", &st, &r), 0);
    assert_false(st.ks_host);
    assert_int_equal(st.ks_size, 3);

    // /dev/null discards; /etc/passwd does not exist here.
    assert_int_equal(
        sh_kernel_open(f->k, "/", "/dev/null", O_WRONLY, 0, &kf, &r), 0);
    assert_int_equal(sh_kernel_write(kf, "gone", 4), 4);
    sh_kernel_close(kf);
    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, "/", "/etc/passwd", O_RDONLY, 0, &kf, &r), ENOENT);
    expect_req(last(f), "fs:read", "read_content", "/etc/passwd");
    assert_string_equal(r.kr_message, "No such file or directory");
    sh_kernel_result_clear(&r);

    // The bind ancestors are visible directories in the VFS.
    char **names;
    size_t n;
    assert_int_equal(sh_kernel_list(f->k, "/", f->root, &names, &n, &r), 0);
    assert_int_equal(n, 3); // home agent ws (outside is not bound)
    sh_kernel_names_free(names, n);
    // (the workspace would meet the reach floor first: it holds box.toml)
    assert_int_equal(sh_kernel_rmdir(f->k, "/", f->agent, &r), EBUSY);
    assert_string_equal(r.kr_message, "bind mount point is busy");
    sh_kernel_result_clear(&r);
}

/* Times: one fs:write write_content decision each; explicit times land
 * on the host and in memory; without create a missing name is ENOENT and
 * nothing is made; no-follow sets a link's own times; a denial changes
 * nothing. */
static void
test_set_times(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    const struct timespec t[2] = {{1000, 5}, {2000, 7}};
    const char *where[] = {f->ws, "/tmp"};
    for (size_t i = 0; i < 2; i++) {
        char *p = pj(where[i], "t.txt");
        reset_log(f);
        assert_int_equal(sh_kernel_set_times(f->k, "/", p, t, 0, 0644, &r),
                         ENOENT);
        assert_int_equal(f->d.n, 1);
        expect_req(last(f), "fs:write", "write_content", p);
        sh_kernel_result_clear(&r);
        assert_int_equal(sh_kernel_stat_path(f->k, "/", p, &st, &r), ENOENT);
        sh_kernel_result_clear(&r);
        reset_log(f);
        assert_int_equal(
            sh_kernel_set_times(f->k, "/", p, t, SH_KT_CREATE, 0600, &r), 0);
        assert_int_equal(f->d.n, 1);
        assert_int_equal(sh_kernel_stat_path(f->k, "/", p, &st, &r), 0);
        assert_int_equal(st.ks_atime, 1000);
        assert_int_equal(st.ks_atime_ns, 5);
        assert_int_equal(st.ks_mtime, 2000);
        assert_int_equal(st.ks_mtime_ns, 7);
        assert_int_equal(st.ks_mode & 0777, 0600);
        // UTIME_OMIT keeps one of the two.
        const struct timespec keep[2] = {{0, UTIME_OMIT}, {3000, 0}};
        assert_int_equal(sh_kernel_set_times(f->k, "/", p, keep, 0, 0, &r), 0);
        assert_int_equal(sh_kernel_stat_path(f->k, "/", p, &st, &r), 0);
        assert_int_equal(st.ks_atime, 1000);
        assert_int_equal(st.ks_mtime, 3000);
    }
    // No-follow: the link's own times, the target's untouched.
    char *l = pj(f->ws, "tl");
    assert_int_equal(symlink("t.txt", l), 0);
    const struct timespec lt[2] = {{4000, 0}, {5000, 0}};
    assert_int_equal(
        sh_kernel_set_times(f->k, "/", l, lt, SH_KT_NOFOLLOW, 0, &r), 0);
    assert_int_equal(sh_kernel_lstat(f->k, "/", l, &st, &r), 0);
    assert_int_equal(st.ks_mtime, 5000);
    assert_int_equal(sh_kernel_stat_path(f->k, "/", l, &st, &r), 0);
    assert_int_equal(st.ks_mtime, 3000);
    // A denial: the policy's words, and the times stay.
    char *p = pj(f->ws, "t.txt");
    const rule deny[] = {{"fs:write", "write_content", p, BOX_VERDICT_DENY}};
    f->d.rules = deny;
    f->d.nrules = 1;
    assert_int_equal(sh_kernel_set_times(f->k, "/", p, lt, 0, 0, &r), EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_DENIED);
    sh_kernel_result_clear(&r);
    f->d.rules = NULL;
    f->d.nrules = 0;
    assert_int_equal(sh_kernel_stat_path(f->k, "/", p, &st, &r), 0);
    assert_int_equal(st.ks_mtime, 3000);
}

/* Every operation sends its action and operation, on host and VFS. */
static void
test_operation_table(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    const char *bases[2] = {f->ws, "/tmp"};
    for (int b = 0; b < 2; b++) {
        const char *base = bases[b];
        char *d = box_strdup(pj(base, "opdir"));
        char *l = box_strdup(pj(base, "oplink"));
        char *fl = box_strdup(pj(base, "opfile"));
        char *mv = box_strdup(pj(base, "opmoved"));
        sh_kernel_file *kf;

        reset_log(f);
        assert_int_equal(sh_kernel_mkdir(f->k, "/", d, 0755, &r), 0);
        expect_req(last(f), "fs:write", "create_dir", d);
        assert_int_equal(sh_kernel_mkdir(f->k, "/", d, 0755, &r), EEXIST);
        sh_kernel_result_clear(&r);
        char *cd = NULL;
        assert_int_equal(sh_kernel_chdir(f->k, "/", d, &cd, &r), 0);
        expect_req(last(f), "fs:read", "change_dir", d);
        assert_string_equal(cd, d);
        box_free(cd);
        assert_int_equal(sh_kernel_chdir(f->k, d, "..", &cd, &r), 0);
        assert_string_equal(cd, base);
        box_free(cd);

        char **names;
        size_t n;
        assert_int_equal(sh_kernel_list(f->k, "/", base, &names, &n, &r), 0);
        expect_req(last(f), "fs:read", "enumerate", base);
        sh_kernel_names_free(names, n);

        assert_int_equal(
            sh_kernel_open(f->k, "/", fl, O_WRONLY | O_CREAT, 0644, &kf, &r),
            0);
        sh_kernel_close(kf);
        assert_int_equal(sh_kernel_chmod(f->k, "/", fl, 0755, &r), 0);
        expect_req(last(f), "fs:write", "set_permissions", fl);
        assert_int_equal(sh_kernel_probe_exec(f->k, "/", fl, &r), 0);
        expect_req(last(f), "fs:read", "exec", fl);

        reset_log(f);
        assert_int_equal(sh_kernel_symlink(f->k, "/", "opfile", l, &r), 0);
        assert_int_equal(f->d.n, 3);
        expect_req(&f->d.log[0], "fs:write", "symlink", fl);
        expect_req(&f->d.log[1], "fs:read", "read_content", fl);
        expect_req(&f->d.log[2], "fs:write", "symlink", l);
        char *t = NULL;
        assert_int_equal(sh_kernel_readlink(f->k, "/", l, &t, &r), 0);
        expect_req(last(f), "fs:read", "read_link", l);
        assert_string_equal(t, "opfile");
        box_free(t);
        assert_int_equal(sh_kernel_readlink(f->k, "/", fl, &t, &r), EINVAL);
        assert_string_equal(r.kr_message, "not a symbolic link");
        sh_kernel_result_clear(&r);
        assert_int_equal(sh_kernel_lstat(f->k, "/", l, &st, &r), 0);
        expect_req(last(f), "fs:read", "read_metadata", l);
        assert_true(S_ISLNK(st.ks_mode));
        assert_int_equal(sh_kernel_stat_path(f->k, "/", l, &st, &r), 0);
        expect_req(last(f), "fs:read", "read_metadata", fl);
        assert_true(S_ISREG(st.ks_mode));

        // rename onto an existing file: four legs.
        assert_int_equal(
            sh_kernel_open(f->k, "/", mv, O_WRONLY | O_CREAT, 0644, &kf, &r),
            0);
        sh_kernel_close(kf);
        reset_log(f);
        assert_int_equal(sh_kernel_rename(f->k, "/", fl, mv, &r), 0);
        assert_int_equal(f->d.n, 4);
        expect_req(&f->d.log[0], "fs:move", "rename", fl);
        expect_req(&f->d.log[1], "fs:read", "read_content", fl);
        expect_req(&f->d.log[2], "fs:delete", "remove_file", mv);
        expect_req(&f->d.log[3], "fs:move", "rename", mv);
        // onto nothing: three legs.
        reset_log(f);
        assert_int_equal(sh_kernel_rename(f->k, "/", mv, fl, &r), 0);
        assert_int_equal(f->d.n, 3);

        reset_log(f);
        assert_int_equal(sh_kernel_unlink(f->k, "/", l, &r), 0);
        expect_req(last(f), "fs:delete", "remove_file", l);
        assert_int_equal(sh_kernel_lstat(f->k, "/", l, &st, &r), ENOENT);
        assert_int_equal(sh_kernel_unlink(f->k, "/", fl, &r), 0);
        assert_int_equal(sh_kernel_rmdir(f->k, "/", d, &r), 0);
        expect_req(last(f), "fs:delete", "remove_dir", d);
        assert_int_equal(sh_kernel_stat_path(f->k, "/", d, &st, &r), ENOENT);
        sh_kernel_result_clear(&r);
        box_free(d);
        box_free(l);
        box_free(fl);
        box_free(mv);
    }
}

static void
test_denials_and_faults(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf = NULL;
    sh_kernel_stat st;
    char pat[PATH_MAX];
    snprintf(pat, sizeof pat, "%s/secret", f->ws);
    const rule rules[] = {
        {"fs:read", "read_content", pat, BOX_VERDICT_DENY},
        {"fs:read", "read_metadata", pat, BOX_VERDICT_DENY},
        {"fs:delete", NULL, "/tmp/fault", BOX_VERDICT_FAULT},
        {"fs:move", "rename", "/tmp/nomove", BOX_VERDICT_DENY},
        {"fs:write", "create_dir", "/tmp/broken", (box_verdict)42},
    };
    f->d.rules = rules;
    f->d.nrules = 5;
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "secret", O_RDONLY, 0, &kf, &r), EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_DENIED);
    assert_true(sh_kernel_result_self_contained(&r));
    char *t = sh_kernel_result_text(&r, "secret");
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want,
             "policy denied this operation on '%s' [policy: test].", pat);
    assert_string_equal(t, want);
    assert_string_equal(r.kr_path, pat);
    box_free(t);
    sh_kernel_result_clear(&r);

    // A denied probe is "absent", not an error.
    assert_int_equal(sh_kernel_stat_path(f->k, f->ws, "secret", &st, &r),
                     ENOENT);
    assert_null(r.kr_message);
    assert_int_equal(r.kr_outcome, SH_KR_DENIED);
    assert_false(sh_kernel_result_self_contained(&r));
    sh_kernel_result_clear(&r);

    // A fault is reported as such (exit 125).
    assert_int_equal(sh_kernel_mkdir(f->k, "/", "/tmp/fault", 0755, &r), 0);
    assert_int_equal(r.kr_outcome, SH_KR_OK);
    assert_int_equal(sh_kernel_rmdir(f->k, "/", "/tmp/fault", &r), EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_FAULT);
    assert_string_equal(r.kr_message, "the PDP did not answer");
    sh_kernel_result_clear(&r);

    // A decider answering outside the enum broke its contract: a fault,
    // never a permit or a plain denial.
    assert_int_equal(sh_kernel_mkdir(f->k, "/", "/tmp/broken", 0755, &r),
                     EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_FAULT);
    assert_string_equal(r.kr_message, "the decision could not be made");
    sh_kernel_result_clear(&r);

    // Rename: the first denial wins and names its path.
    assert_int_equal(
        sh_kernel_rename(f->k, "/", "/tmp/fault", "/tmp/nomove", &r), EACCES);
    assert_string_equal(r.kr_path, "/tmp/nomove");
    sh_kernel_result_clear(&r);
    f->d.rules = NULL;
    f->d.nrules = 0;
}

static void
test_links(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf = NULL;
    sh_kernel_stat st;
    char p[PATH_MAX];
    const char *escape = "symlink target escapes the bind mount";

    // A workspace link to /etc/passwd is refused (never decided).
    assert_int_equal(symlink("/etc/passwd", pj(f->ws, "pw")), 0);
    reset_log(f);
    assert_int_equal(sh_kernel_open(f->k, f->ws, "pw", O_RDONLY, 0, &kf, &r),
                     EACCES);
    assert_string_equal(r.kr_message, escape);
    assert_int_equal(f->d.n, 0);
    char *t = sh_kernel_result_text(&r, "pw");
    assert_string_equal(t, "pw: symlink target escapes the bind mount");
    box_free(t);
    sh_kernel_result_clear(&r);
    // lstat does not follow it.
    assert_int_equal(sh_kernel_lstat(f->k, f->ws, "pw", &st, &r), 0);
    assert_true(S_ISLNK(st.ks_mode));

    // To a file outside every bind.
    assert_int_equal(symlink(pj(f->out, "file"), pj(f->ws, "out")), 0);
    assert_int_equal(sh_kernel_open(f->k, f->ws, "out", O_RDONLY, 0, &kf, &r),
                     EACCES);
    assert_string_equal(r.kr_message, escape);
    sh_kernel_result_clear(&r);
    assert_int_equal(sh_kernel_stat_path(f->k, f->ws, "out", &st, &r), EACCES);
    sh_kernel_result_clear(&r);

    // A `..` chain escaping the bind.
    assert_int_equal(
        symlink("../../../../../../../etc/passwd", pj(f->ws, "sub/up")), 0);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "sub/up", O_RDONLY, 0, &kf, &r), EACCES);
    assert_string_equal(r.kr_message, escape);
    sh_kernel_result_clear(&r);
    assert_int_equal(symlink("../../outside/file", pj(f->ws, "sub/up2")), 0);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "sub/up2", O_RDONLY, 0, &kf, &r), EACCES);
    assert_string_equal(r.kr_message, escape);
    sh_kernel_result_clear(&r);

    // A spelled `..` (no link) simply leaves the bind: outside is not
    // host-backed, so it does not exist here.
    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "../outside/file", O_RDONLY, 0, &kf, &r),
        ENOENT);
    expect_req(last(f), "fs:read", "read_content", pj(f->out, "file"));
    sh_kernel_result_clear(&r);

    // A loop: 40 hops, then ELOOP.
    assert_int_equal(symlink("l2", pj(f->ws, "l1")), 0);
    assert_int_equal(symlink("l1", pj(f->ws, "l2")), 0);
    reset_log(f);
    assert_int_equal(sh_kernel_open(f->k, f->ws, "l1", O_RDONLY, 0, &kf, &r),
                     ELOOP);
    assert_string_equal(r.kr_message, "Too many levels of symbolic links");
    assert_int_equal(f->d.n, 0);
    sh_kernel_result_clear(&r);
    // A chain of exactly 40 links resolves; 41 does not.
    for (int i = 0; i < 41; i++) {
        char name[32], target[32];
        snprintf(name, sizeof name, "c%d", i);
        if (i == 0)
            snprintf(target, sizeof target, "sub/file");
        else
            snprintf(target, sizeof target, "c%d", i - 1);
        assert_int_equal(symlink(target, pj(f->ws, name)), 0);
    }
    assert_int_equal(sh_kernel_stat_path(f->k, f->ws, "c39", &st, &r), 0);
    assert_int_equal(sh_kernel_stat_path(f->k, f->ws, "c40", &st, &r), ELOOP);
    sh_kernel_result_clear(&r);

    // A dangling link is replaced by its target: writing creates it.
    assert_int_equal(symlink("sub/created", pj(f->ws, "dang")), 0);
    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "dang", O_WRONLY | O_CREAT, 0644, &kf, &r),
        0);
    expect_req(last(f), "fs:write", "write_content", pj(f->ws, "sub/created"));
    sh_kernel_close(kf);
    assert_int_equal(lstat(pj(f->ws, "sub/created"), &(struct stat){0}), 0);

    // Links inside the bind resolve, relative or absolute.
    assert_int_equal(symlink("sub", pj(f->ws, "rel")), 0);
    snprintf(p, sizeof p, "%s/sub/file", f->ws);
    assert_int_equal(symlink(p, pj(f->ws, "abs")), 0);
    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "rel/file", O_RDONLY, 0, &kf, &r), 0);
    expect_req(last(f), "fs:read", "read_content", p);
    sh_kernel_close(kf);
    assert_int_equal(sh_kernel_open(f->k, f->ws, "abs", O_RDONLY, 0, &kf, &r),
                     0);
    expect_req(last(f), "fs:read", "read_content", p);
    sh_kernel_close(kf);
    // `..` after a link is folded against the canonical path.
    char *canon = NULL;
    assert_int_equal(sh_kernel_resolve_path(f->k, f->ws, "rel/../secret", true,
                                            &canon, NULL),
                     0);
    assert_string_equal(canon, pj(f->ws, "secret"));
    box_free(canon);

    // Creating host links: absolute or escaping targets are refused.
    assert_int_equal(sh_kernel_symlink(f->k, f->ws, "/etc/passwd", "mk1", &r),
                     EACCES);
    assert_string_equal(r.kr_message, escape);
    sh_kernel_result_clear(&r);
    assert_int_equal(
        sh_kernel_symlink(f->k, f->ws, "../outside/file", "mk2", &r), EACCES);
    assert_string_equal(r.kr_message, escape);
    sh_kernel_result_clear(&r);
    // In the VFS, links may point anywhere (policy decides on use).
    assert_int_equal(sh_kernel_symlink(f->k, "/tmp", p, "tolink", &r), 0);
    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, "/tmp", "tolink", O_RDONLY, 0, &kf, &r), 0);
    expect_req(last(f), "fs:read", "read_content", p);
    sh_kernel_close(kf);
}

static void
test_reach_floor(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf = NULL;
    sh_kernel_stat st;
    const char *auth = "resolves to an authority source that this run "
                       "loaded, which no policy may open or change";
    const char *res = "resolves into trusted Box state, which no policy may "
                      "open";
    char want[PATH_MAX + 200];

    reset_log(f);
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "cfg/box.toml", O_RDONLY, 0, &kf, &r),
        EACCES);
    assert_int_equal(f->d.n, 1); // policy was asked first
    assert_int_equal(r.kr_outcome, SH_KR_FLOOR);
    assert_string_equal(SH_KERNEL_FLOOR_RULE, "enforcement:reach-floor");
    assert_true(sh_kernel_result_self_contained(&r));
    snprintf(want, sizeof want, "cfg/box.toml: %s", auth);
    assert_string_equal(r.kr_message, want);
    char *t = sh_kernel_result_text(&r, "cfg/box.toml");
    assert_string_equal(t, want);
    box_free(t);
    sh_kernel_result_clear(&r);

    assert_int_equal(
        sh_kernel_open(f->k, "/", f->policy, O_WRONLY | O_TRUNC, 0, &kf, &r),
        EACCES);
    snprintf(want, sizeof want, "%s: %s", f->policy, auth);
    assert_string_equal(r.kr_message, want);
    sh_kernel_result_clear(&r);

    // A hard link has the same identity.
    assert_int_equal(link(f->toml, pj(f->ws, "hard")), 0);
    assert_int_equal(sh_kernel_open(f->k, f->ws, "hard", O_RDONLY, 0, &kf, &r),
                     EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_FLOOR);
    sh_kernel_result_clear(&r);

    // Mutating an ancestor directory is refused; reading it is not.
    char **names;
    size_t n;
    assert_int_equal(sh_kernel_list(f->k, f->ws, "cfg", &names, &n, &r), 0);
    sh_kernel_names_free(names, n);
    assert_int_equal(sh_kernel_rename(f->k, f->ws, "cfg", "cfg2", &r), EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_FLOOR);
    snprintf(want, sizeof want, "cfg: %s", auth);
    assert_string_equal(r.kr_message, want);
    sh_kernel_result_clear(&r);
    assert_int_equal(sh_kernel_chmod(f->k, "/", f->ws, 0700, &r), EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_FLOOR);
    sh_kernel_result_clear(&r);

    // The box directory.
    assert_int_equal(
        sh_kernel_open(f->k, f->home, ".box/state", O_RDONLY, 0, &kf, &r),
        EACCES);
    snprintf(want, sizeof want, ".box/state: %s", res);
    assert_string_equal(r.kr_message, want);
    assert_string_equal(r.kr_path, "~/.box/state");
    assert_int_equal(r.kr_outcome, SH_KR_FLOOR);
    sh_kernel_result_clear(&r);
    assert_int_equal(sh_kernel_stat_path(f->k, f->home, ".box", &st, &r),
                     EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_FLOOR);
    sh_kernel_result_clear(&r);
    assert_int_equal(sh_kernel_open(f->k, f->home, ".box/new",
                                    O_WRONLY | O_CREAT, 0644, &kf, &r),
                     EACCES);
    sh_kernel_result_clear(&r);
    assert_int_equal(access(pj(f->boxdir, "new"), F_OK), -1);
}

static void
swap_hook(fx *f, const char *canon)
{
    if (strstr(canon, "victim") == NULL)
        return;
    if (strncmp(canon, f->root, strlen(f->root)) != 0) { // in the VFS
        sh_kernel_result r = {0};
        sh_kernel_file *kf;
        int e = sh_kernel_unlink(f->k, "/", canon, &r);
        assert_true(e == 0 || e == ENOENT);
        sh_kernel_result_clear(&r);
        assert_int_equal(
            sh_kernel_open(f->k, "/", canon, O_WRONLY | O_CREAT, 0644, &kf, &r),
            0);
        sh_kernel_close(kf);
        return;
    }
    mkfile(f->ws, "swapped", "other\n");
    assert_int_equal(rename(pj(f->ws, "swapped"), canon), 0);
}

static void
test_identity_recheck(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf = NULL;
    const char *msg = "filesystem identity changed during effect admission";
    mkfile(f->ws, "victim", "original\n");
    f->hook = swap_hook;
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "victim", O_RDONLY, 0, &kf, &r), EACCES);
    assert_string_equal(r.kr_message, msg);
    sh_kernel_result_clear(&r);
    assert_int_equal(sh_kernel_unlink(f->k, f->ws, "victim", &r), EACCES);
    assert_string_equal(r.kr_message, msg);
    assert_true(r.kr_permits > 0); // the permit's outcome is an ::error
    sh_kernel_result_clear(&r);
    // A truncating open never truncates the file swapped in.
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "victim", O_WRONLY | O_TRUNC, 0, &kf, &r),
        EACCES);
    sh_kernel_result_clear(&r);
    struct stat sb;
    assert_int_equal(stat(pj(f->ws, "victim"), &sb), 0);
    assert_int_equal(sb.st_size, 6);
    // Created between decision and act where "missing" was decided.
    assert_int_equal(sh_kernel_mkdir(f->k, f->ws, "victim2", 0755, &r), EACCES);
    sh_kernel_result_clear(&r);
    assert_int_equal(sh_kernel_open(f->k, f->ws, "victim3", O_WRONLY | O_CREAT,
                                    0644, &kf, &r),
                     EACCES);
    assert_string_equal(r.kr_message, msg);
    sh_kernel_result_clear(&r);

    // The same in the VFS.
    assert_int_equal(sh_kernel_open(f->k, "/", "/tmp/victim",
                                    O_WRONLY | O_CREAT, 0644, &kf, &r),
                     EACCES); // created under us by the hook
    sh_kernel_result_clear(&r);
    assert_int_equal(
        sh_kernel_open(f->k, "/", "/tmp/victim", O_RDONLY, 0, &kf, &r), EACCES);
    assert_string_equal(r.kr_message, msg);
    sh_kernel_result_clear(&r);
    f->hook = NULL;
    assert_true(f->hook_calls >= 5);
}

static void
test_kernel_refusals(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf;
    assert_int_equal(sh_kernel_chmod(f->k, f->ws, "secret", 04755, &r), EPERM);
    assert_string_equal(r.kr_message,
                        "setuid/setgid/sticky bits are not permitted in this "
                        "box");
    sh_kernel_result_clear(&r);
    assert_int_equal(
        sh_kernel_open(f->k, "/", "/tmp/s", O_WRONLY | O_CREAT, 0644, &kf, &r),
        0);
    sh_kernel_close(kf);
    assert_int_equal(sh_kernel_chmod(f->k, "/", "/tmp/s", 04755, &r), 0);
    assert_int_equal(sh_kernel_rename(f->k, f->ws, "secret", "/tmp/moved", &r),
                     EXDEV);
    assert_string_equal(r.kr_message,
                        "cannot rename between host and virtual filesystem");
    sh_kernel_result_clear(&r);
    assert_int_equal(symlink("secret", pj(f->ws, "lnk")), 0);
    mkfile(f->ws, "src", "x");
    assert_int_equal(sh_kernel_rename(f->k, f->ws, "src", "lnk", &r), EPERM);
    assert_string_equal(r.kr_message, "cannot rename onto a host symlink");
    sh_kernel_result_clear(&r);
}

/* A content open of name (relative to the workspace) that is refused with
 * want, after exactly nask questions that were all permitted; it must
 * answer at once (the test's alarm ends a wait). */
static void
expect_special(fx *f, const char *cwd, const char *name, int flags,
               unsigned nask, const char *want)
{
    sh_kernel_result r = {0};
    sh_kernel_file *kf = NULL;
    reset_log(f);
    assert_int_equal(sh_kernel_open(f->k, cwd, name, flags, 0644, &kf, &r),
                     ENXIO);
    assert_null(kf);
    assert_string_equal(r.kr_message, want);
    assert_int_equal(r.kr_outcome, SH_KR_OS_ERROR);
    assert_false(sh_kernel_result_self_contained(&r));
    assert_int_equal(r.kr_permits, nask); // the permit's outcome: ::error
    assert_int_equal(f->d.n, nask);
    sh_kernel_result_clear(&r);
}

/* A unix socket bound at path (the descriptor is closed; the name stays). */
static void
mksock(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t n = strlen(path);
    assert_true(n < sizeof sa.sun_path);
    memcpy(sa.sun_path, path, n + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    close(fd);
}

/*
 * Host FIFOs and sockets: every content open is refused at once, after
 * the decision (a denial still reads as the policy's), for every access
 * mode; metadata operations still work. Before the fix `cat fifo` blocked
 * in openat() until the alias gave up.
 */
static void
test_special_files(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf = NULL;
    sh_kernel_stat st;
    alarm(20); // a blocking open ends the test, red
    assert_int_equal(mkfifo(pj(f->ws, "fifo"), 0644), 0);
    mksock(pj(f->ws, "sock"));
    assert_int_equal(symlink("fifo", pj(f->ws, "to-fifo")), 0);

    expect_special(f, f->ws, "fifo", O_RDONLY, 1,
                   "cannot read a FIFO in this box");
    expect_req(last(f), "fs:read", "read_content", pj(f->ws, "fifo"));
    expect_special(f, f->ws, "fifo", O_WRONLY | O_CREAT | O_TRUNC, 1,
                   "cannot write to a FIFO in this box");
    expect_req(last(f), "fs:write", "write_content", pj(f->ws, "fifo"));
    expect_special(f, f->ws, "fifo", O_WRONLY | O_CREAT | O_APPEND, 1,
                   "cannot write to a FIFO in this box");
    expect_special(f, f->ws, "fifo", O_WRONLY | O_CREAT, 1,
                   "cannot write to a FIFO in this box"); // touch
    expect_special(f, f->ws, "fifo", O_RDWR | O_CREAT, 2,
                   "cannot read or write a FIFO in this box");
    expect_special(f, "/", pj(f->ws, "to-fifo"), O_RDONLY, 1,
                   "cannot read a FIFO in this box");
    expect_req(last(f), "fs:read", "read_content", pj(f->ws, "fifo"));
    expect_special(f, f->ws, "sock", O_RDONLY, 1,
                   "cannot read a socket in this box");
    expect_special(f, f->ws, "sock", O_WRONLY | O_TRUNC, 1,
                   "cannot write to a socket in this box");
    char *t = NULL;
    assert_int_equal(sh_kernel_open(f->k, f->ws, "fifo", O_RDONLY, 0, &kf, &r),
                     ENXIO);
    t = sh_kernel_result_text(&r, "fifo");
    assert_string_equal(t, "fifo: cannot read a FIFO in this box");
    box_free(t);
    sh_kernel_result_clear(&r);

    // Policy first: a denied FIFO gets the policy's text.
    rule deny[] = {{"fs:read", NULL, pj(f->ws, "fifo"), BOX_VERDICT_DENY}};
    f->d.rules = deny;
    f->d.nrules = 1;
    assert_int_equal(sh_kernel_open(f->k, f->ws, "fifo", O_RDONLY, 0, &kf, &r),
                     EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_DENIED);
    assert_non_null(strstr(r.kr_message, "[policy: test]"));
    sh_kernel_result_clear(&r);
    f->d.nrules = 0;

    // Metadata is not content: stat, list and unlink still work.
    assert_int_equal(sh_kernel_stat_path(f->k, f->ws, "fifo", &st, &r), 0);
    assert_true(S_ISFIFO(st.ks_mode));
    assert_int_equal(sh_kernel_stat_path(f->k, f->ws, "sock", &st, &r), 0);
    assert_true(S_ISSOCK(st.ks_mode));
    assert_int_equal(sh_kernel_unlink(f->k, f->ws, "fifo", &r), 0);
    assert_int_equal(sh_kernel_unlink(f->k, f->ws, "sock", &r), 0);
    alarm(0);
}

/*
 * Devices of a bind: the host's /dev bound as it is (no privilege needed
 * to find a character device there). /dev/null and /dev/zero are refused
 * like a FIFO; the in-memory ones of a call are not host files.
 */
static void
test_device_in_bind(void **state)
{
    fx *f = *state;
    sh_kernel *k = NULL;
    char real[PATH_MAX];
    assert_non_null(realpath("/dev", real));
    assert_string_equal(real, "/dev");
    const char *binds[] = {f->ws, "/dev"};
    sh_kernel_opts o = {.ko_binds = binds,
                        .ko_nbinds = 2,
                        .ko_decide = decide,
                        .ko_decide_arg = &f->d};
    assert_int_equal(sh_kernel_new(&o, &k), BOX_OK);
    sh_kernel *saved = f->k;
    f->k = k;
    alarm(20);
    expect_special(f, "/", "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 1,
                   "cannot write to a character device in this box");
    expect_special(f, "/dev", "zero", O_RDONLY, 1,
                   "cannot read a character device in this box");
    expect_special(f, "/dev", "null", O_RDWR, 2,
                   "cannot read or write a character device in this box");
    alarm(0);
    f->k = saved;
    sh_kernel_free(k);
}

/* Swaps the decided regular file "victim" for a FIFO (or a socket, for
 * "victim-sock") after the re-check, right before the open. */
static void
fifo_swap_hook(fx *f, const char *canon)
{
    const char *leaf = strrchr(canon, '/') + 1;
    if (strncmp(leaf, "victim", 6) != 0)
        return;
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s/swap-in", f->ws);
    if (strcmp(leaf, "victim-sock") == 0)
        mksock(tmp);
    else
        assert_int_equal(mkfifo(tmp, 0644), 0);
    assert_int_equal(rename(tmp, canon), 0);
}

/*
 * A host file that turns into a FIFO between the decision and the open
 * must not block the open (it waited for a writer, or a reader, forever):
 * the open answers at once and the identity check refuses what is there.
 */
static void
test_swap_to_fifo(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf = NULL;
    const char *msg = "filesystem identity changed during effect admission";
    static const int flags[] = {O_RDONLY, O_WRONLY | O_TRUNC,
                                O_WRONLY | O_APPEND, O_RDWR};
    alarm(20);
    f->act_hook = fifo_swap_hook;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        const char *name = i == 3 ? "victim-sock" : "victim";
        mkfile(f->ws, name, "original\n");
        assert_int_equal(
            sh_kernel_open(f->k, f->ws, name, flags[i], 0, &kf, &r), EACCES);
        assert_null(kf);
        assert_string_equal(r.kr_message, msg);
        sh_kernel_result_clear(&r);
        assert_int_equal(unlink(pj(f->ws, name)), 0);
    }
    // The same before the re-check (the identity check there sees it).
    f->act_hook = NULL;
    f->hook = fifo_swap_hook;
    mkfile(f->ws, "victim", "original\n");
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "victim", O_RDONLY, 0, &kf, &r), EACCES);
    assert_string_equal(r.kr_message, msg);
    sh_kernel_result_clear(&r);
    f->hook = NULL;
    alarm(0);
}

static void
test_vfs_limits(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf;
    assert_int_equal(sh_kernel_open(f->k, "/", "/tmp/big", O_WRONLY | O_CREAT,
                                    0644, &kf, &r),
                     0);
    char *chunk = box_calloc(1, 1 << 20);
    for (int i = 0; i < 10; i++)
        assert_int_equal(sh_kernel_write(kf, chunk, 1 << 20), 1 << 20);
    assert_int_equal(sh_kernel_write(kf, chunk, 1), -EFBIG);
    sh_kernel_close(kf);
    box_free(chunk);
    char p[64];
    int err = 0;
    for (int i = 0; i < 10100 && err == 0; i++) {
        snprintf(p, sizeof p, "/tmp/n%d", i);
        err = sh_kernel_mkdir(f->k, "/", p, 0755, &r);
    }
    assert_int_equal(err, ENOSPC);
    assert_string_equal(r.kr_message, "too many files in the in-memory file "
                                      "system (limit 10000)");
    sh_kernel_result_clear(&r);
}

typedef struct targ {
    fx *f;
    int id;
} targ;

static void *
worker(void *p)
{
    targ *a = p;
    sh_kernel *k = a->f->k;
    sh_kernel_result r = {0};
    char d[PATH_MAX], fl[PATH_MAX];
    snprintf(d, sizeof d, "/tmp/th%d", a->id);
    if (a->id % 2)
        snprintf(d, sizeof d, "%s/th%d", a->f->ws, a->id);
    if (sh_kernel_mkdir(k, "/", d, 0755, &r) != 0)
        return (void *)1;
    for (int i = 0; i < 50; i++) {
        sh_kernel_file *kf;
        snprintf(fl, sizeof fl, "%s/f%d", d, i);
        if (sh_kernel_open(k, "/", fl, O_WRONLY | O_CREAT, 0644, &kf, &r))
            return (void *)2;
        if (sh_kernel_write(kf, "data", 4) != 4)
            return (void *)3;
        sh_kernel_close(kf);
        sh_kernel_stat st;
        if (sh_kernel_stat_path(k, d, fl, &st, &r) != 0 || st.ks_size != 4)
            return (void *)4;
        if (sh_kernel_open(k, "/", "/tmp/shared", O_WRONLY | O_CREAT | O_APPEND,
                           0644, &kf, &r))
            return (void *)5;
        if (sh_kernel_write(kf, "z", 1) != 1)
            return (void *)6;
        sh_kernel_close(kf);
    }
    char **names;
    size_t n;
    if (sh_kernel_list(k, "/", d, &names, &n, &r) != 0 || n != 50)
        return (void *)7;
    sh_kernel_names_free(names, n);
    sh_kernel_result_clear(&r);
    return NULL;
}

static void
test_threads(void **state)
{
    fx *f = *state;
    pthread_t th[8];
    targ a[8];
    // The shared file exists first: two threads creating one name at once
    // may see it appear between resolution and effect, which the identity
    // re-check rightly refuses.
    sh_kernel_file *kf;
    sh_kernel_result cr = {0};
    assert_int_equal(sh_kernel_open(f->k, "/", "/tmp/shared",
                                    O_WRONLY | O_CREAT, 0644, &kf, &cr),
                     0);
    sh_kernel_close(kf);
    for (int i = 0; i < 8; i++) {
        a[i].f = f;
        a[i].id = i;
        assert_int_equal(pthread_create(&th[i], NULL, worker, &a[i]), 0);
    }
    // Every thread is joined before any verdict, so none outlives the
    // fixture.
    void *rv[8];
    for (int i = 0; i < 8; i++)
        pthread_join(th[i], &rv[i]);
    for (int i = 0; i < 8; i++)
        assert_null(rv[i]);
    sh_kernel_stat st;
    sh_kernel_result r = {0};
    assert_int_equal(sh_kernel_stat_path(f->k, "/", "/tmp/shared", &st, &r), 0);
    assert_int_equal(st.ks_size, 8 * 50);
}

static void
test_seed_locate_generation(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *kf;
    char *c = NULL;
    char buf[32];
    assert_int_equal(sh_kernel_seed_file(f->k, "/bin/lash", 0755, "#!", 2), 0);
    assert_int_equal(sh_kernel_seed_symlink(f->k, "lash", "/bin/cat"), 0);
    assert_int_equal(sh_kernel_seed_symlink(f->k, "x", pj(f->ws, "no")),
                     EINVAL);
    reset_log(f);
    assert_int_equal(sh_kernel_locate(f->k, "/bin/cat", &c), 0);
    assert_string_equal(c, "/bin/lash");
    box_free(c);
    assert_int_equal(f->d.n, 0); // Locate asks nothing
    assert_int_equal(sh_kernel_locate(f->k, "/usr/bin/git", &c), ENOENT);
    assert_int_equal(sh_kernel_locate(f->k, pj(f->ws, "secret"), &c), ENOENT);
    assert_int_equal(
        sh_kernel_open(f->k, "/", "/bin/cat", O_RDONLY, 0, &kf, &r), 0);
    expect_req(last(f), "fs:read", "read_content", "/bin/lash");
    assert_int_equal(r.kr_permits, 1);
    assert_int_equal(sh_kernel_read(kf, buf, sizeof buf), 2);
    sh_kernel_close(kf);

    uint64_t g = sh_kernel_generation(f->k);
    assert_int_equal(sh_kernel_mkdir(f->k, "/", "/tmp/g", 0755, &r), 0);
    assert_true(sh_kernel_generation(f->k) > g);
    g = sh_kernel_generation(f->k);
    sh_kernel_stat st;
    assert_int_equal(sh_kernel_stat_path(f->k, "/", "/tmp/g", &st, &r), 0);
    assert_int_equal(sh_kernel_generation(f->k), g);
    assert_int_equal(sh_kernel_rmdir(f->k, "/", "/tmp/g", &r), 0);
    assert_true(sh_kernel_generation(f->k) > g);
    sh_kernel_result_clear(&r);
}

/* sh_kernel_changes: reads and stats leave it, every way of changing a
 * file's bytes moves it, a host program running makes it promise
 * nothing, and a file of the in-memory tree never has a promise. */
static void
test_content_changes(void **state)
{
    fx *f = *state;
    sh_kernel_result r = {0};
    sh_kernel_file *rd, *wr, *vf;
    char buf[16];
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "sub/file", O_RDONLY, 0, &rd, &r), 0);
    uint64_t c = sh_kernel_changes(rd);
    assert_int_not_equal(c, 0);
    assert_int_equal(sh_kernel_read(rd, buf, sizeof buf), 7);
    sh_kernel_stat st;
    assert_int_equal(sh_kernel_stat_path(f->k, f->ws, "secret", &st, &r), 0);
    sh_kernel_file *rd2;
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "secret", O_RDONLY, 0, &rd2, &r), 0);
    sh_kernel_close(rd2);
    assert_int_equal(sh_kernel_changes(rd), c);

    // An open for writing (it may truncate), then each write.
    assert_int_equal(
        sh_kernel_open(f->k, f->ws, "sub/file", O_WRONLY, 0, &wr, &r), 0);
    assert_true(sh_kernel_changes(rd) > c);
    c = sh_kernel_changes(rd);
    assert_int_equal(sh_kernel_write(wr, "x", 1), 1);
    assert_true(sh_kernel_changes(rd) > c);
    c = sh_kernel_changes(rd);
    sh_kernel_close(wr);
    assert_int_equal(sh_kernel_changes(rd), c);
    // A create, a rename, a delete.
    assert_int_equal(sh_kernel_mkdir(f->k, f->ws, "d", 0755, &r), 0);
    assert_true(sh_kernel_changes(rd) > c);
    c = sh_kernel_changes(rd);
    assert_int_equal(sh_kernel_rename(f->k, f->ws, "d", "e", &r), 0);
    assert_true(sh_kernel_changes(rd) > c);
    c = sh_kernel_changes(rd);
    assert_int_equal(sh_kernel_rmdir(f->k, f->ws, "e", &r), 0);
    assert_true(sh_kernel_changes(rd) > c);
    c = sh_kernel_changes(rd);

    // Host programs, nested and from two sides: nothing is promised
    // while one runs, and the count has moved once they all end.
    sh_kernel_outside_begin(f->k);
    assert_int_equal(sh_kernel_changes(rd), 0);
    sh_kernel_outside_begin(f->k);
    sh_kernel_outside_end(f->k);
    assert_int_equal(sh_kernel_changes(rd), 0);
    sh_kernel_outside_end(f->k);
    assert_true(sh_kernel_changes(rd) > c);

    assert_int_equal(
        sh_kernel_open(f->k, "/", "/tmp/v", O_WRONLY | O_CREAT, 0644, &vf, &r),
        0);
    assert_int_equal(sh_kernel_changes(vf), 0);
    sh_kernel_close(vf);
    sh_kernel_close(rd);
    sh_kernel_result_clear(&r);
}

static void
test_bad_binds(void **state)
{
    (void)state;
    sh_kernel *k = NULL;
    const char *b1[] = {"relative/dir"};
    sh_kernel_opts o = {.ko_binds = b1, .ko_nbinds = 1};
    assert_int_equal(sh_kernel_new(&o, &k), BOX_ECONFIG);
    const char *b2[] = {"/tmp/../tmp"};
    o.ko_binds = b2;
    assert_int_equal(sh_kernel_new(&o, &k), BOX_ECONFIG);
    // With no decider every request is a deny.
    o.ko_nbinds = 0;
    assert_int_equal(sh_kernel_new(&o, &k), BOX_OK);
    sh_kernel_result r = {0};
    sh_kernel_file *kf;
    assert_int_equal(sh_kernel_open(k, "/", "/dev/null", O_RDONLY, 0, &kf, &r),
                     EACCES);
    assert_int_equal(r.kr_outcome, SH_KR_DENIED);
    sh_kernel_result_clear(&r);
    sh_kernel_free(k);
}

/* A kernel built ahead of its call is current while each bind's path
 * names the directory it opened; not once the directory was moved away
 * and another made at its path, nor when the path is gone. */
static void
test_binds_current(void **state)
{
    (void)state;
    char dir[] = "/tmp/sh_kernel_cur.XXXXXX", bind[64], moved[64];
    assert_non_null(mkdtemp(dir));
    char real[PATH_MAX];
    assert_non_null(realpath(dir, real));
    snprintf(bind, sizeof bind, "%s/ws", real);
    snprintf(moved, sizeof moved, "%s/old", real);
    assert_int_equal(mkdir(bind, 0700), 0);
    const char *binds[] = {bind};
    sh_kernel_opts o = {.ko_binds = binds, .ko_nbinds = 1};
    sh_kernel *k = NULL;
    assert_int_equal(sh_kernel_new(&o, &k), BOX_OK);
    assert_true(sh_kernel_binds_current(k));
    assert_int_equal(rename(bind, moved), 0);
    assert_false(sh_kernel_binds_current(k));
    assert_int_equal(mkdir(bind, 0700), 0);
    assert_false(sh_kernel_binds_current(k));
    sh_kernel_free(k);
    assert_int_equal(sh_kernel_new(&o, &k), BOX_OK); // built anew: current
    assert_true(sh_kernel_binds_current(k));
    sh_kernel_free(k);
    assert_int_equal(rmdir(bind), 0);
    assert_int_equal(rmdir(moved), 0);
    assert_int_equal(rmdir(real), 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_binds_current),
        cmocka_unit_test_setup_teardown(test_host_open_read_write, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_home_reporting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vfs_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_operation_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_set_times, setup, teardown),
        cmocka_unit_test_setup_teardown(test_denials_and_faults, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_outcomes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reach_floor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_identity_recheck, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kernel_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_special_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_device_in_bind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_swap_to_fifo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vfs_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_seed_locate_generation, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_content_changes, setup, teardown),
        cmocka_unit_test(test_bad_binds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
