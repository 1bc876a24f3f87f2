/* SPDX-License-Identifier: Apache-2.0 */
/* Pathname expansion over a real kernel: bash 5.2 as the reference, decisions.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sh_test_harness.h"
#include "box_test_require.h"
#include "box_testutil.h"
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
    fx *f = box_calloc(1, sizeof *f);
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
teardown(void **state)
{
    fx *f = *state;
    sh_kernel_free(f->k);
    box_test_rmtree(f->root);
    box_free(f);
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

/* Runs script in bash -c in dir (C.UTF-8); stderr's "bash: line 1: " becomes
 * the box shell's prefix so messages compare too. */
static int
bash_run(const char *dir, const char *script, box_buf *out, box_buf *err)
{
    char *envp[] = {(char *)"PATH=/nonexistent", (char *)"LC_ALL=C.UTF-8",
                    NULL};
    box_buf raw;
    box_buf_init(&raw, 1u << 20);
    int st = th_run_ref("/bin/bash", dir, script, envp, out, &raw);
    // bash -c says "bash: line 1: "; the box shell names a line only in
    // multi-line input (box-spec §3.2).
    const char *s = th_s(&raw);
    for (const char *l; (l = strstr(s, "bash: line 1: ")) != NULL; s = l + 14)
        assert_int_equal(
            box_buf_printf(err, "%.*sstrands-shell: ", (int)(l - s), s),
            BOX_OK);
    assert_int_equal(box_buf_puts(err, s), BOX_OK);
    box_buf_reset(&raw);
    return st;
}

/*
 * Each script uses only echo / printf / shopt / set / case and shell
 * syntax; bash 5.2 and the box shell must agree on stdout, stderr (after
 * the prefix) and status byte for byte. The fixture's root is the cwd of
 * both.
 */
static const char *const bash_cases[] = {
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
    "x='\\*'; echo $x; x='\\[x]'; echo $x; x='c\\.log'; echo $x*",
    "x='[x'; echo $x* $x]",
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
    for (size_t i = 0; i < NELEM(bash_cases); i++) {
        box_buf wout, werr;
        box_buf_init(&wout, 1u << 20);
        box_buf_init(&werr, 1u << 20);
        int wst = bash_run(f->root, bash_cases[i], &wout, &werr);
        int st = box_run(f, bash_cases[i]);
        if (st != wst || strcmp(th_s(&f->t.th_out), th_s(&wout)) != 0 ||
            strcmp(th_s(&f->t.th_err), th_s(&werr)) != 0) {
            print_error("case %zu: %s\n  bash [%s] [%s] %d\n"
                        "  box  [%s] [%s] %d\n",
                        i, bash_cases[i], th_s(&wout), th_s(&werr), wst,
                        th_s(&f->t.th_out), th_s(&f->t.th_err), st);
            bad++;
        }
        th_reset(&f->t);
        box_buf_reset(&wout);
        box_buf_reset(&werr);
    }
    assert_true(NELEM(bash_cases) >= 60);
    assert_int_equal(bad, 0);
}

/* The fs:read enumerate lines of the last run, sorted. */
static char *
enumerated(const th *t)
{
    const char *log = th_s(&t->th_fslog);
    char *lines[256];
    size_t n = 0;
    for (const char *p = log; (p = strstr(p, "fs:read enumerate ")) != NULL;) {
        const char *e = strchr(p, '\n');
        assert_true(n < NELEM(lines));
        lines[n++] = box_strndup(p, (size_t)(e - p + 1));
        p = e;
    }
    for (size_t a = 1; a < n; a++) // insertion sort: a handful of lines
        for (size_t b = a; b > 0 && strcmp(lines[b - 1], lines[b]) > 0; b--) {
            char *x = lines[b];
            lines[b] = lines[b - 1];
            lines[b - 1] = x;
        }
    box_buf all;
    box_buf_init(&all, 1u << 20);
    assert_int_equal(box_buf_puts(&all, ""), BOX_OK);
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(box_buf_puts(&all, lines[k]), BOX_OK);
        box_free(lines[k]);
    }
    return box_buf_take(&all);
}

typedef struct dcase {
    const char *script;
    const char *out;        // stdout
    const char *enumerated; // sorted "fs:read enumerate PATH\n" lines
    const char *first;      // the first fs:* line (the prefix), or NULL
} dcase;

/*
 * Each directory a glob walks is one fs:read enumerate with the spec's
 * reported path (`~/…` under the operator home), the literal prefix
 * first and no directory twice; nothing else is listed, and no glob
 * ever reads a file's contents.
 */
