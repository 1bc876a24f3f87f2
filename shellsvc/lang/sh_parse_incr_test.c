/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for sh_parse_next: one top-level command at a time, need-more. */
#include "sh_test_util.h"

/* A multi-line script and the commands it yields, in order. */
static const char script[] =
    "# setup\n"
    "X=1; echo $X\n"
    "\n"
    "a &&\n"
    "  b ||\n"
    "  c\n"
    "ls |\n"
    "wc -l\n"
    "if true; then\n"
    "  echo yes\n"
    "fi\n"
    "cat <<EOF > out; echo after\n"
    "body $X\n"
    "EOF\n"
    "f() {\n"
    "  echo in f\n"
    "}\n"
    "echo \"multi\n"
    "line\" end &\n"
    "[[ -n $X &&\n"
    "  $X =~ ^(1| 2)$ ]] && echo m\n"
    "(( x = 1 +\n"
    "  2 )) && ((y))\n"
    "for ((i = 0;\n"
    "  i < 2; i++)) { echo $i; }\n"
    "case a in a) b;& c) d;;& *) e;; esac\n"
    "cat <<< w; time -p ((z)); ((a);b)\n"
    "for i in 1 2; do echo $i; done; echo last";

static const char *const want[] = {
    "(list (cmd (= X \"1\")) (cmd \"echo\" (word (param X))))",
    "(list (or (and (cmd \"a\") (cmd \"b\")) (cmd \"c\")))",
    "(list (pipe (cmd \"ls\") (cmd \"wc\" \"-l\")))",
    "(list (if (list (cmd \"true\")) (list (cmd \"echo\" \"yes\"))))",
    "(list (cmd \"cat\" (<< \"EOF\" (word \"body \" (param X) \"\\n\")) "
    "(> \"out\")) (cmd \"echo\" \"after\"))",
    "(list (func f (group (list (cmd \"echo\" \"in\" \"f\")))))",
    "(list (bg (cmd \"echo\" (word (dq \"multi\\nline\")) \"end\")))",
    "(list (and (cond (&& (-n (word (param X))) ((word (param X)) =~ "
    "\"^(1| 2)$\"))) (cmd \"echo\" \"m\")))",
    "(list (and (arith \" x = 1 +\\n  2 \") (arith \"y\")))",
    "(list (for-arith \"i = 0\" \"\\n  i < 2\" \" i++\" "
    "(group (list (cmd \"echo\" (word (param i)))))))",
    "(list (case \"a\" (item (pats \"a\") (list (cmd \"b\")) (fall)) "
    "(item (pats \"c\") (list (cmd \"d\")) (test)) "
    "(item (pats \"*\") (list (cmd \"e\")))))",
    "(list (cmd \"cat\" (<<< \"w\")) (time -p (arith \"z\")) "
    "(subshell (list (subshell (list (cmd \"a\"))) (cmd \"b\"))))",
    "(list (for i (in \"1\" \"2\") (list (cmd \"echo\" (word (param i))))) "
    "(cmd \"echo\" \"last\"))",
};
static const unsigned want_lines[] = {2,  4,  7,  9,  12, 15, 18,
                                      20, 22, 24, 26, 27, 28};

static char *
dump(const sh_node *n)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    assert_int_equal(sh_ast_dump(n, &b, 0), BOX_OK);
    return box_buf_take(&b);
}

/* Feeds src in pieces of step bytes (0: all at once), calling
 * sh_parse_next until it wants more; checks the commands against want. */
