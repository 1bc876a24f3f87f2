/* SPDX-License-Identifier: Apache-2.0 */
/* ls, mkdir, rm, touch, tee: output, messages, statuses and fs:* decisions. */
#include <regex.h>

#include "sh_test_harness.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* The fs:* requests a row expects, one line each (th_fslog). */
#define H "/home/lash/"
#define MD(p) "fs:read read_metadata " p "\n"
#define EN(p) "fs:read enumerate " p "\n"
#define RL(p) "fs:read read_link " p "\n"
#define RC(p) "fs:read read_content " p "\n"
#define WC(p) "fs:write write_content " p "\n"
#define CD(p) "fs:write create_dir " p "\n"
#define RF(p) "fs:delete remove_file " p "\n"
#define RD(p) "fs:delete remove_dir " p "\n"
#define SP(p) "fs:write set_permissions " p "\n"

#define DENIED(cmd, p)                                                         \
    "strands-shell: " cmd ": policy denied this operation on '" p              \
    "' [default-deny]: No permit policy matched this request.\n"
#define FAULT                                                                  \
    "strands-shell: effect interception failed: the policy decision point "    \
    "did not answer\n"
#define NOENT(cmd, p)                                                          \
    "strands-shell: " cmd ": " p ": No such file or directory\n"
#define LS_NOENT(p)                                                            \
    "strands-shell: ls: cannot access '" p "': No such file or directory\n"

/* Between setup and script the runner probes this path, so the fs log a
 * row checks starts with what its script asked. */
#define MARK "/fs-test-mark"

typedef struct fcase {
    const char *setup; // silent, status ignored; NULL: none
    const char *script;
    const char *out, *err;
    int status;
    const char *fslog; // the script's fs:* requests; NULL: not checked
    const char *deny_fs, *fault_fs;
} fcase;

