/* SPDX-License-Identifier: Apache-2.0 */
/* Issue 19 item 4: every route to a command goes through admission. Each
 * route tries `rm` under a decider that denies it: the decision is asked
 * (and logged), the denial printed, and the file is still there. */
#include "sh_test_harness.h"

typedef struct route {
    const char *rt_name;
    const char *rt_script; // runs `rm /tmp/f` through the route
} route;

// clang-format off
static const route routes[] = {
    {"direct", "rm /tmp/f"},
    {"eval", "eval 'rm /tmp/f'"},
    {"eval built", "c=rm; eval \"$c /tmp/f\""},
    {"command substitution", "x=$(rm /tmp/f)"},
    {"backticks", "x=`rm /tmp/f`"},
    {"nested substitution", "x=$(echo $(rm /tmp/f))"},
    {"function", "f() { rm \"$@\"; }; f /tmp/f"},
    {"subshell", "(rm /tmp/f)"},
    {"group", "{ rm /tmp/f; }"},
    {"pipeline stage", "echo x | rm /tmp/f | cat"},
    {"background job", "rm /tmp/f & wait"},
    {"command builtin", "command rm /tmp/f"},
    {"if condition", "if rm /tmp/f; then :; fi"},
    {"while condition", "while rm /tmp/f; do break; done"},
    {"case arm", "case a in a) rm /tmp/f;; esac"},
    {"for body", "for i in 1; do rm /tmp/f; done"},
    {"and list", "true && rm /tmp/f"},
    {"or list", "false || rm /tmp/f"},
    {"variable as command", "c=rm; $c /tmp/f"},
    {"prefix assignment", "A=1 rm /tmp/f"},
    {"redirected", "rm /tmp/f > /tmp/out 2>&1"},
    {"[[ ]] operand", "[[ $(rm /tmp/f) == '' ]]"},
    {"arithmetic", "echo $(( $(rm /tmp/f; echo 1) + 1 ))"},
    {"here-document body", "cat <<EOF\n$(rm /tmp/f)\nEOF"},
    {"source", "echo 'rm /tmp/f' > /tmp/s.sh; . /tmp/s.sh"},
    {"source with arguments", "echo 'rm \"$1\"' > /tmp/s.sh; source /tmp/s.sh /tmp/f"},
    {"source in a function", "echo 'rm /tmp/f' > /tmp/s.sh; g() { . /tmp/s.sh; }; g"},
    {"EXIT trap", "trap 'rm /tmp/f' EXIT"},
    {"EXIT trap at exit",
     "trap 'rm /tmp/f; [ -e /tmp/f ] && echo kept' EXIT; exit 0"},
    {"ERR trap", "trap 'rm /tmp/f' ERR; false"},
    {"EXIT trap of a subshell", "(trap 'rm /tmp/f' EXIT; :)"},
    {"RETURN trap", "echo : > /tmp/s.sh; trap 'rm /tmp/f' RETURN; . /tmp/s.sh"},
    {"alias", "shopt -s expand_aliases\nalias safe=rm\nsafe /tmp/f"},
    {"alias in a pipeline", "shopt -s expand_aliases\nalias safe='rm /tmp/f'\nsafe | cat"},
    {"alias of an alias", "shopt -s expand_aliases\nalias a=rm b=a\nb /tmp/f"},
    {"exec", "(exec rm /tmp/f)"},
    {"exec after redirections", "exec 3>/tmp/o; (exec rm /tmp/f)"},
    {"sh -c", "sh -c 'rm /tmp/f'"},
    {"bash -c with arguments", "bash -c 'rm \"$1\"' sh /tmp/f"},
    {"bash -e -c", "bash -e -o pipefail -c 'rm /tmp/f'"},
    {"/bin/sh -c", "/bin/sh -c 'rm /tmp/f'"},
    {"nested shells", "bash -c \"sh -c 'rm /tmp/f'\""},
    {"bash FILE", "echo 'rm /tmp/f' > /tmp/s.sh; bash /tmp/s.sh"},
    {"sh FILE in a pipeline", "echo 'rm /tmp/f' > /tmp/s.sh; sh /tmp/s.sh | cat"},
    {"stdin script", "echo 'rm /tmp/f' | bash"},
    {"bash -s", "echo 'rm \"$1\"' | bash -s /tmp/f"},
    {"here-document script", "sh <<EOF\nrm /tmp/f\nEOF"},
    {"sh in $( )", "x=$(sh -c 'rm /tmp/f')"},
    {"env prefix", "F=/tmp/f sh -c 'rm $F'"},
    {"process substitution <( )", "cat <(rm /tmp/f)"},
    // `:` writes nothing: a write to >( ) whose list already ended (rm,
    // refused at once) is SIGPIPE for the writer, 141 for the whole
    // script, in bash as here, and would race with the list.
    {"process substitution >( )", ": > >(rm /tmp/f); wait $!"},
    {"process substitution redirected", "while read l; do :; done < <(rm /tmp/f)"},
    {"nested process substitution", "cat <(cat <(rm /tmp/f))"},
};
// clang-format on

