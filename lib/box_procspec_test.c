/* SPDX-License-Identifier: Apache-2.0 */
/* box_procspec: program lookup on a scratch tree, `~`, the box-contain
 * filesystem and environment arguments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_procspec.h"

/* The scratch tree T (canonical), made in this order, removed in the
 * reverse one. */
typedef struct fx_node {
    const char *fn_path; // below T
    mode_t fn_mode;      // S_IFDIR / S_IFREG with permissions, or S_IFLNK
    const char *fn_link; // an S_IFLNK's target
} fx_node;

static const fx_node fx_tree[] = {
    {"bin", S_IFDIR | 0755, NULL},
    {"bin/dir", S_IFDIR | 0755, NULL},
    {"other", S_IFDIR | 0755, NULL},
    {"bin/prog", S_IFREG | 0755, NULL},
    {"bin/plain", S_IFREG | 0644, NULL},
    {"other/plain", S_IFREG | 0755, NULL},
    {"link", S_IFLNK, "bin"},
    {"bin/alias", S_IFLNK, "prog"},
};
#define FX_NODES (sizeof fx_tree / sizeof *fx_tree)

typedef struct fx {
    char fx_root[PATH_MAX];
} fx;

/* One node of the tree; 0 or -1. */
static int
fx_make(const fx *f, const fx_node *n)
{
    char path[PATH_MAX * 2];
    int fd;

    snprintf(path, sizeof path, "%s/%s", f->fx_root, n->fn_path);
    if (S_ISLNK(n->fn_mode))
        return symlink(n->fn_link, path);
    if (S_ISDIR(n->fn_mode))
        return mkdir(path, n->fn_mode & 07777);
    if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
        return -1;
    close(fd);
    return chmod(path, n->fn_mode & 07777);
}

static int
setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    char tmpl[] = "/tmp/box_procspec.XXXXXX";

    if (f == NULL || mkdtemp(tmpl) == NULL ||
        realpath(tmpl, f->fx_root) == NULL)
        return -1;
    *state = f;
    for (size_t i = 0; i < FX_NODES; i++)
        if (fx_make(f, &fx_tree[i]) != 0)
            return -1;
    return 0;
}

static int
teardown(void **state)
{
    fx *f = *state;
    char path[PATH_MAX * 2];
    int rv = 0;

    for (size_t i = FX_NODES; f != NULL && i-- > 0;) {
        snprintf(path, sizeof path, "%s/%s", f->fx_root, fx_tree[i].fn_path);
        if ((S_ISDIR(fx_tree[i].fn_mode) ? rmdir(path) : unlink(path)) != 0)
            rv = -1;
    }
    if (f != NULL && rmdir(f->fx_root) != 0)
        rv = -1;
    box_free(f);
    return rv;
}

/* box_which_spelled's hit: the spelling, the canonical path, the identity. */
static void
want_which(const char *name, const char *path_list, const char *spelled,
           const char *canon)
{
    char *got_sp = NULL, *got = NULL;
    dev_t dev = 0;
    ino_t ino = 0;
    struct stat st;

    assert_int_equal(
        box_which_spelled(name, path_list, &got_sp, &got, &dev, &ino), 0);
    assert_string_equal(got_sp, spelled);
    assert_string_equal(got, canon);
    assert_int_equal(stat(canon, &st), 0);
    assert_true(dev == st.st_dev && ino == st.st_ino);
    box_free(got_sp);
    box_free(got);
}

