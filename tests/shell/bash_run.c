/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: runs one case in real bash and in the box's shell. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bash_run.h"
#include "sh_test_harness.h"

#define BD_OUT_MAX (1u << 22)
#define BD_TREE_MAX (1u << 22)

static const char bd_path_env[] = "PATH=/usr/bin:/bin";

void
bd_result_init(bd_result *r)
{
    box_buf_init(&r->br_out, BD_OUT_MAX);
    box_buf_init(&r->br_err, BD_OUT_MAX);
    box_buf_init(&r->br_tree, BD_TREE_MAX);
    r->br_status = -1;
}

void
bd_result_reset(bd_result *r)
{
    box_buf_reset(&r->br_out);
    box_buf_reset(&r->br_err);
    box_buf_reset(&r->br_tree);
    r->br_status = -1;
}

/* ---- the directory ---- */

static box_err
write_file(const char *path, const bd_text *t, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return BOX_EIO;
    size_t off = 0;
    while (off < t->t_len) {
        ssize_t w = write(fd, t->t_data + off, t->t_len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return BOX_EIO;
        }
        off += (size_t)w;
    }
    return close(fd) == 0 ? BOX_OK : BOX_EIO;
}

box_err
bd_dir_make(const char *dir, const bd_case *c, char **err)
{
    char *path = NULL;
    box_err rv = BOX_EIO;
    if (mkdir(dir, 0755) != 0) {
        *err = box_asprintf("mkdir %s: %s", dir, strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < c->bc_nfiles; i++) {
        const bd_file *f = &c->bc_files[i];
        box_free(path);
        if ((path = box_asprintf("%s/%s", dir, f->bf_path)) == NULL) {
            rv = BOX_ENOMEM;
            *err = box_strdup("out of memory");
            goto out;
        }
        // Parents first: each '/' after dir ends one.
        for (char *s = path + strlen(dir) + 1; (s = strchr(s, '/')) != NULL;
             s++) {
            *s = '\0';
            int m = mkdir(path, 0755);
            int e = errno;
            *s = '/';
            if (m != 0 && e != EEXIST) {
                *err = box_asprintf("mkdir for %s: %s", path, strerror(e));
                goto out;
            }
        }
        if (write_file(path, &f->bf_body, f->bf_exec ? 0755 : 0644) != BOX_OK) {
            *err = box_asprintf("write %s: %s", path, strerror(errno));
            goto out;
        }
    }
    rv = BOX_OK;
out:
    box_free(path);
    return rv;
}

static box_err
put_escaped(box_buf *b, const char *p, size_t n)
{
    box_err rv = BOX_OK;
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\\')
            rv = box_buf_puts(b, "\\\\");
        else if (c == '\n')
            rv = box_buf_puts(b, "\\n");
        else if (c < 0x20 || c == 0x7f)
            rv = box_buf_printf(b, "\\x%02x", c);
        else
            rv = box_buf_putc(b, (char)c);
    }
    return rv;
}

static int
cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static box_err
snap_file(const char *path, box_buf *out)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return box_buf_printf(out, ": <unreadable: %s>\n", strerror(errno));
    box_err rv = box_buf_puts(out, ": ");
    char buf[4096];
    ssize_t n;
    while (rv == BOX_OK && (n = read(fd, buf, sizeof buf)) > 0)
        rv = put_escaped(out, buf, (size_t)n);
    close(fd);
    return rv == BOX_OK ? box_buf_putc(out, '\n') : rv;
}

/* rel is "" for dir itself, else "a/b". */
static box_err
snap_dir(const char *dir, const char *rel, box_buf *out)
{
    char *path = *rel ? box_asprintf("%s/%s", dir, rel) : box_strdup(dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    box_err rv = BOX_ENOMEM;
    DIR *d = NULL;
    if (path == NULL)
        goto out;
    rv = BOX_EIO;
    if ((d = opendir(path)) == NULL)
        goto out;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            char **v = box_realloc(names, cap * sizeof *v);
            if (v == NULL) {
                rv = BOX_ENOMEM;
                goto out;
            }
            names = v;
        }
        if ((names[n] = *rel ? box_asprintf("%s/%s", rel, e->d_name)
                             : box_strdup(e->d_name)) == NULL) {
            rv = BOX_ENOMEM;
            goto out;
        }
        n++;
    }
    if (n > 1) // names is NULL for an empty directory
        qsort(names, n, sizeof *names, cmp_names);
    rv = BOX_OK;
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        char *full = box_asprintf("%s/%s", dir, names[i]);
        struct stat st;
        if (full == NULL) {
            rv = BOX_ENOMEM;
        } else if (lstat(full, &st) != 0) {
            rv = box_buf_printf(out, "%s <gone>\n", names[i]);
        } else if (S_ISDIR(st.st_mode)) {
            rv = box_buf_printf(out, "%s/\n", names[i]);
            if (rv == BOX_OK)
                rv = snap_dir(dir, names[i], out);
        } else if (S_ISLNK(st.st_mode)) {
            char t[4096];
            ssize_t l = readlink(full, t, sizeof t - 1);
            t[l > 0 ? l : 0] = '\0';
            rv = box_buf_printf(out, "%s -> %s\n", names[i], t);
        } else if (S_ISREG(st.st_mode)) {
            rv = box_buf_puts(out, names[i]);
            if (rv == BOX_OK)
                rv = snap_file(full, out);
        } else {
            rv = box_buf_printf(out, "%s <special>\n", names[i]);
        }
        box_free(full);
    }
