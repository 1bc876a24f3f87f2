/* SPDX-License-Identifier: Apache-2.0 */
/* cp, mv, ln, chmod, rmdir, readlink, mktemp under policy: denials, faults
 * and refusals the bash differential cannot show, and mv across the host
 * and in-memory file systems. */
#include <pthread.h>
#include <stdlib.h>

#include "cmd_test_table.h"
#include "sh_exec.h"
#include "sh_kernel.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define H "/home/lash/"
#define MD(p) "fs:read read_metadata " p "\n"
#define EN(p) "fs:read enumerate " p "\n"
#define RC(p) "fs:read read_content " p "\n"
#define RL(p) "fs:read read_link " p "\n"
#define WC(p) "fs:write write_content " p "\n"
#define CD(p) "fs:write create_dir " p "\n"
#define SP(p) "fs:write set_permissions " p "\n"
#define SL(p) "fs:write symlink " p "\n"
#define RF(p) "fs:delete remove_file " p "\n"
#define RD(p) "fs:delete remove_dir " p "\n"
#define MV(p) "fs:move rename " p "\n"
#define NOTERM(cmd)                                                            \
    "strands-shell: " cmd ": -i (--interactive) is not supported in this "     \
    "box: there is no terminal to answer its questions\n"

static const tcase cases[] = {
    // ---- cp: the decisions of one copy, in order (the target probed as
    // a directory to copy into, the source, the name to write) ----
    {"echo hi > a; cp a b", "", "", 0, NULL, NULL,
     WC(H "a") MD(H "b") MD(H "a") MD(H "b") RC(H "a") WC(H "b")},
    // a denied destination: refused, nothing written there, the rest go on
    {"echo hi > a; cp a secret; echo $?; [ -e secret ] || echo absent",
     "1\nabsent\n", DENIED_FS("cp", H "secret"), 0, H "secret"},
    {"echo hi > a; mkdir d; cp a secret d; echo $?; cat d/a", "1\nhi\n",
     DENIED_FS("cp", H "secret"), 0, H "secret"},
    {"mkdir -p d/e; echo 1 > d/x; echo 2 > d/e/y; cp -r d c; echo $?; "
     "cat c/x; ls c/e",
     "1\n1\n", DENIED_FS("cp", H "c/e/y"), 0, H "c/e/y"},
    // -r copies a directory's entries by inode (GNU's savedir order), not
    // in readdir's (the in-memory tree lists newest first) nor by name
    {"mkdir s; touch s/m s/c s/x; cp -rv s d; rm -rv d",
     "'s' -> 'd'\n's/m' -> 'd/m'\n's/c' -> 'd/c'\n's/x' -> 'd/x'\n"
     "removed 'd/x'\nremoved 'd/c'\nremoved 'd/m'\nremoved directory 'd'\n",
     "", 0},
    // a denied source read names the source
    {"cp secret b; echo $?; [ -e b ] || echo absent", "1\nabsent\n",
     DENIED_FS("cp", H "secret"), 0, H "secret"},
    // -p keeps the mode: one set_permissions after the bytes
    // -p: the copy's times (write_content, as touch's) and mode
    {"echo hi > a; chmod 640 a; cp -p a b", "", "", 0, NULL, NULL,
     WC(H "a") MD(H "a") SP(H "a") MD(H "b") MD(H "a") MD(H "b") RC(H "a")
         WC(H "b") WC(H "b") SP(H "b")},
    // -r keeps a link as a link: read_link, then the link's legs
    {"ln -s t l; cp -P l m; readlink m", "t\n", "", 0},
    {"echo hi > a; cp a b; echo after", "", FAULT, 125, NULL, H "b"},
    {"echo hi > a; cp -i a b; echo $?; [ -e b ] || echo absent", "1\nabsent\n",
     NOTERM("cp"), 0},
    {"echo hi > a; cp -l a b; echo $?", "1\n",
     "strands-shell: cp: hard links are not supported in this box\n", 0},

    // $(< FILE) reads FILE with no command run: only the open is decided
    {"echo hi > a; x=$(< a); echo \"$x\"", "hi\n", "", 0, NULL, NULL,
     WC(H "a") RC(H "a")},
    {"x=$(< secret); echo \"[$x] $?\"", "[] 1\n",
     DENIED_FS("secret", H "secret"), 0, H "secret"},

    // ---- mv: the first denied leg wins and nothing moves ----
    {"echo hi > a; mv a b", "", "", 0, NULL, NULL,
     WC(H "a") MD(H "b") MD(H "a") MD(H "b") MV(H "a") RC(H "a") MV(H "b")},
    {"echo hi > a; mv a secret; echo $?; cat a", "1\nhi\n",
     DENIED_FS("mv", H "secret"), 0, H "secret"},
    {"mv secret b; echo $?; [ -e b ] || echo absent", "1\nabsent\n",
     DENIED_FS("mv", H "secret"), 0, H "secret"},
    {"echo hi > a; mv a b; echo after", "", FAULT, 125, NULL, H "b"},
    {"echo hi > a; mv -i a b; echo $?; cat a", "1\nhi\n", NOTERM("mv"), 0},

    // ---- ln ----
    {"ln -s t l", "", "", 0, NULL, NULL,
     MD(H "l") SL(H "t") RC(H "t") SL(H "l")},
    {"ln -s t secret; echo $?", "1\n", DENIED_FS("ln", H "secret"), 0,
     H "secret"},
    // -f: the old link goes first, a decided remove_file
    {"ln -s t l; ln -sf u l; readlink l", "u\n", "", 0, NULL, NULL,
     MD(H "l") SL(H "t") RC(H "t") SL(H "l") MD(H "t") MD(H "l") RF(H "l")
         SL(H "u") RC(H "u") SL(H "l") RL(H "l")},
    {"ln -sf u /dev/null; echo $?", "1\n", DENIED_FS("ln", "/dev/null"), 0,
     "/dev/null"},
    {"echo hi > a; ln a b; echo $?; [ -e b ] || echo absent", "1\nabsent\n",
     "strands-shell: ln: hard links are not supported in this box; use ln "
     "-s\n",
     0},
    {"ln -si t l; echo $?", "1\n", NOTERM("ln"), 0},

    // ---- chmod: a denied entry is skipped, the walk goes on, status 1 ----
    {"chmod -R 600 /dev; echo $?; ls -l /dev/zero | cut -c1-10",
     "1\n"
     "crw-------\n",
     DENIED_FS("chmod", "/dev/null"), 0, "/dev/null"},
    // a relative mode needs the old one: a hidden one cannot be changed
    {"chmod -R go-w /dev; echo $?", "1\n",
     "strands-shell: chmod: cannot access '/dev/null': Permission denied\n", 0,
     "/dev/null"},
    {"echo hi > a; chmod 600 a", "", "", 0, NULL, NULL,
     WC(H "a") MD(H "a") SP(H "a")},
    {"chmod 600 /dev/null /dev/zero; echo after", "", FAULT, 125, NULL,
     "/dev/null"},

    // ---- rm -r: one decision per entry, the denied one kept ----
    {"rm -r /dev; echo $?; ls /dev", "1\nzero\n", DENIED_FS("rm", "/dev/zero"),
     0, "/dev/zero"},

    // ---- rmdir, readlink, realpath, mktemp ----
    {"mkdir d; rmdir d", "", "", 0, NULL, NULL, CD(H "d") MD(H "d") RD(H "d")},
    {"mkdir /tmp/x; rmdir -p /tmp/x; echo $?; [ -e /tmp/x ] || echo gone",
     "1\ngone\n", DENIED_FS("rmdir", "/tmp"), 0, "/tmp"},
    {"ln -s t l; readlink l secret; echo $?", "t\n1\n", "", 0, H "secret"},
    {"readlink -v secret; echo $?", "1\n", DENIED_FS("readlink", H "secret"), 0,
     H "secret"},
    // a hidden name is no canonical name
    {"realpath secret; echo $?", "1\n",
     "strands-shell: realpath: secret: Permission denied\n", 0, H "secret"},
    {"readlink -f secret; echo $?", "1\n", "", 0, H "secret"},
    {"f=$(mktemp) && [ -f \"$f\" ] && echo ok", "ok\n", "", 0},
    // ---- file: what a name is from the kernel's stat (read_metadata),
    // its bytes from a kernel open (read_content), in memory here ----
    {"printf 'hello\\n' > a; file a", "a: ASCII text\n", "", 0, NULL, NULL,
     WC(H "a") MD(H "a") RC(H "a")},
    {"printf '{\"a\": 1}\\n' > j; : > e; mkdir d; ln -s j l; file -N j e d l",
     "j: JSON text data\ne: empty\nd: directory\nl: symbolic link to j\n", "",
     0},
    {"printf 'caf\\303\\251\\n' > u; file -b -i u; file -L l2; ln -s u l2; "
     "file -L l2",
     "text/plain; charset=utf-8\n"
     "l2: cannot open `l2' (No such file or directory)\nl2: Unicode text, "
     "UTF-8 text\n",
     "", 0},
    // a denied name is reported as every command reports it; the rest go on
    // a denied stat is a probe: the name is absent, as for ls and stat
    {"echo hi > a; file secret a; echo $?",
     "secret: cannot open `secret' (No such file or directory)\n"
     "a:      ASCII text\n0\n",
     "", 0, H "secret"},
    {"echo hi > a; file a; echo after", "", FAULT, 125, NULL, H "a"},
    // a denied list is reported as every command reports a denied read
    {"echo hi > a; file -f secret a; echo $?", "1\n",
     DENIED_FS("file", H "secret"), 0, H "secret"},
    {"file -z a; echo $?", "1\n",
     "strands-shell: file: -z: looking inside compressed files is not "
     "available in this box\n",
     0},
    {"file -m /etc/magic a; echo $?", "1\n",
     "strands-shell: file: -m: a magic file of your own is not available in "
     "this box\n",
     0},

    {"mktemp -d -p /tmp/x; echo $?", "1\n",
     "strands-shell: mktemp: failed to create directory via template "
     "\xe2\x80\x98/tmp/x/tmp.XXXXXXXXXX\xe2\x80\x99: No such file or "
     "directory\n",
     0},
};

