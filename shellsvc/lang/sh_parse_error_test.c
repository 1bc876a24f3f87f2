/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for sh_parse errors: exact texts, lines, limits. */
#include "sh_test_util.h"

typedef struct err_case {
    const char *src;
    unsigned line;
    const char *msg;
} err_case;

#define NEAR(t) "syntax error near unexpected token `" t "'"
#define EOFMSG "syntax error: unexpected end of file"

static const err_case cases[] = {
    /* unexpected tokens */
    {")", 1, NEAR(")")},
    {"echo )", 1, NEAR(")")},
    {"a\nb\nc )", 3, NEAR(")")},
    {"fi", 1, NEAR("fi")},
    {"then", 1, NEAR("then")},
    {"done", 1, NEAR("done")},
    {"esac", 1, NEAR("esac")},
    {"in", 1, NEAR("in")},
    {"}", 1, NEAR("}")},
    {";", 1, NEAR(";")},
    {";;", 1, NEAR(";;")},
    {"a; ;", 1, NEAR(";")},
    {"a &; b", 1, NEAR(";")},
    {"| a", 1, NEAR("|")},
    {"a | | b", 1, NEAR("|")},
    {"a && && b", 1, NEAR("&&")},
    {"&& a", 1, NEAR("&&")},
    {"{ }", 1, NEAR("}")},
    {"()", 1, NEAR(")")},
    {"if then fi", 1, NEAR("then")},
    {"if a; then fi", 1, NEAR("fi")},
    {"while a; done", 1, NEAR("done")},
    {"while a; do done", 1, NEAR("done")},
    {"for ; do", 1, NEAR(";")},
    {"for do", 1, EOFMSG}, // `do` is a name here, as in bash
    {"for x in a b do", 1, EOFMSG},
    {"for x y; do a; done", 1, NEAR("y")},
    {"case x a) b;; esac", 1, NEAR("a")},
    {"case x in a) b;; c", 1, EOFMSG},
    {"case x in a b) c;; esac", 1, NEAR("b")},
    {"case x in a) b ) c;; esac", 1, NEAR(")")},
    {"{ a; } b", 1, NEAR("b")},
    {"(a) b", 1, NEAR("b")},
    {"x=1 (a)", 1, NEAR("(")},
    {"echo a (b)", 1, NEAR("(")},
    {"f() echo", 1, NEAR("echo")},
    {"f(x) { a; }", 1, NEAR("x")},
    {"\"f\"() { a; }", 1, NEAR("(")},
    {"echo >", 1, NEAR("newline")},
    {"echo >\nb", 1, NEAR("newline")},
    {"echo > ;", 1, NEAR(";")},
    {"echo 2>&", 1, NEAR("newline")},
    {"cat << ;", 1, NEAR(";")},
    {"echo $(a;;)", 1, NEAR(";;")},
    {"echo `fi`", 1, NEAR("fi")},
    {"echo $(a) )", 1, NEAR(")")},
    /* unexpected end of file */
    {"if", 1, EOFMSG},
    {"if a; then b", 1, EOFMSG},
    {"if a\nthen\n  b\n", 4, EOFMSG},
    {"{ a; b }", 1, EOFMSG},
    {"( a", 1, EOFMSG},
    {"a &&", 1, EOFMSG},
    {"a ||\n\n", 3, EOFMSG},
    {"a |", 1, EOFMSG},
    {"while a; do b", 1, EOFMSG},
    {"case x in", 1, EOFMSG},
    {"f()", 1, EOFMSG},
    {"!", 1, EOFMSG},
    /* quotes and substitutions (line of the opening) */
    {"echo 'abc", 1, "unterminated quoted string"},
    {"echo \"abc", 1, "unterminated quoted string"},
    {"a\necho \"x\ny\nz", 2, "unterminated quoted string"},
    {"echo \"${x:-\"a}\"", 1, "unexpected EOF while looking for matching `}'"},
    {"echo \"${x:-a}", 1, "unterminated quoted string"},
    {"echo $(ls", 1, "unexpected EOF while looking for matching `)'"},
    {"echo $(\nls\n", 1, "unexpected EOF while looking for matching `)'"},
    {"echo $((1+2)", 1, "unexpected EOF while looking for matching `)'"},
    {"echo ${x", 1, "unexpected EOF while looking for matching `}'"},
    {"echo ${x:-abc", 1, "unexpected EOF while looking for matching `}'"},
    {"echo `x", 1, "unexpected EOF while looking for matching ``'"},
    {"echo $(if a)", 1, NEAR(")")},
    /* here-documents */
    /* (a body cut off by the end of the text: test_heredoc_eof_warns) */
    {"cat <<<", 1, NEAR("newline")},
    {"cat <<< ;", 1, NEAR(";")},
    /* bash syntax: (( )), for (( ; ; )), case terminators, select */
    {"((", 1, "unexpected EOF while looking for matching `)'"},
    {"(( 1 + 2", 1, "unexpected EOF while looking for matching `)'"},
    {"echo (( 1 ))", 1, NEAR("(")},
    {"(( 1 )) x", 1, NEAR("x")},
    {"for ((i=0;i<2)); do :; done", 1,
     "syntax error: arithmetic expression required"},
    {"for ((i)); do :; done", 1,
     "syntax error: arithmetic expression required"},
    {"for ((;;;)); do :; done", 1, "syntax error: `;' unexpected"},
    {"for ((;;)) echo; done", 1, NEAR("echo")},
    {"for ((;;)); do :", 1, "syntax error: unexpected end of file"},
    {"for (i); do :; done", 1, NEAR("(")},
    {"\nfor ((\n;\n;", 2, "unexpected EOF while looking for matching `)'"},
    {"case a in a) x;&& esac", 1, NEAR("&")},
    {"case a in a) x;;&; esac", 1, NEAR(";")},
    {";&", 1, NEAR(";&")},
    {"echo ;;&", 1, NEAR(";;&")},
    {"select x in a; do :; done", 1,
     "select: not supported: it reads a choice from a terminal and the box "
     "has none (use for)"},
    {"coproc cat", 1,
     "coproc: not supported in this shell (use a pipeline, or a job with & "
     "and wait)"},
    {"coproc NAME { cat; }", 1,
     "coproc: not supported in this shell (use a pipeline, or a job with & "
     "and wait)"},
    {"time | x", 1, NEAR("|")},
    {"|& a", 1, NEAR("|&")},
    {"diff <(a) <(b", 1, "unexpected EOF while looking for matching `)'"},
    {"x\necho a > >(cat;;)", 2, NEAR(";;")},
    {"cat < (a)", 1, NEAR("(")},
    {"a |&", 1, "syntax error: unexpected end of file"},
    {"a |& |& b", 1, NEAR("|&")},
    {"exec {fd}>", 1, NEAR("newline")},
    {"{ :; } {fd}>&", 1, NEAR("newline")},
    /* words */
    {"echo ${x:}", 1, "${x:}: bad substitution"},
    // ${x@Z} is an error only when expanded with x set (sh_exec_test).
    {"echo ${x@Z", 1, "unexpected EOF while looking for matching `}'"},
    {"echo ${x@Q", 1, "unexpected EOF while looking for matching `}'"},
    {"echo ${x@", 1, "unexpected EOF while looking for matching `}'"},
    {"echo ${x:1", 1, "unexpected EOF while looking for matching `}'"},
    {"echo ${x/a", 1, "unexpected EOF while looking for matching `}'"},
    {"echo $'a", 1, "unterminated quoted string"},
    {"echo $[1+2", 1, "unexpected EOF while looking for matching `]'"},
    {"echo ${}", 1, "${}: bad substitution"},
    {"echo ${!x&}", 1, "${!x&}: bad substitution"},
    {"echo ${x&}", 1, "${x&}: bad substitution"},
    {"echo ${#x:-a}", 1, "${#x:-a}: bad substitution"},
    {"\n\necho \"${a b}\"", 3, "${a b}: bad substitution"},
    {"a=(1 2", 1, "syntax error: unexpected end of file"},
    {"x=1 a=(1 ; 2)", 1, "syntax error near unexpected token `;'"},
    {"for 1 in a; do b; done", 1, "`1': not a valid identifier"},
    {"for a-b; do b; done", 1, "`a-b': not a valid identifier"},
    /* [[ … ]] (bash's words; one message per error) */
    {"[[ -f ]]", 1, "unexpected argument `]]' to conditional unary operator"},
    {"[[ -z ( ]]", 1, "unexpected argument `(' to conditional unary operator"},
    {"[[ -f\nx ]]", 1,
     "unexpected argument `newline' to conditional unary operator"},
    {"[[ a == ]]", 1,
     "unexpected argument `]]' to conditional binary operator"},
    {"[[ a -eq ]]", 1,
     "unexpected argument `]]' to conditional binary operator"},
    {"[[ a <\nb ]]", 1,
     "unexpected argument `newline' to conditional binary operator"},
    {"[[ a b ]]", 1, "conditional binary operator expected"},
    {"[[ a \"==\" b ]]", 1, "conditional binary operator expected"},
    {"[[ a !~ b ]]", 1, "conditional binary operator expected"},
    {"[[ a ; ]]", 1,
     "unexpected token `;', conditional binary operator expected"},
    {"[[ a\n]]", 1,
     "unexpected token `newline', conditional binary operator expected"},
    {"[[ ( a ]]", 1, "unexpected token `]]', expected `)'"},
    {"[[ ( a b ) ]]", 1, "conditional binary operator expected"},
    {"[[ a ) ]]", 1,
     "syntax error in conditional expression: unexpected token `)'"},
    {"[[ a == b ; ]]", 1,
     "syntax error in conditional expression: unexpected token `;'"},
    {"[[ -f a b ]]", 1, "syntax error in conditional expression"},
    {"[[ a == b c ]]", 1, "syntax error in conditional expression"},
    {"[[ ]]", 1, "syntax error in conditional expression"},
    {"[[ a && ]]", 1, "syntax error in conditional expression"},
    {"[[ ! ]]", 1, "syntax error in conditional expression"},
    {"[[ ( ) ]]", 1, "unexpected token `)' in conditional command"},
    {"[[ a || || ]]", 1, "unexpected token `||' in conditional command"},
    {"[[ & ]]", 1, "unexpected token `&' in conditional command"},
    {"[[ a", 1, "unexpected EOF while looking for `]]'"},
    {"[[\n\na ==", 1, "unexpected EOF while looking for `]]'"},
    {"[[ a =~ ( ]]", 1, "unexpected EOF while looking for matching `)'"},
    {"[[ -f == -f ]]", 1, "syntax error in conditional expression"},
    {"[[ ( a ) == b ]]", 1, "syntax error in conditional expression"},
    {"[[ -n a -a -n b ]]", 1, "syntax error in conditional expression"},
    {"[[ a == a]]; echo", 1,
     "syntax error in conditional expression: unexpected token `;'"},
    {"[[ ( =~ \\( ]]", 1, "conditional binary operator expected"},
    {"[[ 1<2 ]]", 1, "unexpected token `1' in conditional command"},
    {"]]", 1, NEAR("]]")},
    {"[[ a ]] ]]", 1, NEAR("]]")},
    {"echo x; [[ a ]] b", 1, NEAR("b")},
};

