/* SPDX-License-Identifier: Apache-2.0 */
/* Pathname expansion over a real kernel: bash 5.2 as the reference, decisions.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sh_test_harness.h"
#include "box_test_require.h"
#include "sh_glob.h"
#include "sh_kernel.h"

/*
 * The fixture: a temporary directory, bound as the operator home (so
 * decisions report `~/…`) and the shell's cwd, holding names that
 * exercise hidden files, classes, case, digits, UTF-8, characters that
 * are themselves pattern syntax, empty and deep directories and links.
 */
static const char *const tree[] = {
    "f a.txt",
    "f b.txt",
    "f c.log",
    "f .hidden",
    "f .dot.txt",
    "f Abc",
    "f abc",
    "f Bcd",
    "f 1.txt",
    "f 10",
    "f 2",
    "f \xc3\xa9.txt",
    "f z_x.TXT",
    "f a b",
    "f [x]",
    "f *",
    "f x?y",
    "f -a",
    "f ab.c.txt",
    "d src",
    "f src/main.c",
    "f src/x.h",
    "d src/lib",
    "f src/lib/x1.c",
    "f src/lib/y.c",
    "d src/sub",
    "f src/sub/x2.c",
    "d src/.priv",
    "f src/.priv/x3.c",
    "d empty",
    "d .hdir",
    "f .hdir/in.txt",
    "d deep",
    "d deep/a",
    "d deep/a/b",
    "f deep/a/b/c.txt",
    "l src link",
    "l nowhere dangling",
    "l src/lib deep/lnk",
};

typedef struct fx {
    char root[PATH_MAX];
    sh_kernel *k;
    th t;
} fx;

static void
mk(const char *root, const char *spec)
{
    char p[PATH_MAX * 2];
    const char *arg = spec + 2;
    if (spec[0] == 'l') { // "l TARGET LINK"
        const char *sp = strchr(arg, ' ');
        char target[PATH_MAX];
        snprintf(target, sizeof target, "%.*s", (int)(sp - arg), arg);
        snprintf(p, sizeof p, "%s/%s", root, sp + 1);
        assert_int_equal(symlink(target, p), 0);
        return;
    }
    snprintf(p, sizeof p, "%s/%s", root, arg);
    if (spec[0] == 'd') {
        assert_int_equal(mkdir(p, 0755), 0);
        return;
    }
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "content\n", 8), 8);
    close(fd);
}

static int
setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    char tmpl[] = "/tmp/sh_glob_test.XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    assert_non_null(realpath(tmpl, f->root));
    for (size_t i = 0; i < NELEM(tree); i++)
        mk(f->root, tree[i]);
    const char *binds[] = {f->root};
    sh_kernel_opts o = {
        .ko_binds = binds,
        .ko_nbinds = 1,
        .ko_operator_home = f->root,
        .ko_decide = th_decide,
        .ko_decide_arg = &f->t,
    };
    assert_int_equal(sh_kernel_new(&o, &f->k), BOX_OK);
    *state = f;
    return 0;
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(p) : unlink(p);
}