/* As tcase_run_all, but the fs log is compared whole, operations and
 * all (cmd_fs_test's way): which question was asked is the point here. */
static void
test_cases(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(cases); i++) {
        const tcase *c = &cases[i];
        th t = {.th_deny_fs = c->deny_fs, .th_fault_fs = c->fault_fs};
        int st = th_run(&t, c->script, c->timeout_ms);
        bool ok = tcase_check(i, c->script, st, &t, c->status, c->out,
                              c->err);
        if (ok && c->fslog != NULL &&
            strcmp(th_s(&t.th_fslog), c->fslog) != 0) {
            print_error("case %zu: %s\n  fslog [%s]\n  (want [%s])\n", i,
                        c->script, th_s(&t.th_fslog), c->fslog);
            ok = false;
        }
        th_reset(&t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

/* ---- mv across the host and the in-memory file system ---- */

typedef struct bind_ctx {
    pthread_mutex_t bc_lock;
    th bc_th;
} bind_ctx;

static box_verdict
bind_decide(void *arg, const Box__DecisionRequest *rq, char **msg,
            box_ticket *ticket)
{
    bind_ctx *b = arg;
    pthread_mutex_lock(&b->bc_lock);
    box_verdict v = th_decide(&b->bc_th, rq, msg, ticket);
    pthread_mutex_unlock(&b->bc_lock);
    return v;
}

typedef struct bcase {
    const char *script; // runs in a host bind; /tmp is in memory
    const char *out, *err;
    int status;
    const char *deny_fs; // "W/" is the bind
} bcase;

static const bcase bcases[] = {
    // in memory -> host: copied (mode kept), then removed
    {"echo hi > /tmp/a; chmod 640 /tmp/a; mv /tmp/a a; cat a; "
     "[ -e /tmp/a ] || echo gone; ls -l a | cut -c1-10",
     "hi\ngone\n-rw-r-----\n", "", 0},
    {"mkdir -p /tmp/d/e; echo x > /tmp/d/e/f; ln -s e/f /tmp/d/l; "
     "mv /tmp/d d; cat d/e/f; readlink d/l; [ -e /tmp/d ] || echo gone",
     "x\ne/f\ngone\n", "", 0},
    // host -> in memory, and -v as GNU words it across devices
    {"echo hi > a; mv -v a /tmp/b; cat /tmp/b; [ -e a ] || echo gone",
     "copied 'a' -> '/tmp/b'\nremoved 'a'\nhi\ngone\n", "", 0},
    {"mkdir d; echo x > d/f; mv -v d /tmp/d",
     "created directory '/tmp/d'\ncopied 'd/f' -> '/tmp/d/f'\n"
     "removed 'd/f'\nremoved directory 'd'\n",
     "", 0},
    // a denied leg: nothing copied, nothing removed
    {"echo hi > a; mv a /tmp/secret; echo $?; cat a", "1\nhi\n",
     DENIED_FS("mv", "/tmp/secret"), 0, "/tmp/secret"},
    // the kernel refuses set-ID bits on the host: its words are kept
    {"echo hi > a; chmod u+s a; echo $?", "1\n",
     "strands-shell: chmod: changing permissions of 'a': setuid/setgid/sticky "
     "bits are not permitted in this box\n",
     0},
    // a host link with an absolute target is refused by the kernel
    {"ln -s /etc/passwd l; echo $?", "1\n",
     "strands-shell: ln: failed to create symbolic link 'l': symlink target "
     "escapes the bind mount\n",
     0},
};

static void
test_across(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(bcases); i++) {
        const bcase *c = &bcases[i];
        char tmpl[] = "/tmp/cmd_files_test.XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        char *dir = realpath(tmpl, NULL); /* lint: allow raw-alloc: libc */
        assert_non_null(dir);
        bind_ctx b = {.bc_th = {.th_deny_fs = c->deny_fs}};
        pthread_mutex_init(&b.bc_lock, NULL);
        box_buf_init(&b.bc_th.th_log, 1u << 20);
        box_buf_init(&b.bc_th.th_fslog, 1u << 20);
        box_buf_init(&b.bc_th.th_out, 1u << 20);
        box_buf_init(&b.bc_th.th_err, 1u << 20);
        const char *binds[] = {dir};
        sh_kernel_opts ko = {.ko_binds = binds,
                             .ko_nbinds = 1,
                             .ko_decide = bind_decide,
                             .ko_decide_arg = &b};
        sh_kernel *k = NULL;
        assert_int_equal(sh_kernel_new(&ko, &k), BOX_OK);
        const char *env[] = {"HOME=/home/lash", NULL};
        sh_session_opts o = {
            .so_decide = bind_decide,
            .so_decide_arg = &b,
            .so_out = th_out,
            .so_err = th_err,
            .so_io_arg = &b.bc_th,
            .so_kernel = k,
            .so_cwd = dir,
            .so_env = env,
        };
        sh_session *ss = sh_session_new(&o);
        assert_non_null(ss);
        int st = sh_session_run(ss, c->script, strlen(c->script));
        sh_session_free(ss);
        sh_kernel_free(k);
        bool ok = st == c->status &&
                  strcmp(th_s(&b.bc_th.th_out), c->out) == 0 &&
                  strcmp(th_s(&b.bc_th.th_err), c->err) == 0;
        if (!ok)
            print_error("bcase %zu: %s\n  status %d (want %d)\n  out [%s] "
                        "(want [%s])\n  err [%s] (want [%s])\n",
                        i, c->script, st, c->status, th_s(&b.bc_th.th_out),
                        c->out, th_s(&b.bc_th.th_err), c->err);
        bad += !ok;
        th_reset(&b.bc_th);
        pthread_mutex_destroy(&b.bc_lock);
        char *rm = box_asprintf("rm -rf '%s'", dir);
        assert_non_null(rm);
        box_buf out, err;
        box_buf_init(&out, 1u << 16);
        box_buf_init(&err, 1u << 16);
        char *envp[] = {(char *)"PATH=/usr/bin:/bin", NULL};
        assert_int_equal(th_run_ref("/bin/sh", "/", rm, envp, &out, &err), 0);
        box_buf_reset(&out);
        box_buf_reset(&err);
        box_free(rm);
        free(dir); /* lint: allow raw-alloc: realpath(3)'s buffer */
    }
    assert_int_equal(bad, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_across),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