static void
test_routes(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(routes); i++) {
        th t = {.th_deny = "rm"};
        char script[512];
        snprintf(script, sizeof script,
                 "touch /tmp/f\n%s\n[ -e /tmp/f ] && echo kept",
                 routes[i].rt_script);
        (void)th_run(&t, script, 0);
        bool asked = strstr(th_s(&t.th_log), "rm|rm /tmp/f|/tmp/f|") != NULL;
        bool refused = strstr(th_s(&t.th_err),
                              "strands-shell: effect denied: policy denied "
                              "this operation on 'rm'") != NULL;
        bool kept = strstr(th_s(&t.th_out), "kept\n") != NULL;
        if (!asked || !refused || !kept) {
            print_error("route %s: asked %d refused %d kept %d\n  out [%s]\n"
                        "  err [%s]\n  log [%s]\n",
                        routes[i].rt_name, asked, refused, kept,
                        th_s(&t.th_out), th_s(&t.th_err), th_s(&t.th_log));
            bad++;
        }
        th_reset(&t);
    }
    assert_int_equal(bad, 0);
}

/* Routes to a builtin (`builtin` runs only builtins): echo is denied,
 * and its words must not come out. */
static const route builtin_routes[] = {
    {"builtin", "builtin echo secret"},
    {"command builtin", "command builtin echo secret"},
    {"exec builtin", "(exec echo secret)"},
    {"alias to builtin",
     "shopt -s expand_aliases\nalias say='builtin echo'\nsay secret"},
};

static void
test_builtin_routes(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(builtin_routes); i++) {
        th t = {.th_deny = "echo"};
        (void)th_run(&t, builtin_routes[i].rt_script, 0);
        bool asked =
            strstr(th_s(&t.th_log), "echo|echo secret|secret|") != NULL;
        bool refused = strstr(th_s(&t.th_err),
                              "strands-shell: effect denied: policy denied "
                              "this operation on 'echo'") != NULL;
        bool quiet = strstr(th_s(&t.th_out), "secret") == NULL;
        if (!asked || !refused || !quiet) {
            print_error("route %s: asked %d refused %d quiet %d\n  out [%s]\n"
                        "  err [%s]\n  log [%s]\n",
                        builtin_routes[i].rt_name, asked, refused, quiet,
                        th_s(&t.th_out), th_s(&t.th_err), th_s(&t.th_log));
            bad++;
        }
        th_reset(&t);
    }
    assert_int_equal(bad, 0);
}

/*
 * A `#!` script run by its path: the stage is rewritten to the shell the
 * line names, admitted as that program (shell:exec), and the script's rm
 * still gets its own decision. The script must be executable, which no
 * command here can make: the kernel is seeded with it.
 */
static void
test_shebang_routes(void **state)
{
    (void)state;
    static const char *const heads[] = {"#!/bin/sh\n", "#!/bin/bash -e\n",
                                        "#!/usr/bin/env bash\n"};
    // What the stage is decided as (program|command|arg1|arg2|).
    static const char *const shells[] = {"sh|sh ./s.sh|./s.sh|",
                                         "bash|bash -e ./s.sh|-e|./s.sh|",
                                         "bash|bash ./s.sh|./s.sh|"};
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(heads); i++) {
        th t = {.th_deny = "rm"};
        box_buf_init(&t.th_out, 1u << 22);
        box_buf_init(&t.th_err, 1u << 22);
        box_buf_init(&t.th_log, 1u << 22);
        box_buf_init(&t.th_fslog, 1u << 22);
        sh_kernel_opts ko = {.ko_decide = th_decide, .ko_decide_arg = &t};
        sh_kernel *k = NULL;
        assert_int_equal(sh_kernel_new(&ko, &k), BOX_OK);
        char body[128];
        snprintf(body, sizeof body, "%srm /tmp/f\n", heads[i]);
        assert_int_equal(
            sh_kernel_seed_file(k, "/tmp/s.sh", 0755, body, strlen(body)), 0);
        sh_session_opts o = {.so_decide = th_decide,
                             .so_decide_arg = &t,
                             .so_out = th_out,
                             .so_err = th_err,
                             .so_io_arg = &t,
                             .so_cwd = "/tmp",
                             .so_kernel = k};
        sh_session *ss = sh_session_new(&o);
        assert_non_null(ss);
        const char *script = "touch /tmp/f\n./s.sh\n[ -e /tmp/f ] && echo kept";
        (void)sh_session_run(ss, script, strlen(script));
        sh_session_free(ss);
        sh_kernel_free(k);
        bool as_shell = strstr(th_s(&t.th_log), shells[i]) != NULL;
        bool asked = strstr(th_s(&t.th_log), "rm|rm /tmp/f|/tmp/f|") != NULL;
        bool refused = strstr(th_s(&t.th_err),
                              "strands-shell: effect denied: policy denied "
                              "this operation on 'rm'") != NULL;
        bool kept = strstr(th_s(&t.th_out), "kept\n") != NULL;
        if (!as_shell || !asked || !refused || !kept) {
            print_error("shebang %s: as shell %d asked %d refused %d kept %d\n"
                        "  out [%s]\n  err [%s]\n  log [%s]\n",
                        heads[i], as_shell, asked, refused, kept,
                        th_s(&t.th_out), th_s(&t.th_err), th_s(&t.th_log));
            bad++;
        }
        th_reset(&t);
    }
    assert_int_equal(bad, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_builtin_routes),
        cmocka_unit_test(test_shebang_routes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