static void
test_which_found(void **state)
{
    fx *f = *state;
    char search[PATH_MAX * 4], prog[PATH_MAX * 2], plain[PATH_MAX * 2];
    char sp[PATH_MAX * 2], sh[PATH_MAX];

    snprintf(prog, sizeof prog, "%s/bin/prog", f->fx_root);
    snprintf(plain, sizeof plain, "%s/other/plain", f->fx_root);
    // Empty and relative entries skipped; a trailing '/' is not doubled;
    // bin/plain has no x bit and bin/dir is a directory: the walk goes on.
    snprintf(search, sizeof search, "::bin:%s/bin/::%s/other:", f->fx_root,
             f->fx_root);
    want_which("prog", search, prog, prog);
    want_which("plain", search, plain, plain);
    // A symlinked directory and a symlinked file: canonical, as spelled.
    snprintf(search, sizeof search, "%s/link", f->fx_root);
    snprintf(sp, sizeof sp, "%s/link/alias", f->fx_root);
    want_which("alias", search, sp, prog);
    // A '/' name is that path, PATH unread.
    want_which(sp, "/nonexistent", sp, prog);
    // NULL or empty PATH: the default.
    assert_non_null(realpath("/usr/bin/sh", sh));
    want_which("sh", NULL, "/usr/bin/sh", sh);
    want_which("sh", "", "/usr/bin/sh", sh);
    // box_which: the same walk, canonical path and identity only.
    char *got = NULL;
    dev_t dev = 0;
    ino_t ino = 0;
    struct stat st;
    snprintf(search, sizeof search, "%s/bin", f->fx_root);
    assert_int_equal(box_which("prog", search, &got, &dev, &ino), 0);
    assert_string_equal(got, prog);
    assert_int_equal(stat(prog, &st), 0);
    assert_true(dev == st.st_dev && ino == st.st_ino);
    box_free(got);
}

static void
test_which_not_found(void **state)
{
    fx *f = *state;
    char search[PATH_MAX * 2], w[PATH_MAX * 2], cwd[PATH_MAX];
    char *sp = (char *)"x", *got = (char *)"x";
    dev_t dev;
    ino_t ino;

    snprintf(search, sizeof search, "%s/bin", f->fx_root);
    assert_int_equal(
        box_which_spelled("missing", search, &sp, &got, &dev, &ino), ENOENT);
    assert_null(sp);
    assert_null(got);
    assert_int_equal(box_which_spelled("dir", search, &sp, &got, &dev, &ino),
                     ENOENT);
    assert_int_equal(box_which_spelled("plain", search, &sp, &got, &dev, &ino),
                     ENOENT);
    assert_int_equal(box_which_spelled("", search, &sp, &got, &dev, &ino),
                     ENOENT);
    assert_int_equal(box_which_spelled(NULL, search, &sp, &got, &dev, &ino),
                     ENOENT);
    // Only empty entries: nothing to walk (not the default).
    assert_int_equal(box_which("sh", ":::", &got, &dev, &ino), ENOENT);
    // A relative entry is never tried, even where the cwd would match.
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->fx_root), 0);
    assert_int_equal(box_which("prog", "bin", &got, &dev, &ino), ENOENT);
    assert_int_equal(box_which("prog", ":bin:", &got, &dev, &ino), ENOENT);
    assert_int_equal(chdir(cwd), 0);
    // '/' names: exists but not runnable, absent, through a file.
    snprintf(w, sizeof w, "%s/bin/plain", f->fx_root);
    assert_int_equal(box_which_spelled(w, NULL, &sp, &got, &dev, &ino), EACCES);
    snprintf(w, sizeof w, "%s/bin/dir", f->fx_root);
    assert_int_equal(box_which(w, NULL, &got, &dev, &ino), EACCES);
    snprintf(w, sizeof w, "%s/bin/none", f->fx_root);
    assert_int_equal(box_which(w, NULL, &got, &dev, &ino), ENOENT);
    snprintf(w, sizeof w, "%s/bin/prog/x", f->fx_root);
    assert_int_equal(box_which(w, NULL, &got, &dev, &ino), ENOENT);
    assert_null(sp);
    assert_null(got);
}

static void
want_expand(const char *entry, const char *home, const char *want)
{
    char *got = box_procspec_expand(entry, home);
    assert_non_null(got);
    assert_string_equal(got, want);
    box_free(got);
}

static void
test_expand(void **state)
{
    (void)state;
    want_expand("~", "/home/op", "/home/op");
    want_expand("~/", "/home/op", "/home/op/");
    want_expand("~/a/b", "/home/op", "/home/op/a/b");
    want_expand("~/a", "/home/op/", "/home/op/a");
    want_expand("~/a", "/", "/a");
    want_expand("/abs/~/x", "/home/op", "/abs/~/x");
    want_expand("~user/x", "/home/op", "~user/x");
    want_expand("~/a", NULL, "~/a");
}