static void
test_each_directory_once(void **state)
{
    fx *f = *state;
    static const dcase cases[] = {
        {"echo *.log", "c.log\n", "fs:read enumerate ~\n",
         "fs:read enumerate ~\n"},
        {"echo src/lib/*.c", "src/lib/x1.c src/lib/y.c\n",
         "fs:read enumerate ~/src/lib\n", "fs:read enumerate ~/src/lib\n"},
        {"echo src/*/*.c", "src/lib/x1.c src/lib/y.c src/sub/x2.c\n",
         "fs:read enumerate ~/src\nfs:read enumerate ~/src/lib\n"
         "fs:read enumerate ~/src/sub\n",
         "fs:read enumerate ~/src\n"},
        {"echo deep/*/*/*.txt", "deep/a/b/c.txt\n",
         "fs:read enumerate ~/deep\nfs:read enumerate ~/deep/a\n"
         "fs:read enumerate ~/deep/a/b\n",
         "fs:read enumerate ~/deep\n"},
        {"shopt -s globstar; echo **/y*", "src/lib/y.c\n",
         "fs:read enumerate ~\nfs:read enumerate ~/deep\n"
         "fs:read enumerate ~/deep/a\nfs:read enumerate ~/deep/a/b\n"
         "fs:read enumerate ~/empty\nfs:read enumerate ~/src\n"
         "fs:read enumerate ~/src/lib\nfs:read enumerate ~/src/sub\n",
         "fs:read enumerate ~\n"},
        {"echo src/*.h", "src/x.h\n", "fs:read enumerate ~/src\n", NULL},
        {"echo 'src/*' \"*\" \\*", "src/* * *\n", "", NULL},
        {"set -f; echo src/*", "src/*\n", "", NULL},
        {"echo */x.h", "link/x.h src/x.h\n", "fs:read enumerate ~\n",
         "fs:read enumerate ~\n"},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        int st = box_run(f, cases[i].script);
        char *en = enumerated(&f->t);
        const char *log = th_s(&f->t.th_fslog);
        if (st != 0 || strcmp(th_s(&f->t.th_out), cases[i].out) != 0 ||
            strcmp(en, cases[i].enumerated) != 0 ||
            strstr(log, "read_content") != NULL ||
            (cases[i].first != NULL &&
             strncmp(log, cases[i].first, strlen(cases[i].first)) != 0))
            fail_msg("case %zu: %s\n  status %d out [%s] err [%s]\n"
                     "  enumerated [%s]\n  log [%s]",
                     i, cases[i].script, st, th_s(&f->t.th_out),
                     th_s(&f->t.th_err), en, log);
        box_free(en);
        th_reset(&f->t);
    }
}

/* The whole log of one walk, in order: the prefix listed, then in name
 * order a read_metadata probe per candidate (the spec's "glob match"),
 * each directory listed as soon as its probe found it; the same on every
 * file system. */
static void
test_decision_order(void **state)
{
    fx *f = *state;
    assert_int_equal(box_run(f, "echo src/*/*.c"), 0);
    assert_string_equal(th_s(&f->t.th_fslog),
                        "fs:read enumerate ~/src\n"
                        "fs:read read_metadata ~/src/lib\n"
                        "fs:read enumerate ~/src/lib\n"
                        "fs:read read_metadata ~/src/main.c\n"
                        "fs:read read_metadata ~/src/sub\n"
                        "fs:read enumerate ~/src/sub\n"
                        "fs:read read_metadata ~/src/x.h\n");
    th_reset(&f->t);
}

/* The absolute spelling walks the same directories (reported from the
 * root of the operator home). */
static void
test_absolute_pattern(void **state)
{
    fx *f = *state;
    char script[PATH_MAX + 64], want[2 * PATH_MAX + 64];
    snprintf(script, sizeof script, "echo %s/src/*/y*", f->root);
    snprintf(want, sizeof want, "%s/src/lib/y.c\n", f->root);
    assert_int_equal(box_run(f, script), 0);
    assert_string_equal(th_s(&f->t.th_out), want);
    char *en = enumerated(&f->t);
    assert_string_equal(en, "fs:read enumerate ~/src\n"
                            "fs:read enumerate ~/src/lib\n"
                            "fs:read enumerate ~/src/sub\n");
    box_free(en);
    th_reset(&f->t);
}

typedef struct deny_case {
    const char *script;
    const char *deny_fs; // reported paths denied (th_deny_fs)
    const char *out, *err;
    int status;
} deny_case;