out:
    if (d != NULL)
        closedir(d);
    for (size_t i = 0; i < n; i++)
        box_free(names[i]);
    box_free(names);
    box_free(path);
    return rv;
}

box_err
bd_dir_snapshot(const char *dir, box_buf *out)
{
    return snap_dir(dir, "", out);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    (void)remove(path);
    return 0;
}

void
bd_dir_remove(const char *dir)
{
    (void)nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- bash ---- */

static box_err
slurp(const char *path, box_buf *b)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return BOX_EIO;
    char buf[8192];
    ssize_t n;
    box_err rv = BOX_OK;
    while (rv == BOX_OK && (n = read(fd, buf, sizeof buf)) > 0)
        rv = box_buf_append(b, buf, (size_t)n);
    close(fd);
    return rv;
}

static uint64_t
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Waits for pid (its own process group) at most timeout_ms; past it the
 * group is killed. The status as a shell reports it, or -1 on timeout. */
static int
wait_bounded(pid_t pid, unsigned timeout_ms)
{
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    uint64_t end = now_ms() + timeout_ms;
    bool late = false;
    for (;;) {
        uint64_t t = now_ms();
        if (t >= end) {
            late = true;
            break;
        }
        if (pfd < 0) { // no pidfd: poll the child every millisecond
            int ws;
            pid_t w = waitpid(pid, &ws, WNOHANG);
            if (w == pid)
                return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
            continue;
        }
        struct pollfd p = {.fd = pfd, .events = POLLIN};
        if (poll(&p, 1, (int)(end - t)) > 0)
            break;
    }
    if (late)
        kill(-pid, SIGKILL);
    if (pfd >= 0)
        close(pfd);
    int ws;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (late)
        return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* Spawns bash -c script in dir, stdio from/to files under scratch. */
static box_err
spawn_bash(const char *dir, const char *scratch, const char *script,
           const bd_text *in, bd_result *r, char **err)
{
    char *inp = box_asprintf("%s/stdin", scratch);
    char *outp = box_asprintf("%s/stdout", scratch);
    char *errp = box_asprintf("%s/stderr", scratch);
    char *home = box_asprintf("HOME=%s", dir);
    box_err rv = BOX_ENOMEM;
    bool fa_init = false, at_init = false;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    if (inp == NULL || outp == NULL || errp == NULL || home == NULL)
        goto out;
    rv = BOX_EIO;
    (void)unlink(inp);
    bd_text none = {.t_data = (char *)"", .t_len = 0};
    if (write_file(inp, in != NULL ? in : &none, 0644) != BOX_OK) {
        *err = box_asprintf("write %s: %s", inp, strerror(errno));
        goto out;
    }
    posix_spawn_file_actions_init(&fa);
    fa_init = true;
    posix_spawnattr_init(&at);
    at_init = true;
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawn_file_actions_addopen(&fa, 0, in != NULL ? inp : "/dev/null",
                                     O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, outp, O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_addopen(&fa, 2, errp, O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    char *argv[] = {(char *)"bash", (char *)"--norc", (char *)"--noprofile",
                    (char *)"-c",   (char *)script,   NULL};
    char *envp[] = {(char *)bd_path_env, home, (char *)"LC_ALL=C.UTF-8",
                    (char *)"TZ=UTC", NULL};
    pid_t pid;
    int e = posix_spawn(&pid, BD_BASH, &fa, &at, argv, envp);
    if (e != 0) {
        *err = box_asprintf("cannot start %s: %s", BD_BASH, strerror(e));
        goto out;
    }
    r->br_status = wait_bounded(pid, BD_CASE_TIMEOUT_MS);
    if (slurp(outp, &r->br_out) != BOX_OK ||
        slurp(errp, &r->br_err) != BOX_OK) {
        *err = box_asprintf("read bash's output under %s", scratch);
        goto out;
    }
    rv = r->br_status < 0 ? BOX_ETIMEDOUT : BOX_OK;
out:
    if (fa_init)
        posix_spawn_file_actions_destroy(&fa);
    if (at_init)
        posix_spawnattr_destroy(&at);
    box_free(inp);
    box_free(outp);
    box_free(errp);
    box_free(home);
    return rv;
}

box_err
bd_run_bash(const char *dir, const char *scratch, const bd_case *c,
            bd_result *r, char **err)
{
    box_err rv = spawn_bash(dir, scratch, c->bc_script.t_data,
                            c->bc_has_stdin ? &c->bc_stdin : NULL, r, err);
    if (rv == BOX_OK && c->bc_compare_files)
        rv = bd_dir_snapshot(dir, &r->br_tree);
    return rv;
}

char *
bd_bash_version(const char *scratch, char **err)
{
    bd_case c = {.bc_script = {.t_data = (char *)"echo \"$BASH_VERSION\""}};
    bd_result r;
    bd_result_init(&r);
    char *v = NULL;
    if (spawn_bash(scratch, scratch, c.bc_script.t_data, NULL, &r, err) ==
        BOX_OK) {
        if (r.br_out.b_len > 0 && r.br_out.b_data[r.br_out.b_len - 1] == '\n')
            r.br_out.b_data[--r.br_out.b_len] = '\0';
        v = box_strdup(r.br_out.b_len ? r.br_out.b_data : "");
    }
    bd_result_reset(&r);
    return v;
}

/* ---- the box ---- */

/*
 * The harness's decider permits everything (no lists) and checks each
 * request's shape. The session asks under its own lock, the kernel from
 * any stage thread: one lock here makes both one at a time.
 */
typedef struct box_ctx {
    th bx_th;
    pthread_mutex_t bx_lock;
} box_ctx;

static box_verdict
box_decide(void *arg, const Box__DecisionRequest *rq, char **msg,
           box_ticket *ticket)
{
    box_ctx *b = arg;
    pthread_mutex_lock(&b->bx_lock);
    box_verdict v = th_decide(&b->bx_th, rq, msg, ticket);
    pthread_mutex_unlock(&b->bx_lock);
    return v;
}

box_err
bd_run_box(const char *dir, const bd_case *c, bd_result *r, char **err)
{
    box_ctx b = {0};
    sh_kernel *k = NULL;
    sh_session *ss = NULL;
    char *home = box_asprintf("HOME=%s", dir);
    box_err rv = BOX_ENOMEM;
    pthread_mutex_init(&b.bx_lock, NULL);
    box_buf_init(&b.bx_th.th_log, BD_OUT_MAX);
    box_buf_init(&b.bx_th.th_fslog, BD_OUT_MAX);
    if (home == NULL)
        goto out;
    const char *binds[] = {dir};
    sh_kernel_opts ko = {.ko_binds = binds,
                         .ko_nbinds = 1,
                         .ko_decide = box_decide,
                         .ko_decide_arg = &b};
    if ((rv = sh_kernel_new(&ko, &k)) != BOX_OK) {
        *err =
            box_asprintf("sh_kernel_new(bind %s): %s", dir, box_strerror(rv));
        goto out;
    }
    const char *env[] = {bd_path_env, home, "LC_ALL=C.UTF-8", "TZ=UTC", NULL};
    // Output goes straight into the result's buffers (th_out/th_err).
    th io = {0};
    io.th_out = r->br_out;
    io.th_err = r->br_err;
    sh_session_opts o = {
        .so_decide = box_decide,
        .so_decide_arg = &b,
        .so_out = th_out,
        .so_err = th_err,
        .so_io_arg = &io,
        .so_kernel = k,
        .so_cwd = dir,
        .so_env = env,
        .so_timeout_ms = BD_CASE_TIMEOUT_MS,
        // What the alias passes when an agent runs `bash -c TEXT`: its
        // argv[0] as started, as bash's $0 is (bash above runs so).
        .so_arg0 = "bash",
    };
    rv = BOX_ENOMEM;
    if ((ss = sh_session_new(&o)) == NULL) {
        *err = box_strdup("sh_session_new failed");
        goto out;
    }
    r->br_status = sh_session_run(ss, c->bc_script.t_data, c->bc_script.t_len);
    r->br_out = io.th_out;
    r->br_err = io.th_err;
    rv = c->bc_compare_files ? bd_dir_snapshot(dir, &r->br_tree) : BOX_OK;
out:
    sh_session_free(ss);
    sh_kernel_free(k);
    box_buf_reset(&b.bx_th.th_log);
    box_buf_reset(&b.bx_th.th_fslog);
    pthread_mutex_destroy(&b.bx_lock);
    box_free(home);
    return rv;
}