static int
teardown(void **state)
{
    fx *f = *state;
    sh_kernel_free(f->k);
    assert_int_equal(nftw(f->root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
    free(f);
    return 0;
}

/* Runs script in the box shell over the fixture (cwd: its root). */
static int
box_run(fx *f, const char *script)
{
    th *t = &f->t;
    box_buf_init(&t->th_out, 1u << 22);
    box_buf_init(&t->th_err, 1u << 22);
    box_buf_init(&t->th_log, 1u << 22);
    box_buf_init(&t->th_fslog, 1u << 22);
    static const char *const env[] = {"HOME=/home/lash", NULL};
    sh_session_opts o = {
        .so_decide = th_decide,
        .so_decide_arg = t,
        .so_out = th_out,
        .so_err = th_err,
        .so_io_arg = t,
        .so_kernel = f->k,
        .so_cwd = f->root,
        .so_env = env,
    };
    sh_session *ss = sh_session_new(&o);
    assert_non_null(ss);
    int st = sh_session_run(ss, script, strlen(script));
    sh_session_free(ss);
    return st;
}

static void
drain(int fd, box_buf *b)
{
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        assert_int_equal(box_buf_append(b, buf, (size_t)n), BOX_OK);
    close(fd);
}

/* Runs script in bash -c in dir (C.UTF-8); stderr's "bash: line 1: " becomes
 * the box shell's prefix so messages compare too. */
static int
bash_run(const char *dir, const char *script, box_buf *out, box_buf *err)
{
    int po[2], pe[2];
    assert_int_equal(pipe(po), 0);
    assert_int_equal(pipe(pe), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    posix_spawn_file_actions_addclose(&fa, po[0]);
    posix_spawn_file_actions_addclose(&fa, pe[0]);
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    char *argv[] = {(char *)"bash", (char *)"-c", (char *)script, NULL};
    char *envp[] = {(char *)"PATH=/nonexistent", (char *)"LC_ALL=C.UTF-8",
                    NULL};
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, "/bin/bash", &fa, NULL, argv, envp), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    drain(po[0], out); // small outputs: the pipes never fill
    box_buf raw;
    box_buf_init(&raw, 1u << 20);
    drain(pe[0], &raw);
    // bash -c says "bash: line 1: "; the box shell names a line only in
    // multi-line input (box-spec §3.2).
    const char *s = th_s(&raw);
    for (const char *l; (l = strstr(s, "bash: line 1: ")) != NULL; s = l + 14)
        assert_int_equal(
            box_buf_printf(err, "%.*sstrands-shell: ", (int)(l - s), s),
            BOX_OK);
    assert_int_equal(box_buf_puts(err, s), BOX_OK);
    box_buf_reset(&raw);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/*
 * Each script uses only echo / printf / shopt / set / case and shell
 * syntax; bash 5.2 and the box shell must agree on stdout, stderr (after
 * the prefix) and status byte for byte. The fixture's root is the cwd of
 * both.
 */
static const char *const cases[] = {
    // plain patterns, sorting (byte order: digits, uppercase, lowercase,
    // UTF-8 last), hidden names
    "echo *",
    "echo .*",
    "echo *.txt",
    "echo ?.txt",
    "echo ??",
    "echo ?",
    "echo *.t?t",
    "echo a*b*",
    "echo *b*",
    "echo *[0-9]",
    "echo [0-9]*",
    "echo *.",
    "echo .h*",
    // brackets: sets, negation, ranges, classes, ']' and '-' members
    "echo [ab]*",
    "echo [!ab]*",
    "echo [^ab]*",
    "echo [a-c]*",
    "echo [A-Z]*",
    "echo [[:upper:]]*",
    "echo [[:digit:]]*",
    "echo [[:alpha:]][[:alpha:]][[:alpha:]]",
    "echo [[:punct:]]*",
    "echo [[:alnum:]_]*",
    "echo [[:nosuch:]]*",
    "echo []x]*",
    "echo [!]x]*",
    "echo [-a]*",
    "echo [a-]*",
    "echo [[]*",
    "echo *[",
    "echo [[:alpha:]",
    "echo [.]*",
    "echo [\\[]*",
    // quotes and escapes: quoted characters are literal
    "echo \\*",
    "echo '*'",
    "echo \"*.txt\"",
    "echo \"a\"*",
    "echo a\\*",
    "echo \\[x\\]",
    "echo [x]",
    "echo x?y",
    "echo x\\?y",
    "echo *' '*",
    "echo \"a \"*",
    "echo s\\rc/*.c",
    "echo \"src\"/*.c",
    "echo '['ab]*",
    // variables: unquoted is a pattern, quoted is not
    "x='*.txt'; echo $x",
    "x='*.txt'; echo \"$x\"",
    "x='s*'; printf '[%s]' $x/; echo",
    "x='[ab]*'; for i in $x; do echo \"<$i>\"; done",
    "IFS=.; x='*.log'; printf '[%s]' $x; echo",
    "x='a b*'; printf '[%s]' $x; echo",
    "set -- '*.log' c; printf '[%s]' $@ \"$@\"; echo",
    // no match: the word stays
    "echo nomatch*",
    "echo *.nomatch src/*.nomatch",
    "printf '[%s]' no*match x; echo",
    // several components, trailing slash, links, empty dirs
    "echo */",
    "echo src/*/",
    "echo src/*/*.c",
    "echo */*.c",
    "echo s*/l*/x*",
    "echo src/lib/*",
    "echo empty/*",
    "echo empty/* src/x*",
    "echo ./*.log",
    "echo deep/*/*/*.txt",
    "echo deep/*/",
    "echo link/*.c",
    "echo */x.h",
    "echo */nosuch",
    "echo d*",
    "echo .hdir/* .hdir/.*",
    "echo src/.*/*",
    "echo \xc3\xa9* ?.txt [\xc3\xa9]*",
    "for f in src/*.c src/*/*.c; do echo \"<$f>\"; done",
    // options
    "shopt -s nullglob; printf '[%s]' nomatch* x; echo",
    "shopt -s nullglob; printf '[%s]' \"no*\" [x; echo",
    "shopt -s failglob; echo nomatch*; echo after",
    "shopt -s failglob; echo *.log",
    "shopt -s dotglob; echo *",
    "shopt -s dotglob; echo .*",
    "shopt -s dotglob; echo src/*/*",
    "shopt -s nocaseglob; echo abc* *.TXT [b]*",
    "shopt -s nocaseglob; echo \xc3\x89* [[:upper:]]*",
    "echo [[:alpha:]]*.txt [[:lower:]]*",
    "shopt -s globstar; echo **",
    "shopt -s globstar; echo **/*.c",
    "shopt -s globstar; echo src/**",
    "shopt -s globstar; echo **/",
    "shopt -s globstar; echo src/**/x*",
    "shopt -s globstar; echo deep/**/",
    "shopt -s globstar dotglob; echo **/*.c",
    "shopt -s globstar; echo x**/c.txt ***",
    "echo **/*.c",
    "set -f; echo *; set +f; echo *.log",
    "set -f; x='*'; echo $x; set +f; echo $x",
    // the shopt builtin itself
    "shopt nullglob; echo $?; shopt -s nullglob; shopt nullglob; echo $?",
    "shopt -p nullglob dotglob; shopt -s dotglob; shopt -p dotglob",
    "shopt -q nullglob; echo $?; shopt -s nullglob; shopt -q nullglob; "
    "echo $?",
    "shopt nosuch; echo $?",
    "shopt -s nosuch nullglob; echo $?; shopt -p nullglob",
    "shopt -s -u nullglob; echo $?",
    "shopt -s expand_aliases; shopt expand_aliases; shopt -u expand_aliases; "
    "shopt -p expand_aliases",
    "shopt; shopt -p; shopt globskipdots extglob; echo $?",
    "shopt -s nullglob; shopt -s; shopt -u -p",
    // the same matcher in case and ${x#p}
    "case abc in a*) echo yes;; esac; case '*' in \\*) echo star;; esac",
    "case a.c in [[:alpha:]].[!h]) echo c;; esac",
    "x=abc.txt; echo ${x%.t*} ${x#*.} ${x##[a-c]}",
};

static void
test_against_bash(void **state)
{
    fx *f = *state;
    if (access("/bin/bash", X_OK) != 0)
        box_test_missing("/bin/bash, the reference this test compares "
                         "globbing with (Debian: apt-get install bash)");
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(cases); i++) {
        box_buf wout, werr;
        box_buf_init(&wout, 1u << 20);
        box_buf_init(&werr, 1u << 20);
        int wst = bash_run(f->root, cases[i], &wout, &werr);
        int st = box_run(f, cases[i]);
        if (st != wst || strcmp(th_s(&f->t.th_out), th_s(&wout)) != 0 ||
            strcmp(th_s(&f->t.th_err), th_s(&werr)) != 0) {
            print_error("case %zu: %s\n  bash [%s] [%s] %d\n"
                        "  box  [%s] [%s] %d\n",
                        i, cases[i], th_s(&wout), th_s(&werr), wst,
                        th_s(&f->t.th_out), th_s(&f->t.th_err), st);
            bad++;
        }
        th_reset(&f->t);
        box_buf_reset(&wout);
        box_buf_reset(&werr);
    }
    assert_true(NELEM(cases) >= 60);
    assert_int_equal(bad, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_against_bash, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