/* box-spec §3.6: a denied directory (or probe) drops the matches under
 * it only, silently: the glob answers "no match" there, not an error. */
static void
test_denied_directory_drops_only_under_it(void **state)
{
    fx *f = *state;
    static const deny_case cases[] = {
        {"echo src/*/*.c", "~/src/lib", "src/sub/x2.c\n", "", 0},
        {"echo src/*/*.c", "~/src/sub", "src/lib/x1.c src/lib/y.c\n", "", 0},
        {"echo src/lib/*.c src/*.h", "~/src/lib", "src/lib/*.c src/x.h\n", "",
         0},
        {"echo *.log", "~", "*.log\n", "", 0},
        {"echo */", "~/src,~/empty", "deep/\n", "", 0},
        {"echo */x.h", "~/src/x.h", "*/x.h\n", "", 0},
        {"shopt -s nullglob; printf '[%s]' src/lib/* x; echo", "~/src/lib",
         "[x]\n", "", 0},
        {"shopt -s failglob; echo src/lib/*; echo after", "~/src/lib", "",
         "strands-shell: no match: src/lib/*\n", 1},
        {"shopt -s globstar; echo **/*.c", "~/src/lib",
         "src/main.c src/sub/x2.c\n", "", 0},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        f->t.th_deny_fs = cases[i].deny_fs;
        int st = box_run(f, cases[i].script);
        if (st != cases[i].status ||
            strcmp(th_s(&f->t.th_out), cases[i].out) != 0 ||
            strcmp(th_s(&f->t.th_err), cases[i].err) != 0)
            fail_msg("case %zu: %s (deny %s)\n  status %d out [%s] err [%s]", i,
                     cases[i].script, cases[i].deny_fs, st, th_s(&f->t.th_out),
                     th_s(&f->t.th_err));
        th_reset(&f->t);
    }
    f->t.th_deny_fs = NULL;
}

/* No decision could be made: the call stops, 125, nothing more runs. */
static void
test_fault_stops_the_call(void **state)
{
    fx *f = *state;
    f->t.th_fault_fs = "~/src";
    assert_int_equal(box_run(f, "echo src/*; echo after"), 125);
    assert_string_equal(th_s(&f->t.th_out), "");
    assert_string_equal(th_s(&f->t.th_err),
                        "strands-shell: effect interception failed: the "
                        "policy decision point did not answer\n");
    th_reset(&f->t);
    f->t.th_fault_fs = NULL;
}

typedef struct bcase {
    const char *script;
    const char *out, *err;
    int status;
} bcase;

/* What only the box shell does: options it refuses, rather than accept
 * and ignore, and $- with set -f. */
static void
test_box_only(void **state)
{
    fx *f = *state;
    static const bcase cases[] = {
        {"shopt -u globskipdots", "",
         "strands-shell: shopt: globskipdots: cannot be unset in this shell "
         "(not implemented)\n",
         2},
        {"shopt -s globskipdots globasciiranges; shopt -u extglob; echo ok",
         "ok\n", "", 0},
        {"shopt -s extdebug xpg_echo lastpipe", "",
         "strands-shell: shopt: extdebug: cannot be set in this shell (not "
         "implemented)\nstrands-shell: shopt: xpg_echo: cannot be set in this "
         "shell (not implemented)\nstrands-shell: shopt: lastpipe: cannot be "
         "set in this shell (not implemented)\n",
         2},
        {"shopt -o errexit", "",
         "strands-shell: shopt: -o: unsupported option (use set)\n", 2},
        {"shopt -x", "",
         "strands-shell: shopt: -x: invalid option\nshopt: usage: shopt "
         "[-pqsu] [-o] [optname ...]\n",
         2},
        {"set -f; echo $-; set +f; echo \"[$-]\"", "fhBc\n[hBc]\n", "", 0},
        {"shopt -s nullglob; (shopt -u nullglob); echo no*", "\n", "", 0},
        {"f() { shopt -s dotglob; }; f; echo .d*", ".dot.txt\n", "", 0},
        // the example, and the in-memory file system alike
        {"wc -l *.log; cat *.log", "1 c.log\ncontent\n", "", 0},
        {"mkdir /tmp/g /tmp/g/d; : > /tmp/g/b; : > /tmp/g/a; cd /tmp/g; "
         "echo /tmp/g/* /tmp/g/*/ * */ /bin/ca?",
         "/tmp/g/a /tmp/g/b /tmp/g/d /tmp/g/d/ a b d d/ /bin/cat\n", "", 0},
    };
    for (size_t i = 0; i < NELEM(cases); i++) {
        int st = box_run(f, cases[i].script);
        if (st != cases[i].status ||
            strcmp(th_s(&f->t.th_out), cases[i].out) != 0 ||
            strcmp(th_s(&f->t.th_err), cases[i].err) != 0)
            fail_msg("case %zu: %s\n  status %d out [%s] err [%s]", i,
                     cases[i].script, st, th_s(&f->t.th_out),
                     th_s(&f->t.th_err));
        th_reset(&f->t);
    }
}