static void
test_errors(void **state)
{
    int bad = 0;
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    for (size_t i = 0; i < NELEM(cases); i++) {
        sh_node *n = NULL;
        sh_diag d;
        box_err rv = sh_parse(cases[i].src, strlen(cases[i].src), a, &n, &d);
        if (rv != BOX_EPARSE || d.d_line != cases[i].line ||
            strcmp(d.d_msg, cases[i].msg) != 0) {
            print_error("case %zu: %s\n  got:  %d line %u: %s\n"
                        "  want: line %u: %s\n",
                        i, cases[i].src, rv, d.d_line, d.d_msg, cases[i].line,
                        cases[i].msg);
            bad++;
        }
        assert_null(n);
    }
    box_arena_free(a);
    assert_int_equal(bad, 0);
}

static void
expect_limit(const char *src, size_t len, const char *msg)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_node *n = NULL;
    sh_diag d;
    assert_int_equal(sh_parse(src, len, a, &n, &d), BOX_ETOOBIG);
    assert_string_equal(d.d_msg, msg);
    assert_null(n);
    box_arena_free(a);
}

static char *
repeat(const char *pre, const char *mid, const char *post, int times,
       size_t *len)
{
    box_buf b;
    box_buf_init(&b, 1u << 22);
    for (int i = 0; i < times; i++)
        assert_int_equal(box_buf_puts(&b, pre), BOX_OK);
    assert_int_equal(box_buf_puts(&b, mid), BOX_OK);
    for (int i = 0; i < times; i++)
        assert_int_equal(box_buf_puts(&b, post), BOX_OK);
    *len = b.b_len;
    return box_buf_take(&b);
}