static void
run_incremental(size_t step)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_parser *p = sh_parser_new(a);
    assert_non_null(p);
    size_t len = strlen(script), off = 0, got = 0, mores = 0;
    bool finished = false;
    for (;;) {
        sh_node *n = NULL;
        sh_parse_status st = sh_parse_next(p, &n);
        if (st == SH_PARSE_MORE) {
            assert_false(finished);
            assert_null(n);
            mores++;
            size_t k = step == 0 ? len - off : step;
            if (k > len - off)
                k = len - off;
            assert_int_equal(sh_parser_feed(p, script + off, k), BOX_OK);
            off += k;
            if (off == len) {
                sh_parser_finish(p);
                finished = true;
            }
            continue;
        }
        if (st == SH_PARSE_END)
            break;
        if (st != SH_PARSE_CMD)
            fail_msg("step %zu: error line %u: %s", step,
                     sh_parser_diag(p)->d_line, sh_parser_diag(p)->d_msg);
        assert_true(got < NELEM(want));
        char *s = dump(n);
        if (strcmp(s, want[got]) != 0)
            fail_msg("step %zu cmd %zu:\n got  %s\n want %s", step, got, s,
                     want[got]);
        assert_int_equal(n->n_line, want_lines[got]);
        box_free(s);
        got++;
    }
    assert_int_equal(got, NELEM(want));
    assert_true(finished);
    assert_true(mores >= 1);
    /* After the end, it stays at the end. */
    sh_node *n = NULL;
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_END);
    sh_parser_free(p);
    box_arena_free(a);
}

static void
test_whole(void **state)
{
    run_incremental(0);
}

static void
test_byte_by_byte(void **state)
{
    run_incremental(1);
}

static void
test_odd_chunks(void **state)
{
    run_incremental(7);
    run_incremental(13);
}

/* Line by line, the executor's way: each complete command is returned as
 * soon as its line (and any here-document body) is in. */
static void
test_line_by_line(void **state)
{
    static const struct {
        const char *line;
        int ncmds; // commands available right after feeding this line
    } steps[] = {
        {"echo a\n", 1},
        {"x &&\n", 0},
        {"y\n", 1},
        {"while true\n", 0},
        {"do echo\n", 0},
        {"done; z\n", 1},
        {"cat <<E\n", 0},
        {"text\n", 0},
        {"E\n", 1},
        {"echo 'open\n", 0},
        {"close'\n", 1},
        {"echo $(\n", 0},
        {")\n", 1},
        {"echo $'open\\'\n", 0},
        {"close'\n", 1},
        {"echo $[1+\n", 0},
        {"2]\n", 1},
        {"echo ${x/a\n", 0},
        {"b/c} ${y:1\n", 0},
        {":2}\n", 1},
        {"\n", 0},
        {"# comment\n", 0},
        {"a | \\\n", 0},
        {"b\n", 1},
    };
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_parser *p = sh_parser_new(a);
    for (size_t i = 0; i < NELEM(steps); i++) {
        assert_int_equal(
            sh_parser_feed(p, steps[i].line, strlen(steps[i].line)), BOX_OK);
        int n = 0;
        sh_node *node = NULL;
        sh_parse_status st;
        while ((st = sh_parse_next(p, &node)) == SH_PARSE_CMD)
            n++;
        assert_int_equal(st, SH_PARSE_MORE);
        if (n != steps[i].ncmds)
            fail_msg("after line %zu (%s): %d commands, want %d", i,
                     steps[i].line, n, steps[i].ncmds);
    }
    sh_parser_finish(p);
    sh_node *node = NULL;
    assert_int_equal(sh_parse_next(p, &node), SH_PARSE_END);
    sh_parser_free(p);
    box_arena_free(a);
}

/* Without a final newline, a command is only complete once finished. */
static void
test_finish_completes(void **state)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_parser *p = sh_parser_new(a);
    sh_node *n = NULL;
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_MORE);
    assert_int_equal(sh_parser_feed(p, "echo hi", 7), BOX_OK);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_MORE);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_MORE);
    sh_parser_finish(p);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_CMD);
    assert_non_null(n);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_END);
    sh_parser_free(p);
    box_arena_free(a);
}

/* Commands before a syntax error are returned first; the error carries
 * its line; the parser then stays failed. */
static void
test_error_after_commands(void **state)
{
    const char *src = "echo one\necho two\nif x; then\n  y\nfi fi\necho no\n";
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_parser *p = sh_parser_new(a);
    assert_int_equal(sh_parser_feed(p, src, strlen(src)), BOX_OK);
    sh_parser_finish(p);
    sh_node *n = NULL;
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_CMD);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_CMD);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_ERROR);
    assert_null(n);
    const sh_diag *d = sh_parser_diag(p);
    assert_int_equal(d->d_line, 5);
    assert_string_equal(d->d_msg, "syntax error near unexpected token `fi'");
    char buf[300];
    assert_string_equal(sh_diag_format(d, true, buf, sizeof(buf)),
                        "strands-shell: line 5: syntax error near "
                        "unexpected token `fi'");
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_ERROR);
    sh_parser_free(p);
    box_arena_free(a);
}