static const fcase cases[] = {
    // ---- ls ----
    {NULL, "ls", "", "", 0, MD("/home/lash") EN("/home/lash")},
    {"touch b a .h; mkdir d", "ls", "a\nb\nd\n", "", 0,
     MD("/home/lash") EN("/home/lash")},
    {"touch b a .h; mkdir d", "ls -1", "a\nb\nd\n", "", 0},
    {"touch b a .h; mkdir d", "ls -a", ".\n..\n.h\na\nb\nd\n", "", 0},
    {"touch a B 1 _x Z", "ls", "1\nB\nZ\n_x\na\n", "", 0}, // bytewise
    {"touch -- -x", "ls -a", "-x\n.\n..\n", "", 0},
    {"touch f", "ls f", "f\n", "", 0, MD(H "f")},
    {"touch f", "ls ./f", "./f\n", "", 0, MD(H "f")},
    {"mkdir d e; touch d/x e/y f", "ls e f d", "f\n\nd:\nx\n\ne:\ny\n", "", 0,
     MD(H "e") MD(H "f") MD(H "d") EN(H "d") EN(H "e")},
    {"mkdir d; touch d/x", "ls d/", "x\n", "", 0, MD(H "d") EN(H "d")},
    {"mkdir d; touch d/x", "ls d d", "d:\nx\n\nd:\nx\n", "", 0},
    // a missing operand is probed again as a link (it may be a dangling one)
    {"touch a", "ls nope a", "a\n", LS_NOENT("nope"), 2,
     MD(H "nope") MD(H "nope") MD(H "a")},
    {"mkdir d; touch d/x", "ls nope d", "d:\nx\n", LS_NOENT("nope"), 2},
    {NULL, "ls ''", "", LS_NOENT(""), 2, ""},
    {NULL, "ls /tmp", "", "", 0, MD("/tmp") EN("/tmp")},
    // a denied probe is not "missing": the listing is asked and denied
    {NULL, "ls /usr", "", DENIED("ls", "/usr"), 2, MD("/usr") EN("/usr"),
     "/usr"},
    {NULL, "ls /usr /tmp", "/tmp:\n", DENIED("ls", "/usr"), 2,
     MD("/usr") EN("/usr") MD("/tmp") EN("/tmp"), "/usr"},
    {NULL, "ls /usr; echo after", "", FAULT, 125, MD("/usr"), NULL, "/usr"},
    {NULL, "ls -l /dev; echo after", "", FAULT, 125,
     MD("/dev") EN("/dev") MD("/dev/null"), NULL, "/dev/null"},
    {NULL, "ls -z", "",
     "strands-shell: ls: invalid option -- 'z'\n"
     "Try 'ls --help' for more information.\n",
     2, ""},
    {NULL, "ls -la -Y", "",
     "strands-shell: ls: invalid option -- 'Y'\n"
     "Try 'ls --help' for more information.\n",
     2, ""},
    // -F and -p need each entry's type: one probe each
    {"touch f; mkdir d", "ls -p", "d/\nf\n", "", 0,
     MD("/home/lash") EN("/home/lash") MD(H "d") MD(H "f")},
    // a denied entry is left out of what -F shows, as under -l
    {NULL, "ls -F /dev", "random\nurandom\nzero\n", "", 0,
     MD("/dev") EN("/dev") MD("/dev/null") MD("/dev/random") MD("/dev/urandom")
         MD("/dev/zero"),
     "/dev/null"},
    // -R lists each directory it finds (one enumerate each)
    {"mkdir -p a/b; touch a/b/c", "ls -R a", "a:\nb\n\na/b:\nc\n", "", 0,
     MD(H "a") EN(H "a") MD(H "a/b") EN(H "a/b") MD(H "a/b/c")},
    // a subdirectory whose probe is denied is not seen, so not entered
    {NULL, "ls -R /usr", "/usr:\n", "", 0, MD("/usr") EN("/usr") MD("/usr/bin"),
     "/usr/bin"},
    // a link operand is followed without -l (the decision names the target)
    {NULL, "ls /bin/cat", "/bin/cat\n", "", 0, MD("/bin/lash")},
    // -l: which decisions; the line format has its own test below
    {"touch f", "ls -l f >/dev/null", "", "", 0, WC("/dev/null") MD(H "f")},
    {NULL, "ls -l /bin/cat >/dev/null", "", "", 0,
     WC("/dev/null") MD("/bin/cat") RL("/bin/cat")},
    {"touch f; mkdir d", "ls -l >/dev/null", "", "", 0,
     WC("/dev/null") MD("/home/lash") EN("/home/lash") MD(H "d") MD(H "f")},
    {"touch f", "ls -la >/dev/null", "", "", 0,
     WC("/dev/null") MD("/home/lash") EN("/home/lash") MD("/home/lash")
         MD("/home") MD(H "f")},
    // a denied entry is left out of -l (without -l no entry is probed)
    {NULL, "x=$(ls -l /dev); case $x in *null*) echo has;; *) echo no;; esac",
     "no\n", "", 0,
     MD("/dev") EN("/dev") MD("/dev/null") MD("/dev/random") MD("/dev/urandom")
         MD("/dev/zero"),
     "/dev/null"},
    {NULL, "ls /dev", "null\nrandom\nurandom\nzero\n", "", 0,
     MD("/dev") EN("/dev"), "/dev/null"},

    // ---- mkdir ----
    {NULL, "mkdir d && [ -d d ]", "", "", 0, CD(H "d") MD(H "d")},
    {NULL, "mkdir d e/", "", "", 0, CD(H "d") CD(H "e")},
    {"mkdir d", "mkdir d", "",
     "strands-shell: mkdir: cannot create directory ‘d’: File exists\n", 1,
     CD(H "d")},
    {NULL, "mkdir x x y; [ -d y ]", "",
     "strands-shell: mkdir: cannot create directory ‘x’: File exists\n", 0,
     CD(H "x") CD(H "x") CD(H "y") MD(H "y")},
    {NULL, "mkdir x x y", "",
     "strands-shell: mkdir: cannot create directory ‘x’: File exists\n", 1},
    {NULL, "mkdir a/b", "",
     "strands-shell: mkdir: cannot create directory ‘a/b’: No such file or "
     "directory\n",
     1, CD(H "a/b")},
    {NULL, "mkdir -p a/b/c && [ -d a/b/c ]", "", "", 0,
     MD(H "a/b/c") MD(H "a/b") MD(H "a") CD(H "a") CD(H "a/b") CD(H "a/b/c")
         MD(H "a/b/c")},
    {NULL, "mkdir -p /tmp/x//y/", "", "", 0,
     MD("/tmp/x/y") MD("/tmp/x") MD("/tmp") CD("/tmp/x") CD("/tmp/x/y")},
    // -p of an existing path: one probe, no create_dir asked
    {NULL, "mkdir -p /home/lash", "", "", 0, MD("/home/lash")},
    {"mkdir -p a/b", "mkdir -p a/b", "", "", 0, MD(H "a/b")},
    {"mkdir a", "mkdir -p a/b", "", "", 0, MD(H "a/b") MD(H "a") CD(H "a/b")},
    {"touch f", "mkdir -p f", "",
     "strands-shell: mkdir: cannot create directory ‘f’: File exists\n", 1,
     MD(H "f")},
    {"touch f", "mkdir -p f/x", "",
     "strands-shell: mkdir: cannot create directory ‘f’: Not a directory\n", 1},
    {NULL, "mkdir /usr/x", "", DENIED("mkdir", "/usr/x"), 1, CD("/usr/x"),
     "/usr/x"},
    // a denied probe reads as absent: the create is asked and answers
    // (and a denied create below a denied probe is held: it may exist)
    {NULL, "mkdir -p /usr/a/b", "", DENIED("mkdir", "/usr/a"), 1,
     MD("/usr/a/b") MD("/usr/a") MD("/usr") CD("/usr/a") CD("/usr/a/b"),
     "/usr/a"},
    {NULL, "mkdir -p /usr/bin/x && [ -d /usr/bin/x ]", "", "", 0,
     MD("/usr/bin/x") MD("/usr/bin") MD("/usr") CD("/usr/bin") CD("/usr/bin/x")
         MD("/usr/bin/x"),
     "/usr/bin"},
    {NULL, "mkdir -p /usr/bin", "", DENIED("mkdir", "/usr/bin"), 1,
     MD("/usr/bin") MD("/usr") CD("/usr") CD("/usr/bin"), "/usr/bin,/usr"},
    {NULL, "mkdir d e; echo after", "", FAULT, 125, CD(H "d"), NULL, H "d"},
    {NULL, "mkdir", "",
     "strands-shell: mkdir: missing operand\nTry 'mkdir --help' for more "
     "information.\n",
     1, ""},
    {NULL, "mkdir ''", "",
     "strands-shell: mkdir: cannot create directory ‘’: No such file or "
     "directory\n",
     1, ""},
    // -m: the mode exactly, whatever the umask (set_permissions asked)
    {NULL, "mkdir -m 700 d", "", "", 0, CD(H "d") SP(H "d")},
    {NULL, "mkdir -m 7z9 d", "", "strands-shell: mkdir: invalid mode ‘7z9’\n",
     1, ""},
    {NULL, "mkdir -v d", "mkdir: created directory 'd'\n", "", 0, CD(H "d")},

    // ---- touch ----
    {NULL, "touch f && [ -f f ] && [ ! -s f ]", "", "", 0,
     WC(H "f") MD(H "f") MD(H "f")},
    {"echo hi > f", "touch f g; read x < f; echo $x; [ -e g ]", "hi\n", "", 0,
     WC(H "f") WC(H "g") RC(H "f") MD(H "g")},
    {"mkdir d", "touch d", "", "", 0, WC(H "d")},
    // An existing file's time is renewed (the VFS keeps whole seconds).
    {"touch a; sleep 1.1; touch b",
     "[ b -nt a ] && sleep 1.1 && touch a && [ a -nt b ] && echo renewed",
     "renewed\n", "", 0, MD(H "b") MD(H "a") WC(H "a") MD(H "a") MD(H "b")},
    {NULL, "touch a/b", "",
     "strands-shell: touch: cannot touch 'a/b': No such file or directory\n", 1,
     WC(H "a/b")},
    {NULL, "touch /usr/f x; [ -e x ]", "", DENIED("touch", "/usr/f"), 0,
     WC("/usr/f") WC(H "x") MD(H "x"), "/usr/f"},
    {NULL, "touch /usr/f", "", DENIED("touch", "/usr/f"), 1, NULL, "/usr/f"},
    {NULL, "touch f g; echo after", "", FAULT, 125, WC(H "f"), NULL, H "f"},
    {NULL, "touch", "",
     "strands-shell: touch: missing file operand\n"
     "Try 'touch --help' for more information.\n",
     1, ""},
    // -c: no file made; the question is still asked (one decision).
    {NULL, "touch -c f; [ -e f ] || echo none", "none\n", "", 0,
     WC(H "f") MD(H "f")},
    {NULL, "touch -d @5 -m f", "", "", 0, WC(H "f")},

    // ---- df: a stat-like question per name; a denied one is absent ----
    {NULL, "df --output=source,target,itotal /tmp",
     "Filesystem     Mounted on Inodes\nbox:memory     /           10000\n", "",
     0, MD("/tmp")},
    {NULL, "df --output=source,fstype,target .",
     "Filesystem     Type   Mounted on\nbox:memory     memory /\n", "", 0,
     MD("/home/lash")},
    {NULL, "df /usr; echo $?", "1\n",
     "strands-shell: df: /usr: No such file or directory\n", 0, MD("/usr"),
     "/usr"},
    {NULL, "df --output=target", "Mounted on\n/\n", "", 0, MD("/")},
    // a mount policy hides is not listed
    {NULL, "df", "", "strands-shell: df: no file systems processed\n", 1,
     MD("/"), "/"},
    {NULL, "df -i -T --output", "",
     "strands-shell: df: options -i and --output are mutually exclusive\n"
     "Try 'df --help' for more information.\n",
     1, ""},
    {NULL, "df --output=size,size", "",
     "strands-shell: df: option --output: field ‘size’ used more than once\n"
     "Try 'df --help' for more information.\n",
     1, ""},

    // ---- rm ----
    {"touch f", "rm f; [ -e f ] || echo gone", "gone\n", "", 0,
     RF(H "f") MD(H "f")},
    {NULL, "rm nope", "",
     "strands-shell: rm: cannot remove 'nope': No such file or directory\n", 1,
     RF(H "nope")},
    {NULL, "rm -f nope; echo $?", "0\n", "", 0, RF(H "nope")},
    {NULL, "rm -rf nope", "", "", 0, MD(H "nope")},
    {NULL, "rm -f", "", "", 0, ""},
    {NULL, "rm", "",
     "strands-shell: rm: missing operand\nTry 'rm --help' for more "
     "information.\n",
     1, ""},
    {"mkdir d", "rm d", "",
     "strands-shell: rm: cannot remove 'd': Is a directory\n", 1, RF(H "d")},
    {"mkdir d", "rm -f d", "",
     "strands-shell: rm: cannot remove 'd': Is a directory\n", 1},
    {"touch a b", "rm a nope b; [ -e a ] || [ -e b ] || echo gone", "gone\n",
     "strands-shell: rm: cannot remove 'nope': No such file or directory\n", 0},
    // -r: depth-first in the directory's order (the in-memory tree's is
    // newest first, as tmpfs's), one decision per entry
    {"mkdir -p d/e; touch d/f d/e/g", "rm -r d; [ -e d ] || echo gone",
     "gone\n", "", 0,
     MD(H "d") EN(H "d") MD(H "d/f") RF(H "d/f") MD(H "d/e") EN(H "d/e")
         MD(H "d/e/g") RF(H "d/e/g") RD(H "d/e") RD(H "d") MD(H "d")},
    {"mkdir -p d/e", "rm -R d/; [ -e d ] || echo gone", "gone\n", "", 0,
     MD(H "d") EN(H "d") MD(H "d/e") EN(H "d/e") RD(H "d/e") RD(H "d")
         MD(H "d")},
    {"touch f", "rm -r f", "", "", 0, MD(H "f") RF(H "f")},
    {NULL, "rm -r nope", "",
     "strands-shell: rm: cannot remove 'nope': No such file or directory\n", 1,
     MD(H "nope")},
    // links go, not their targets
    {NULL, "rm -r /bin/cat; [ -e /bin/lash ] && [ ! -e /bin/cat ] && echo ok",
     "ok\n", "", 0,
     MD("/bin/cat") RF("/bin/cat") MD("/bin/lash") MD("/bin/cat")},
    // a denied entry stays (and so does its directory); the rest goes
    {NULL, "rm -r /dev; ls /dev", "null\n", DENIED("rm", "/dev/null"), 0,
     MD("/dev") EN("/dev") MD("/dev/random") RF("/dev/random")
         MD("/dev/urandom") RF("/dev/urandom") MD("/dev/zero") RF("/dev/zero")
             MD("/dev/null") RF("/dev/null") MD("/dev") EN("/dev"),
     "/dev/null"},
    {NULL, "rm -rf /dev", "", DENIED("rm", "/dev/null"), 1, NULL, "/dev/null"},
    {"touch f", "rm -f /usr/f f; [ -e f ] || echo gone", "gone\n",
     DENIED("rm", "/usr/f"), 0, RF("/usr/f") RF(H "f") MD(H "f"), "/usr/f"},
    {NULL, "rm -r /dev; echo after", "", FAULT, 125,
     MD("/dev") EN("/dev") MD("/dev/random"), NULL, "/dev/random"},
    {NULL, "rm /dev/null /dev/zero; echo after", "", FAULT, 125,
     RF("/dev/null"), NULL, "/dev/null"},
    // refused before anything is asked
    // without -r or -d "." is asked as any file, and is a directory
    {NULL, "rm .", "", "strands-shell: rm: cannot remove '.': Is a directory\n",
     1, RF("/home/lash")},
    {NULL, "rm -r .", "",
     "strands-shell: rm: refusing to remove '.' or '..' directory: skipping "
     "'.'\n",
     1, ""},
    {"mkdir d", "rm -rf ./ d/.. ..//", "",
     "strands-shell: rm: refusing to remove '.' or '..' directory: skipping "
     "'./'\n"
     "strands-shell: rm: refusing to remove '.' or '..' directory: skipping "
     "'d/..'\n"
     "strands-shell: rm: refusing to remove '.' or '..' directory: skipping "
     "'../'\n",
     1, ""},
    {NULL, "rm -r /", "",
     "strands-shell: rm: it is dangerous to operate recursively on '/'\n"
     "strands-shell: rm: use --no-preserve-root to override this failsafe\n",
     1, ""},
    {NULL, "rm -r --no-preserve-root /", "",
     "strands-shell: rm: cannot remove '/': Device or resource busy\n", 1, ""},
    {NULL, "rm //", "",
     "strands-shell: rm: cannot remove '//': Is a directory\n", 1, ""},
    {NULL, "rm -f ''", "", "", 0, ""},
    {NULL, "rm ''", "",
     "strands-shell: rm: cannot remove '': No such file or directory\n", 1, ""},
    {"touch .x", "rm .x; ls -a", ".\n..\n", "", 0},
    // -i / -I: no terminal to answer; refused before anything is asked
    {"touch f", "rm -i f; [ -e f ] && echo kept", "kept\n",
     "strands-shell: rm: -i and -I (--interactive) are not supported in this "
     "box: there is no terminal to answer their questions\n",
     0, MD(H "f")},
    {NULL, "rm -I f", "",
     "strands-shell: rm: -i and -I (--interactive) are not supported in this "
     "box: there is no terminal to answer their questions\n",
     1, ""},
    {"touch f", "rm --interactive=never f", "", "", 0, RF(H "f")},
    {"touch f; mkdir d", "rm -v f; rm -dv d",
     "removed 'f'\nremoved directory 'd'\n", "", 0,
     RF(H "f") RF(H "d") RD(H "d")},
    // ---- tee: each FILE is a write decided by policy, as a redirection ----
    {NULL, "echo hi | tee f; cat f", "hi\nhi\n", "", 0, WC(H "f") RC(H "f")},
    {"echo old > f", "echo new | tee -a f g >/dev/null; cat f g",
     "old\nnew\nnew\n", "", 0,
     WC("/dev/null") WC(H "f") WC(H "g") RC(H "f") RC(H "g")},
    // a denied FILE is reported and left out; the others are written
    {NULL, "echo hi | tee /usr/x f; echo $?; cat f", "hi\n1\nhi\n",
     DENIED("tee", "/usr/x"), 0, WC("/usr/x") WC(H "f") RC(H "f"), "/usr/x"},
    {NULL, "echo hi | tee nodir/x; echo $?", "hi\n1\n", NOENT("tee", "nodir/x"),
     0},
    // no decision: nothing more runs, not even the copy
    {NULL, "echo hi | tee /usr/x f; echo after", "", FAULT, 125, WC("/usr/x"),
     NULL, "/usr/x"},
    // redirections open their targets the same way, as before
    {NULL, "echo hi > /usr/x; echo $?", "1\n",
     "strands-shell: /usr/x: policy denied this operation on '/usr/x' "
     "[default-deny]: No permit policy matched this request.\n",
     0, WC("/usr/x"), "/usr/x"},
};