static void
test_input_too_large(void **state)
{
    size_t n = SH_MAX_INPUT + 1;
    char *big = box_alloc(n);
    memset(big, 'a', n);
    expect_limit(big, n, "input too large");
    /* Exactly the limit parses (one long word). */
    char *got = sh_test_dump(big, SH_MAX_INPUT, 0);
    assert_true(strncmp(got, "(list (cmd \"aaa", 15) == 0);
    box_free(got);
    box_free(big);
}

static void
test_depth(void **state)
{
    static const struct {
        const char *pre, *mid, *post;
    } nests[] = {
        {"{ ", "a;", " }"},           {"( ", "a", " )"},
        {"if a; then ", "b", "; fi"}, {"while a; do ", "b", "; done"},
        {"echo $(", "a", ")"},        {"\"${x:-", "", "}\""},
        {"f() { ", "a;", " }"},       {"case x in a) ", "b", ";; esac"},
    };
    for (size_t i = 0; i < NELEM(nests); i++) {
        size_t len;
        char *s = repeat(nests[i].pre, nests[i].mid, nests[i].post, 70, &len);
        expect_limit(s, len, "maximum recursion depth exceeded");
        box_free(s);
        /* Very deep input stops at the cap, not the C stack. */
        s = repeat(nests[i].pre, nests[i].mid, nests[i].post, 5000, &len);
        expect_limit(s, len, "maximum recursion depth exceeded");
        box_free(s);
    }
    /* Nested backquotes count too. */
    box_buf b;
    box_buf_init(&b, 1u << 20);
    assert_int_equal(box_buf_puts(&b, "echo \"$(echo \"$(echo "), BOX_OK);
    for (int i = 0; i < 40; i++)
        assert_int_equal(box_buf_puts(&b, "\"$(echo "), BOX_OK);
    for (int i = 0; i < 42; i++)
        assert_int_equal(box_buf_puts(&b, ")\""), BOX_OK);
    expect_limit(b.b_data, b.b_len, "maximum recursion depth exceeded");
    box_buf_reset(&b);
}