/* av from index from on equals want[] (NULL-terminated), then ends. */
static void
want_argv(const box_argv *av, size_t from, const char *const *want)
{
    size_t i = 0;
    for (; want[i] != NULL; i++) {
        assert_true(from + i < av->av_n);
        assert_string_equal(av->av_v[from + i], want[i]);
    }
    assert_int_equal(av->av_n, from + i);
    assert_null(av->av_v[av->av_n]);
}

#define STRV(...)                                                              \
    {                                                                          \
        .sv_items = (char *[]){__VA_ARGS__, NULL},                             \
        .sv_len = sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)             \
    }

static void
test_fs_args_order(void **state)
{
    (void)state;
    box_config_process pr = {
        .pr_fs = {
            [BOX_GRANT_DENY] = STRV("~/.ssh"),
            [BOX_GRANT_EXEC] = STRV("/opt/bin"),
            [BOX_GRANT_READ] = STRV("~/src", "/etc/x", "~"),
            [BOX_GRANT_WRITE] = STRV("/tmp/w"),
            [BOX_GRANT_READ_FILE] = STRV("/f/r"),
            [BOX_GRANT_WRITE_FILE] = STRV("~/f/w"),
            [BOX_GRANT_LIST] = STRV("/l"),
            [BOX_GRANT_METADATA] = STRV("/m"),
        }};
    box_argv av = {0};

    assert_int_equal(box_argv_push(&av, "box-contain"), BOX_OK);
    assert_int_equal(box_procspec_fs_args(&av, &pr, "/home/op"), BOX_OK);
    want_argv(
        &av, 1,
        (const char *[]){
            "--read",      "/home/op/src", "--read",       "/etc/x",
            "--read",      "/home/op",     "--write",      "/tmp/w",
            "--read-file", "/f/r",         "--write-file", "/home/op/f/w",
            "--list",      "/l",           "--metadata",   "/m",
            "--exec",      "/opt/bin",     "--deny",       "/home/op/.ssh",
            NULL});
    box_argv_free(&av);
    assert_null(av.av_v);
    // No lists: nothing appended.
    box_config_process none = {0};
    assert_int_equal(box_procspec_fs_args(&av, &none, "/home/op"), BOX_OK);
    assert_int_equal(av.av_n, 0);
    box_argv_free(&av);
}

#define ENV(n, v)                                                              \
    {                                                                          \
        .ev_name = (char *)(n), .ev_value = (char *)(v)                        \
    }

static void
test_env(void **state)
{
    (void)state;
    // HOME is second in the table, PATH in the middle: HOME still leads,
    // PATH still ends, the rest keep source order.
    box_config_envvar ev[] = {ENV("LANG", "C"), ENV("HOME", "/h"),
                              ENV("PATH", "/p:/q"), ENV("FOO", "bar")};
    box_config_process pr = {.pr_env = ev, .pr_nenv = 4};
    box_argv av = {0};

    assert_string_equal(box_procspec_env(&pr, "FOO"), "bar");
    assert_null(box_procspec_env(&pr, "NOPE"));
    assert_int_equal(box_procspec_env_args(&av, &pr, "/home/op", "/ws",
                                           "/usr/local/bin:/usr/bin", NULL,
                                           NULL),
                     BOX_OK);
    want_argv(&av, 0,
              (const char *[]){"--env", "HOME=/h", "--env", "LANG=C", "--env",
                               "FOO=bar", "--env", "PWD=/ws", "--env",
                               "USER=strands-box", "--env", "PATH=/p:/q",
                               NULL});
    box_argv_free(&av);
    // The agent's bin/ goes first on PATH.
    assert_int_equal(
        box_procspec_env_args(&av, &pr, "/home/op", "/ws", NULL, "/box/bin", NULL),
        BOX_OK);
    assert_string_equal(av.av_v[av.av_n - 1], "PATH=/box/bin:/p:/q");
    box_argv_free(&av);
}