/* An error that more text could fix waits instead (until finished). */
static void
test_eof_errors_wait(void **state)
{
    static const char *const partial[] = {
        "if x; then", "echo \"abc", "cat <<E\nabc", "cat <<E\nabc\nE",
        "a |", "echo $(", "echo ${x:-", "echo `a", "a &", "echo a\\",
        "f()", "case x in a)", "echo $'abc", "echo $[1", "echo ${x:1",
        "echo ${x/a/", "echo ${!x", "echo ${x@",
    };
    for (size_t i = 0; i < NELEM(partial); i++) {
        box_arena *a = box_arena_new(SH_TEST_ARENA);
        sh_parser *p = sh_parser_new(a);
        assert_int_equal(sh_parser_feed(p, partial[i], strlen(partial[i])),
                         BOX_OK);
        sh_node *n = NULL;
        if (sh_parse_next(p, &n) != SH_PARSE_MORE)
            fail_msg("%s: not MORE (%s)", partial[i],
                     sh_parser_diag(p)->d_msg);
        assert_int_equal(sh_parser_diag(p)->d_code, BOX_OK);
        sh_parser_free(p);
        box_arena_free(a);
    }
}

/* A limit hit on a token at the end of the text waits too: after 16
 * stages, the `|` may be the first half of `||` (found by fuzzing,
 * tests/fuzz/sh_parse/crashes/). */
static void
test_limit_waits_for_token(void **state)
{
    static const char stages[] = "a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p";
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_parser *p = sh_parser_new(a);
    sh_node *n = NULL;
    assert_int_equal(sh_parser_feed(p, stages, strlen(stages)), BOX_OK);
    assert_int_equal(sh_parser_feed(p, "|", 1), BOX_OK);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_MORE);
    assert_int_equal(sh_parser_feed(p, "| q\n", 4), BOX_OK);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_CMD);
    char *d = dump(n);
    static const char want_or[] = "(list (or (pipe (cmd \"a\")";
    assert_true(strncmp(d, want_or, sizeof want_or - 1) == 0);
    box_free(d);
    sh_parser_free(p);
    box_arena_free(a);

    // Once the `|` is followed by a stage, the limit is hit for good.
    a = box_arena_new(SH_TEST_ARENA);
    p = sh_parser_new(a);
    assert_int_equal(sh_parser_feed(p, stages, strlen(stages)), BOX_OK);
    assert_int_equal(sh_parser_feed(p, "|q", 2), BOX_OK);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_ERROR);
    assert_string_equal(sh_parser_diag(p)->d_msg, "pipeline too long");
    sh_parser_free(p);
    box_arena_free(a);
}

static void
test_feed_too_large(void **state)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_parser *p = sh_parser_new(a);
    char *chunk = box_alloc(SH_MAX_INPUT / 2);
    memset(chunk, '\n', SH_MAX_INPUT / 2);
    assert_int_equal(sh_parser_feed(p, chunk, SH_MAX_INPUT / 2), BOX_OK);
    assert_int_equal(sh_parser_feed(p, chunk, SH_MAX_INPUT / 2), BOX_OK);
    assert_int_equal(sh_parser_feed(p, "x", 1), BOX_ETOOBIG);
    sh_node *n = NULL;
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_ERROR);
    assert_string_equal(sh_parser_diag(p)->d_msg, "input too large");
    box_free(chunk);
    sh_parser_free(p);
    box_arena_free(a);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole),
        cmocka_unit_test(test_byte_by_byte),
        cmocka_unit_test(test_odd_chunks),
        cmocka_unit_test(test_line_by_line),
        cmocka_unit_test(test_finish_completes),
        cmocka_unit_test(test_error_after_commands),
        cmocka_unit_test(test_eof_errors_wait),
        cmocka_unit_test(test_limit_waits_for_token),
        cmocka_unit_test(test_feed_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