static void
test_pipeline_limit(void **state)
{
    const char *ok = "a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p";
    char *got = sh_test_dump(ok, strlen(ok), 0);
    assert_true(strncmp(got, "(list (pipe", 11) == 0);
    box_free(got);
    const char *bad = "a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q";
    expect_limit(bad, strlen(bad), "pipeline too long");
    const char *inner = "echo $(a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q)";
    expect_limit(inner, strlen(inner), "pipeline too long");
}

/* A here-document whose delimiter never comes takes the rest of the text
 * (a line always ending in a newline) with bash's warning, one per body;
 * only once no more text can come. */
static void
test_heredoc_eof_warns(void **state)
{
    static const struct {
        const char *src;
        size_t nwarn;
        unsigned at_line[2]; // "here-document at line N"
        const char *want[2];
        unsigned last_line; // w_line: the text's last line
        const char *dump;   // a prefix of the tree
    } hd[] = {
        {"cat <<EOF\na", 1, {1}, {"EOF"}, 2,
         "(list (cmd \"cat\" (<< \"EOF\" \"a\\n\")))"},
        {"cat <<EOF", 1, {1}, {"EOF"}, 1,
         "(list (cmd \"cat\" (<< \"EOF\" (word))))"},
        {"x\ncat <<'E'\nEOF\n", 1, {2}, {"E"}, 3, NULL},
        {"cat <<-E\nE \n", 1, {1}, {"E"}, 2, NULL},
        {"cat <<A <<B\nx\n", 2, {1, 2}, {"A", "B"}, 2, NULL},
    };
    for (size_t i = 0; i < NELEM(hd); i++) {
        box_arena *a = box_arena_new(SH_TEST_ARENA);
        sh_node *n = NULL;
        sh_diag d;
        const char *src = hd[i].src;
        assert_int_equal(sh_parse(src, strlen(src), a, &n, &d), BOX_OK);
        assert_non_null(n);
        assert_int_equal(d.d_nwarn, hd[i].nwarn);
        for (size_t k = 0; k < hd[i].nwarn; k++) {
            char want[SH_MAX_MSG];
            snprintf(want, sizeof want,
                     "here-document at line %u delimited by end-of-file "
                     "(wanted `%s')",
                     hd[i].at_line[k], hd[i].want[k]);
            assert_string_equal(d.d_warn[k].w_msg, want);
            assert_int_equal(d.d_warn[k].w_line, hd[i].last_line);
        }
        if (hd[i].dump != NULL) {
            char *got = sh_test_dump(src, strlen(src), 0);
            if (strncmp(got, hd[i].dump, strlen(hd[i].dump)) != 0)
                fail_msg("case %zu: %s", i, got);
            box_free(got);
        }
        box_arena_free(a);
    }

    // Fed a line at a time: more text may still close it, so no body and
    // no warning until the text is finished.
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_parser *p = sh_parser_new(a);
    assert_non_null(p);
    assert_int_equal(sh_parser_feed(p, "cat <<EOF\n", 10), BOX_OK);
    sh_node *n = NULL;
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_MORE);
    assert_int_equal(sh_parser_feed(p, "body\n", 5), BOX_OK);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_MORE);
    assert_int_equal(sh_parser_diag(p)->d_nwarn, 0);
    sh_parser_finish(p);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_CMD);
    assert_int_equal(sh_parser_diag(p)->d_nwarn, 1);
    sh_parser_warnings_clear(p);
    assert_int_equal(sh_parser_diag(p)->d_nwarn, 0);
    assert_int_equal(sh_parse_next(p, &n), SH_PARSE_END);
    sh_parser_free(p);
    box_arena_free(a);
}

