/* SPDX-License-Identifier: Apache-2.0 */
/* Table tests of find and xargs where the box is not bash: every command
 * -exec and xargs run is its own shell:exec decision (box-spec §3.5),
 * denied and faulting subtrees, -delete on what policy keeps, refusals
 * (the rest is tests/shell's differential cases). */
#include "cmd_test_table.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define H "/home/lash/"
#define DENIED_EXEC(p)                                                         \
    "strands-shell: effect denied: policy denied this operation on '" p        \
    "' [default-deny]: No permit policy matched this request.\n"
// d/a and d/b, two files
#define D_AB "mkdir d; touch d/a d/b"

typedef struct xcase {
    const char *setup; // runs before any decision is judged; NULL: none
    const char *script;
    const char *out, *err;
    int status;
    const char *deny;    // programs refused (shell:exec)
    const char *fault;   // programs whose decision faults
    const char *deny_fs; // paths refused (fs:*)
    const char *fault_fs;
    const char *execlog; // the shell:exec programs decided, one a line;
                         // NULL: not checked
    const char *fslog;   // "action path" lines; NULL: not checked
} xcase;

static const xcase cases[] = {
    // ---- find -exec: one decision per command ----
    // rm forbidden: each of the two is refused, the files stay, find
    // itself ends 0 (a failed -exec ; is only false)
    {.setup = D_AB,
     .script = "find d -type f -exec rm {} \\;; echo $?; ls d",
     .out = "0\na\nb\n",
     .err = DENIED_EXEC("rm") DENIED_EXEC("rm"),
     .deny = "rm",
     .execlog = "find\nrm\nrm\necho\nls\n"},
    // `+`: one command for both, refused once; find ends 1
    {.setup = D_AB,
     .script = "find d -type f -exec rm {} +; echo $?; ls d",
     .out = "1\na\nb\n",
     .err = DENIED_EXEC("rm"),
     .deny = "rm",
     .execlog = "find\nrm\necho\nls\n"},
    // permitted: 1 + N decisions
    {.setup = D_AB,
     .script = "find d -type f -exec rm {} \\;; ls d; echo $?",
     .out = "0\n",
     .execlog = "find\nrm\nrm\nls\necho\n"},
    // a refused command is false: -print after it prints nothing
    {.setup = D_AB,
     .script = "find d -type f -exec cat {} \\; -print",
     .err = DENIED_EXEC("cat") DENIED_EXEC("cat"),
     .deny = "cat"},
    // -execdir: the command runs in the entry's directory (one change_dir
    // decision each)
    {.setup = "mkdir -p d/e; touch d/e/f",
     .script = "find d -name f -execdir pwd \\;",
     .out = H "d/e\n",
     .fslog = "fs:read " H "d\nfs:read " H "d\nfs:read " H "d/e\nfs:read " H
              "d/e\nfs:read " H "d/e/f\nfs:read " H "d/e\n"},
    // a command -exec runs cannot change the shell (it is a child)
    {.setup = "mkdir d",
     .script = "find d -maxdepth 0 -exec cd d \\;; pwd",
     .out = "/home/lash\n"},
    // a fault ends the call
    {.setup = D_AB,
     .script = "find d -type f -exec rm {} \\;; echo after",
     .err = FAULT,
     .status = 125,
     .fault = "rm"},

    // ---- find over denied entries ----
    // a denied subtree: one message, the walk goes on, status 1
    {.setup = "mkdir -p d/secret d/ok; touch d/secret/x d/ok/y",
     .script = "find d; echo $?",
     .out = "d\nd/ok\nd/ok/y\n1\n",
     .err = DENIED_FS("find", H "d/secret"),
     .deny_fs = H "d/secret"},
    // a denied start point: the same one message
    {.setup = "mkdir d",
     .script = "find d; echo $?",
     .out = "1\n",
     .err = DENIED_FS("find", H "d"),
     .deny_fs = H "d"},
    // a listing denied by itself (metadata permitted): one message
    {.setup = "mkdir -p d/e; touch d/e/f",
     .script = "find d -type f; echo $?",
     .out = "1\n",
     .err = DENIED_FS("find", H "d/e"),
     .deny_fs = H "d/e"},
    // -delete leaves what policy keeps; the rest goes
    {.setup = D_AB,
     .script = "find d -type f -delete; echo $?; ls d",
     .out = "1\nb\n",
     .err = DENIED_FS("find", H "d/b"),
     .deny_fs = H "d/b"},
    // a denied file inside: it stays, so its directory stays
    {.setup = "mkdir -p d/e; touch d/e/f d/e/g",
     .script = "find d/e -delete; echo $?; ls d d/e",
     .out = "1\nd:\ne\n\nd/e:\nf\n",
     .err = DENIED_FS("find", H "d/e/f") "strands-shell: find: cannot "
                                         "delete ‘d/e’: Directory not empty\n",
     .deny_fs = H "d/e/f"},
    // the fs requests of a walk: the entry, then its listing
    {.setup = "mkdir d; touch d/a",
     .script = "find d",
     .out = "d\nd/a\n",
     .fslog = "fs:read " H "d\nfs:read " H "d\nfs:read " H "d/a\n"},
    // -delete asks fs:delete per entry, depth first
    {.setup = "mkdir -p d/e; touch d/e/f",
     .script = "find d -delete; ls",
     .fslog = "fs:read " H "d\nfs:read " H "d\nfs:read " H "d/e\nfs:read " H
              "d/e\nfs:read " H "d/e/f\nfs:delete " H "d/e/f\nfs:delete " H
              "d/e\nfs:delete " H "d\nfs:read /home/lash\nfs:read "
              "/home/lash\n"},
    // a fault in the walk ends the call; what was found is out (the
    // in-memory tree lists newest first, as tmpfs does)
    {.setup = D_AB,
     .script = "find d; echo after",
     .out = "d\nd/b\n",
     .err = FAULT,
     .status = 125,
     .fault_fs = H "d/a"},
    // -newer's reference is decided too
    {.setup = "touch f",
     .script = "find . -newer f; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: ‘f’: No such file or directory\n",
     .deny_fs = H "f"},

    // ---- find refusals ----
    {.script = "find . -ok rm {} \\;; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: -ok: refused: this box has no terminal to "
            "ask on; use -exec\n"},
    {.script = "find . -okdir rm {} \\;; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: -okdir: refused: this box has no terminal "
            "to ask on; use -exec\n"},
    {.script = "find . -ls; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: -ls: not supported by this box's find\n"},
    {.script = "find . -fprint out; echo $?; ls",
     .out = "1\n",
     .err = "strands-shell: find: -fprint: not supported by this box's "
            "find\n"},
    {.script = "find . -user root; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: -user: not supported by this box's find\n"},
    {.script = "find . -printf '%u\\n'; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: -printf: %u is not supported by this box's "
            "find (the kernel does not report it)\n"},
    {.script = "find . -files0-from list; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: -files0-from: not supported by this box's "
            "find\n"},
    {.script = "find --help | tail -n 1; find --version | head -c 4",
     .out = "change times, which the box's kernel does not report.\nfind"},
    {.script = "find -D tree .; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: -D: debug options are not supported by "
            "this box's find\n"},
    // nesting is capped (the parser and evaluator recurse on it); long
    // chains are not (one node each)
    {.script = "e=; i=0; while [ $i -lt 300 ]; do e=\"$e !\"; "
               "i=$((i+1)); done; find . $e -print; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: invalid expression; nested too deeply\n"},
    {.setup = "mkdir d",
     .script = "find d $(printf -- '-name x%s -o ' $(seq 3000)) -true "
               "-a -name d",
     .out = "d\n"},
    // fd 1 closed
    {.setup = "mkdir d",
     .script = "find d >&-; echo $?",
     .out = "1\n",
     .err = "strands-shell: find: ‘standard output’: Bad file descriptor\n"
            "strands-shell: find: write error: Bad file descriptor\n"},
    // the output ends: find stops
    {.setup = "mkdir d; touch d/a d/b d/c",
     .script = "find d | head -n 2",
     .out = "d\nd/c\n"},

    // ---- xargs ----
    // the command refused: 126 (GNU's "cannot run"), the files stay
    {.setup = D_AB,
     .script = "printf 'd/a\\nd/b\\n' | xargs rm; echo $?; ls d",
     .out = "126\na\nb\n",
     .err = DENIED_EXEC("rm"),
     .deny = "rm",
     .execlog = "printf\nxargs\nrm\necho\nls\n"},
    // one decision per command; the first refusal ends xargs
    {.setup = D_AB,
     .script = "printf 'd/a\\nd/b\\n' | xargs -n1 rm; echo $?; ls d",
     .out = "126\na\nb\n",
     .err = DENIED_EXEC("rm"),
     .deny = "rm"},
    // permitted: one decision per command
    {.script = "printf '1 2 3' | xargs -n1 echo",
     .out = "1\n2\n3\n",
     .execlog = "printf\nxargs\necho\necho\necho\n"},
    // xargs itself refused: nothing runs
    {.script = "printf 'a\\n' | xargs echo; echo $?",
     .out = "126\n",
     .err = DENIED_EXEC("xargs"),
     .deny = "xargs"},
    // a command not found: 127
    {.script = "printf 'a\\n' | xargs nosuchcmd; echo $?",
     .out = "127\n",
     .err = "strands-shell: nosuchcmd: command not found\n"},
    // -a FILE through the kernel
    {.setup = "printf 'a\\n' > list",
     .script = "xargs -a list echo; echo $?",
     .out = "1\n",
     .err = DENIED_FS("xargs", H "list"),
     .deny_fs = H "list"},
    {.script = "xargs -a nosuch echo; echo $?",
     .out = "1\n",
     .err = "strands-shell: xargs: Cannot open input file ‘nosuch’: No such "
            "file or directory\n"},
    // a command's stdin is empty (GNU gives it /dev/null)
    {.script = "printf 'x\\n' | xargs -I{} sh -c 'cat; echo {}'", .out = "x\n"},
    // -o / -p refused (no terminal)
    {.script = "xargs -p echo; echo $?",
     .out = "1\n",
     .err = "strands-shell: xargs: --interactive: refused: this box has no "
            "terminal\n"},
    {.script = "xargs -o echo; echo $?",
     .out = "1\n",
     .err = "strands-shell: xargs: --open-tty: refused: this box has no "
            "terminal\n"},
    // a fault ends the call
    {.script = "printf 'a\\n' | xargs echo; echo after",
     .err = FAULT,
     .status = 125,
     .fault = "echo"},
};