static void
test_env_defaults(void **state)
{
    (void)state;
    box_config_envvar ev[] = {ENV("PATH", "")};
    box_config_process bare = {0}, empty = {.pr_env = ev, .pr_nenv = 1};
    box_argv av = {0};

    // No HOME: the operator's; no PATH: the operator's.
    assert_int_equal(box_procspec_env_args(&av, &bare, "/home/op", "/ws",
                                           "/usr/local/bin:/bin", "/box/bin",
                                           NULL),
                     BOX_OK);
    want_argv(&av, 0,
              (const char *[]){"--env", "HOME=/home/op", "--env", "PWD=/ws",
                               "--env", "USER=strands-box", "--env",
                               "PATH=/box/bin:/usr/local/bin:/bin", NULL});
    box_argv_free(&av);
    // An empty spec PATH counts as unset; no operator PATH: the default.
    assert_string_equal(box_procspec_path(&empty, "/op/bin"), "/op/bin");
    assert_string_equal(box_procspec_path(&empty, ""),
                        BOX_PROCSPEC_DEFAULT_PATH);
    assert_string_equal(box_procspec_path(&bare, NULL),
                        BOX_PROCSPEC_DEFAULT_PATH);
    assert_int_equal(
        box_procspec_env_args(&av, &empty, "/home/op", "/", NULL, NULL, NULL),
        BOX_OK);
    want_argv(&av, 0,
              (const char *[]){"--env", "HOME=/home/op", "--env", "PWD=/",
                               "--env", "USER=strands-box", "--env",
                               "PATH=" BOX_PROCSPEC_DEFAULT_PATH, NULL});
    box_argv_free(&av);
}

/* With the gateway: the proxy names after the spec's, the trust names
 * last (box-spec §5's order), and box-contain's --egress. */
static void
test_env_egress(void **state)
{
    (void)state;
    box_config_envvar ev[] = {ENV("FOO", "bar")};
    box_config_process pr = {.pr_env = ev, .pr_nenv = 1};
    box_procspec_egress eg = {.eg_socket = "/b/run/egress.sock",
                              .eg_port = 41234,
                              .eg_ca = "/b/trust/cert.pem"};
    box_argv av = {0};
    assert_int_equal(
        box_procspec_env_args(&av, &pr, "/home/op", "/ws", "/bin", NULL, &eg),
        BOX_OK);
    want_argv(
        &av, 0,
        (const char *[]){"--env",
                         "HOME=/home/op",
                         "--env",
                         "FOO=bar",
                         "--env",
                         "NODE_USE_ENV_PROXY=1",
                         "--env",
                         "HTTP_PROXY=http://127.0.0.1:41234",
                         "--env",
                         "HTTPS_PROXY=http://127.0.0.1:41234",
                         "--env",
                         "http_proxy=http://127.0.0.1:41234",
                         "--env",
                         "https_proxy=http://127.0.0.1:41234",
                         "--env",
                         "ALL_PROXY=http://127.0.0.1:41234",
                         "--env",
                         "all_proxy=http://127.0.0.1:41234",
                         "--env",
                         "NO_PROXY=127.0.0.1,localhost",
                         "--env",
                         "no_proxy=127.0.0.1,localhost",
                         "--env",
                         "PWD=/ws",
                         "--env",
                         "USER=strands-box",
                         "--env",
                         "PATH=/bin",
                         "--env",
                         "SSL_CERT_FILE=/b/trust/cert.pem",
                         "--env",
                         "CURL_CA_BUNDLE=/b/trust/cert.pem",
                         "--env",
                         "REQUESTS_CA_BUNDLE=/b/trust/cert.pem",
                         "--env",
                         "NODE_EXTRA_CA_CERTS=/b/trust/cert.pem",
                         "--env",
                         "GIT_SSL_CAINFO=/b/trust/cert.pem",
                         "--env",
                         "PIP_CERT=/b/trust/cert.pem",
                         NULL});
    box_argv_free(&av);
    assert_int_equal(box_procspec_egress_args(&av, &eg), BOX_OK);
    want_argv(&av, 0,
              (const char *[]){"--egress", "/b/run/egress.sock:41234",
                               "--read-file", "/b/trust/cert.pem", NULL});
    box_argv_free(&av);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_egress),
        cmocka_unit_test(test_which_found),
        cmocka_unit_test(test_which_not_found),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_fs_args_order),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_env_defaults),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