static void
test_format(void **state)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_node *n = NULL;
    sh_diag d;
    char buf[SH_MAX_MSG + 64];
    assert_int_equal(sh_parse("a\n)", 3, a, &n, &d), BOX_EPARSE);
    assert_string_equal(sh_diag_format(&d, true, buf, sizeof(buf)),
                        "strands-shell: line 2: syntax error near "
                        "unexpected token `)'");
    assert_int_equal(sh_parse(")", 1, a, &n, &d), BOX_EPARSE);
    assert_string_equal(sh_diag_format(&d, false, buf, sizeof(buf)),
                        "strands-shell: syntax error near unexpected token "
                        "`)'");
    /* A long token is cut, the message stays bounded. */
    char big[400];
    memset(big, 'x', sizeof(big));
    big[0] = ';';
    assert_int_equal(sh_parse(big, sizeof(big), a, &n, &d), BOX_EPARSE);
    assert_true(strlen(d.d_msg) < SH_MAX_MSG);
    box_arena_free(a);
}

/* A small arena cap turns into "out of memory", never a crash. */
static void
test_arena_cap(void **state)
{
    box_arena *a = box_arena_new(16384);
    sh_node *n = NULL;
    sh_diag d;
    size_t len;
    char *s = repeat("echo a b c; ", "", "", 2000, &len);
    assert_int_equal(sh_parse(s, len, a, &n, &d), BOX_ENOMEM);
    assert_string_equal(d.d_msg, "out of memory");
    box_free(s);
    box_arena_free(a);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors), cmocka_unit_test(test_input_too_large),
        cmocka_unit_test(test_depth),  cmocka_unit_test(test_pipeline_limit),
        cmocka_unit_test(test_format), cmocka_unit_test(test_arena_cap),
        cmocka_unit_test(test_heredoc_eof_warns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