/* The matcher alone: what globbing, case and ${x#p} share. */
static void
test_matcher(void **state)
{
    (void)state;
    assert_true(sh_glob_match("*", "", 0));
    assert_true(sh_glob_match("*", ".x", 0));
    assert_false(sh_glob_match("*", ".x", SH_GM_PERIOD));
    assert_true(sh_glob_match(".*", ".x", SH_GM_PERIOD));
    assert_true(sh_glob_match("\\.*", ".x", SH_GM_PERIOD));
    assert_false(sh_glob_match("?x", ".x", SH_GM_PERIOD));
    assert_true(sh_glob_match("a*b*c", "aXbYbZc", 0));
    assert_false(sh_glob_match("a*b*c", "aXbYbZ", 0));
    assert_true(sh_glob_match("?", "\xc3\xa9", 0));
    assert_false(sh_glob_match("??", "\xc3\xa9", 0));
    assert_true(sh_glob_match("?", "\xff", 0)); // an invalid byte: one char
    assert_true(sh_glob_match("[\xc3\xa0-\xc3\xbf]", "\xc3\xa9", 0));
    assert_true(sh_glob_match("\\*", "*", 0));
    assert_false(sh_glob_match("\\*", "x", 0));
    assert_true(sh_glob_match("a\\", "a\\", 0));
    assert_true(sh_glob_match("[", "[", 0));
    assert_true(sh_glob_match("[]]", "]", 0));
    assert_true(sh_glob_match("[!]]", "x", 0));
    assert_true(sh_glob_match("[a\\]]", "]", 0));
    assert_true(sh_glob_match("[[:word:]]", "_", 0));
    assert_true(sh_glob_match("[[=a=]]", "a", 0));
    assert_false(sh_glob_match("[[:nosuch:]a]", "a", 0));
    assert_true(sh_glob_match("ABC", "abc", SH_GM_NOCASE));
    assert_true(sh_glob_match("[A-C]x", "bX", SH_GM_NOCASE));
    // Linear on a hostile pattern (no exponential backtracking).
    char s[4096], p[200];
    memset(s, 'a', sizeof s - 1);
    s[sizeof s - 1] = '\0';
    for (size_t i = 0; i < sizeof p - 2; i += 2)
        memcpy(p + i, "*a", 2);
    p[sizeof p - 2] = 'b';
    p[sizeof p - 1] = '\0';
    assert_false(sh_glob_match(p, s, 0));
    assert_true(sh_glob_has_magic("a*", 0));
    assert_true(sh_glob_has_magic("[ab]", 0));
    assert_false(sh_glob_has_magic("[ab", 0));
    assert_false(sh_glob_has_magic("a\\*", 0));
    // extglob groups: patterns only with the flag, quoted never.
    assert_true(sh_glob_has_magic("@(a|b)", SH_GM_EXTGLOB));
    assert_false(sh_glob_has_magic("@(a|b)", 0));
    assert_false(sh_glob_has_magic("\\@(a)", SH_GM_EXTGLOB));
    assert_true(sh_glob_match("+(ab)", "abab", SH_GM_EXTGLOB));
    assert_false(sh_glob_match("+(ab)", "abab", 0));
    assert_true(sh_glob_match("!(*.txt)", "a.c", SH_GM_EXTGLOB));
    assert_false(sh_glob_match("!(*.txt)", "a.txt", SH_GM_EXTGLOB));
    assert_false(sh_glob_match("!(*.txt)", ".c", SH_GM_EXTGLOB | SH_GM_PERIOD));
    assert_true(sh_glob_match("@(A|b)*", "ax", SH_GM_EXTGLOB | SH_GM_NOCASE));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matcher),
        cmocka_unit_test_setup_teardown(test_each_directory_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_decision_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_absolute_pattern, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_denied_directory_drops_only_under_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fault_stops_the_call, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_box_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_against_bash, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
