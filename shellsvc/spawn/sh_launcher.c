/* SPDX-License-Identifier: Apache-2.0 */
/* The launcher's start function and the broker's request to it. */
#include "sh_launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_confine.h"
#include "box_log.h"
#include "box_proctab.h"
#include "box_svc.h"
#include "forker.h"

#define LN_NAME "box-shell-lnch"
#define LN_OP_STDIN 'I'        // fds: argv, stdin, stdout, stderr
#define LN_OP_NULL 'N'         // fds: argv, stdout, stderr (stdin /dev/null)
#define LN_ARGV_MAX (8u << 20) // far above what a call's text can make
#define LN_ARGC_MAX 65536

struct sh_launcher {
    forker *ln_forker;
};

/* Reads the NUL-separated argv the broker wrote into a memfd. Returns 0
 * with *blob (free) and *argv (free; pointers into blob), or an errno. */
static int
ln_read_argv(int fd, char **blob, char ***argv)
{
    struct stat st;
    *blob = NULL;
    *argv = NULL;
    if (fstat(fd, &st) != 0)
        return errno;
    if (st.st_size <= 0 || (size_t)st.st_size > LN_ARGV_MAX)
        return E2BIG;
    size_t len = (size_t)st.st_size;
    char *b = box_alloc(len + 1);
    if (b == NULL)
        return ENOMEM;
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, b + got, len - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            box_free(b);
            return n < 0 ? errno : EIO;
        }
        got += (size_t)n;
    }
    b[len] = '\0';
    size_t argc = 0;
    for (size_t i = 0; i < len; i++)
        argc += b[i] == '\0';
    if (b[len - 1] != '\0' || argc == 0 || argc > LN_ARGC_MAX || b[0] != '/') {
        box_free(b);
        return EINVAL;
    }
    char **v = box_calloc(argc + 1, sizeof *v);
    if (v == NULL) {
        box_free(b);
        return ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < len; i += strlen(b + i) + 1)
        v[k++] = b + i;
    *blob = b;
    *argv = v;
    return 0;
}

/*
 * Runs in the launcher. box-contain gets default signal dispositions,
 * nothing blocked, an environment holding only the tie to the launcher,
 * exactly three descriptors, and a process group of its own (so the run
 * can be killed whole and cannot signal anyone else's group).
 */
static int
ln_start(void *ctx, char op, const int *fds, size_t n, pid_t *pid)
{
    (void)ctx;
    bool has_in = op == LN_OP_STDIN;
    if ((op != LN_OP_STDIN && op != LN_OP_NULL) || n != (has_in ? 4u : 3u))
        return EINVAL;
    char *blob = NULL, **argv = NULL;
    int rc = ln_read_argv(fds[0], &blob, &argv);
    if (rc != 0)
        return rc;
    const int *io = fds + 1;
    posix_spawn_file_actions_t fa;
    char *envp[] = {NULL};
    if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
        goto out;
    rc = has_in ? posix_spawn_file_actions_adddup2(&fa, io[0], 0)
                : posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
                                                   O_RDONLY, 0);
    if (has_in)
        io++;
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, io[0], 1);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, io[1], 2);
    if (rc == 0)
        rc = box_svc_spawn(pid, argv[0], &fa, argv, envp,
                           BOX_SPAWN_NEW_GROUP | BOX_SPAWN_TIED);
    posix_spawn_file_actions_destroy(&fa);
out:
    box_free(argv);
    box_free(blob);
    return rc;
}

/*
 * The launcher's own confinement: an empty environment, nothing open but
 * its request socket, no_new_privs and the shared seccomp denylist, less
 * what box-contain needs to build a sandbox (user namespaces, mounts).
 * No Landlock domain: box-contain and every program it runs would inherit
 * it, and each leaf gets its own from box-contain instead.
 */