static char *
case_script(const fcase *c)
{
    if (c->setup == NULL)
        return box_strdup(c->script);
    return box_asprintf("%s\n[ -e " MARK " ]\n%s", c->setup, c->script);
}

/* The fs log after the mark (all of it without a setup). */
static const char *
fslog_after_mark(const th *t)
{
    const char *log = th_s(&t->th_fslog);
    const char *m = strstr(log, MD(MARK));
    return m ? m + strlen(MD(MARK)) : log;
}

static void
test_cases(void **state)
{
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(cases); i++) {
        const fcase *c = &cases[i];
        th t = {.th_deny_fs = c->deny_fs, .th_fault_fs = c->fault_fs};
        char *script = case_script(c);
        assert_non_null(script);
        int st = th_run(&t, script, 0);
        const char *log = fslog_after_mark(&t);
        bool ok = st == c->status &&
                  (c->out == NULL || strcmp(th_s(&t.th_out), c->out) == 0) &&
                  (c->err == NULL || strcmp(th_s(&t.th_err), c->err) == 0) &&
                  (c->fslog == NULL || strcmp(log, c->fslog) == 0);
        if (!ok)
            print_error("case %zu: %s\n  status %d (want %d)\n  out [%s] (want "
                        "[%s])\n  err [%s] (want [%s])\n  fslog [%s]\n  (want "
                        "[%s])\n",
                        i, script, st, c->status, th_s(&t.th_out),
                        c->out ? c->out : "-", th_s(&t.th_err),
                        c->err ? c->err : "-", log, c->fslog ? c->fslog : "-");
        box_free(script);
        th_reset(&t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

/* ---- ls -l lines: fields we control exactly, the date by shape ---- */

#define DATE "[A-Z][a-z]{2} [ 1-3][0-9] [0-2][0-9]:[0-5][0-9]"
// The shell's own user and group own its in-memory files.
#define OWN "[a-z0-9_.-]+ [a-z0-9_.-]+"

typedef struct lcase {
    const char *script;
    const char *re; // extended regex over the whole stdout
    int status;
} lcase;

static const lcase lcases[] = {
    {"echo hello > f; mkdir d; ls -l",
     "^total 4\n"
     "drwxr-xr-x 2 " OWN " 0 " DATE " d\n"
     "-rw-r--r-- 1 " OWN " 6 " DATE " f\n$"},
    // the size column is as wide as the widest size
    {"echo > a; printf '%0100d' 0 > b; ls -l a b",
     "^-rw-r--r-- 1 " OWN "   1 " DATE " a\n"
     "-rw-r--r-- 1 " OWN " 100 " DATE " b\n$"},
    // total: the blocks in 1 KiB (a file in memory takes 4 KiB pages)
    {"printf '%01025d' 0 > a; echo > b; ls -l", "^total 8\n"},
    {"printf '%01025d' 0 > a; ls -sh a; ls -s --si a; ls -lh a",
     "^4\\.0K a\n4\\.1k a\n-rw-r--r-- 1 " OWN " 1\\.1K " DATE " a\n$"},
    {"ls -l /bin/cat",
     "^lrwxrwxrwx 1 " OWN " 4 " DATE " /bin/cat -> lash\n$"},
    {"ls -la /tmp", "^total 0\n"
                    "drwxrwxrwt 2 " OWN " 0 " DATE " \\.\n"
                    "drwxr-xr-x 2 " OWN " 0 " DATE " \\.\\.\n$"},
    // a device's number where the size goes
    {"ls -l /dev/null", "^crw-rw-rw- 1 " OWN " 1, 3 " DATE " /dev/null\n$"},
    {"ls -ln /dev/null", "^crw-rw-rw- 1 [0-9]+ [0-9]+ 1, 3 " DATE " /dev/null\n$"},
    {"ls -l /tmp", "^total 0\n$"},
    {"mkdir d; ls -l /tmp d", "^/tmp:\ntotal 0\n\nd:\ntotal 0\n$"},
    {"touch f; ls -l f /tmp", "^-rw-r--r-- 1 " OWN " 0 " DATE " f\n\n/tmp:\n"
                              "total 0\n$"},
};

static void
test_long(void **state)
{
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(lcases); i++) {
        th t = {0};
        regex_t re;
        assert_int_equal(regcomp(&re, lcases[i].re, REG_EXTENDED | REG_NOSUB),
                         0);
        int st = th_run(&t, lcases[i].script, 0);
        bool ok = st == lcases[i].status &&
                  regexec(&re, th_s(&t.th_out), 0, NULL, 0) == 0 &&
                  strcmp(th_s(&t.th_err), "") == 0;
        if (!ok)
            print_error("lcase %zu: %s\n  status %d\n  out [%s]\n  want /%s/\n"
                        "  err [%s]\n",
                        i, lcases[i].script, st, th_s(&t.th_out), lcases[i].re,
                        th_s(&t.th_err));
        regfree(&re);
        th_reset(&t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

/* A large directory goes out in several writes, all of it, sorted. */
static void
test_ls_many(void **state)
{
    th t = {0};
    assert_int_equal(th_run(&t,
                            "i=0; while [ $i -lt 3000 ]; do "
                            ": > \"/tmp/name-with-a-longer-tail-$((i + "
                            "1000))\"; i=$((i + 1)); done; ls /tmp",
                            30000),
                     0);
    const char *out = th_s(&t.th_out);
    size_t lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 3000);
    assert_int_equal(t.th_out.b_len, 3000u * strlen("name-with-a-longer-tail-"
                                                    "1000\n"));
    assert_memory_equal(out, "name-with-a-longer-tail-1000\n", 29);
    assert_string_equal(out + t.th_out.b_len - 29,
                        "name-with-a-longer-tail-3999\n");
    th_reset(&t);
}

/* A reader that goes away ends ls quietly. */
static void
test_ls_pipe_closed(void **state)
{
    th t = {0};
    int st = th_run(&t,
                    "i=0; while [ $i -lt 3000 ]; do : > /tmp/f$i; "
                    "i=$((i + 1)); done; ls /tmp | { read x; echo $x; }",
                    30000);
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "f0\n");
    assert_string_equal(th_s(&t.th_err), "");
    th_reset(&t);
}

/* A closed stdout is a write error, not a silent success. */
static void
test_ls_closed_stdout(void **state)
{
    th t = {0};
    assert_int_equal(th_run(&t, "ls / >&-", 0), 1);
    assert_string_equal(
        th_s(&t.th_err),
        "strands-shell: ls: write error: Bad file descriptor\n");
    th_reset(&t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_long),
        cmocka_unit_test(test_ls_many),
        cmocka_unit_test(test_ls_pipe_closed),
        cmocka_unit_test(test_ls_closed_stdout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