/* The shell:exec programs of a th_log ("program|command|…" lines). */
static bool
execlog_match(const box_buf *log, const char *want)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    bool ok = true;
    for (const char *p = th_s(log); *p != '\0' && ok;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *bar = memchr(p, '|', n);
        ok = bar != NULL &&
             box_buf_append(&b, p, (size_t)(bar - p)) == BOX_OK &&
             box_buf_putc(&b, '\n') == BOX_OK;
        p += n + (nl ? 1 : 0);
    }
    ok = ok && strcmp(th_s(&b), want) == 0;
    box_buf_reset(&b);
    return ok;
}

/* Between setup and script the runner probes this path: decisions
 * before it are permitted and not logged, so a setup may make what the
 * row then denies. */
#define MARK "/find-test-mark"

typedef struct xrun {
    th xr_t;
    bool xr_armed;
} xrun;

static box_verdict
xr_decide(void *arg, const Box__DecisionRequest *rq, char **msg,
          box_ticket *ticket)
{
    xrun *x = arg;
    if (!x->xr_armed) {
        const Box__Value *p = th_field(rq, "path");
        if (p != NULL && strcmp(p->str, MARK) == 0)
            x->xr_armed = true;
        return BOX_VERDICT_PERMIT;
    }
    return th_decide(&x->xr_t, rq, msg, ticket);
}