static int
ln_prepare(void *ctx)
{
    (void)ctx;
    box_confine_spec spec;
    char *err = NULL;
    box_confine_spec_init(&spec, BOX_PROFILE_LAUNCHER);
    spec.cs_no_landlock = true;
    spec.cs_sc_let_namespaces = true;
    box_err rv =
        box_confine_keep_row_env(&spec, box_proctab_get(BOX_PROC_LAUNCHER));
    for (int fd = 0; fd <= FORKER_CTL_FD && rv == BOX_OK; fd++)
        rv = box_confine_keep_fd(&spec, fd);
    if (rv == BOX_OK)
        rv = box_proc_confine(&spec, &err);
    if (rv != BOX_OK)
        box_log(BOX_LOG_ERROR, "box-shell", "cannot confine the launcher: %s",
                err != NULL ? err : box_strerror(rv));
    box_confine_spec_free(&spec);
    box_free(err);
    return rv == BOX_OK ? 0 : -1;
}

box_err
sh_launcher_start(sh_launcher **out)
{
    sh_launcher *l = box_calloc(1, sizeof *l);
    if (l == NULL)
        return BOX_ENOMEM;
    static const forker_ops ops = {.fo_start = ln_start,
                                   .fo_prepare = ln_prepare};
    box_err rv = forker_start(LN_NAME, &ops, NULL, &l->ln_forker);
    if (rv != BOX_OK) {
        box_free(l);
        return rv;
    }
    *out = l;
    return BOX_OK;
}

/* argv, NUL-separated, in a sealed memfd (no size limit of a socket
 * message, and the launcher reads exactly what was written). */
static int
ln_argv_fd(char *const *argv)
{
    box_buf b;
    box_buf_init(&b, LN_ARGV_MAX);
    int fd = -1;
    for (size_t i = 0; argv[i] != NULL; i++) {
        if (box_buf_append(&b, argv[i], strlen(argv[i]) + 1) != BOX_OK)
            goto out;
    }
    fd = memfd_create("box-launch-argv", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        goto out;
    size_t off = 0;
    while (off < b.b_len) {
        ssize_t n = write(fd, b.b_data + off, b.b_len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            fd = -1;
            goto out;
        }
        off += (size_t)n;
    }
    (void)fcntl(fd, F_ADD_SEALS,
                F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
out:
    box_buf_reset(&b);
    return fd;
}

/* Sends one run's request: its argv and descriptors, the status pipe's
 * write end first. */
static box_err
ln_request(sh_launcher *l, char *const *argv, int in, int out, int err,
           int status)
{
    if (argv == NULL || argv[0] == NULL || argv[0][0] != '/')
        return BOX_EINVAL;
    int afd = ln_argv_fd(argv);
    if (afd < 0)
        return errno == ENOMEM ? BOX_ENOMEM : BOX_EIO;
    int fds[5];
    size_t n = 0;
    fds[n++] = status;
    fds[n++] = afd;
    if (in >= 0)
        fds[n++] = in;
    fds[n++] = out;
    fds[n++] = err;
    box_err rv = forker_request(l->ln_forker,
                                in >= 0 ? LN_OP_STDIN : LN_OP_NULL, fds, n);
    close(afd);
    return rv;
}

box_err
sh_launcher_run(sh_launcher *l, char *const *argv, const int io[3],
                int *status_fd)
{
    int st[2];
    *status_fd = -1;
    if (pipe2(st, O_CLOEXEC) != 0)
        return errno == ENOMEM ? BOX_ENOMEM : BOX_EIO;
    box_err rv = ln_request(l, argv, io[0], io[1], io[2], st[1]);
    close(st[1]); // the launcher holds its own copy
    if (rv != BOX_OK) {
        close(st[0]);
        return rv;
    }
    *status_fd = st[0];
    return BOX_OK;
}

int
sh_launcher_pid(const sh_launcher *l)
{
    return (int)forker_pid(l->ln_forker);
}

int
sh_launcher_fd(const sh_launcher *l)
{
    return forker_fd(l->ln_forker);
}

void
sh_launcher_stop(sh_launcher *l)
{
    if (l == NULL)
        return;
    forker_stop(l->ln_forker);
    box_free(l);
}