static int
xr_run(xrun *x, const xcase *c)
{
    char *script = box_asprintf("%s\n[ -e " MARK " ]\n%s",
                                c->setup ? c->setup : ":", c->script);
    assert_non_null(script);
    int st = th_run_with(&x->xr_t, script, 0, xr_decide, x);
    box_free(script);
    return st;
}

static void
test_cases(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(cases); i++) {
        const xcase *c = &cases[i];
        xrun x = {.xr_t = {.th_deny = c->deny,
                           .th_fault = c->fault,
                           .th_deny_fs = c->deny_fs,
                           .th_fault_fs = c->fault_fs}};
        th *t = &x.xr_t;
        int st = xr_run(&x, c);
        const char *out = c->out ? c->out : "", *err = c->err ? c->err : "";
        bool ok =
            st == c->status && strcmp(th_s(&t->th_out), out) == 0 &&
            strcmp(th_s(&t->th_err), err) == 0 &&
            (c->execlog == NULL || execlog_match(&t->th_log, c->execlog)) &&
            (c->fslog == NULL || fslog_match(&t->th_fslog, c->fslog));
        if (!ok)
            print_error("case %zu: %s\n  status %d (want %d)\n  out [%s] "
                        "(want [%s])\n  err [%s] (want [%s])\n  log [%s]\n"
                        "  fslog [%s]\n",
                        i, c->script, st, c->status, th_s(&t->th_out), out,
                        th_s(&t->th_err), err, th_s(&t->th_log),
                        th_s(&t->th_fslog));
        th_reset(t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
