/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_lex: tokens, positions, BOM, comments, string escapes. */
#include "pdp_test_util.h"

#include "pdp_lex.h"

static void
test_tokens(void **state)
{
    const char *src = "\xEF\xBB\xBF@id(\"x\") permit // comment\n"
                      "  ( principal == A::\"b\", 42 <= >= != && || ! - + * "
                      "/ % = : ? $ . [ ] { } ; if like has is in then else "
                      "true false __cedar when )";
    static const pdp_tk want[] = {
        PDP_TK_AT, PDP_TK_IDENT, PDP_TK_LPAREN, PDP_TK_STR, PDP_TK_RPAREN,
        PDP_TK_IDENT, PDP_TK_LPAREN, PDP_TK_IDENT, PDP_TK_EQ, PDP_TK_IDENT,
        PDP_TK_DCOLON, PDP_TK_STR, PDP_TK_COMMA, PDP_TK_INT, PDP_TK_LE,
        PDP_TK_GE, PDP_TK_NE, PDP_TK_AND, PDP_TK_OR, PDP_TK_NOT,
        PDP_TK_MINUS, PDP_TK_PLUS, PDP_TK_STAR, PDP_TK_SLASH, PDP_TK_PERCENT,
        PDP_TK_ASSIGN, PDP_TK_COLON, PDP_TK_QUESTION, PDP_TK_DOLLAR,
        PDP_TK_DOT, PDP_TK_LBRACKET, PDP_TK_RBRACKET, PDP_TK_LBRACE,
        PDP_TK_RBRACE, PDP_TK_SEMI, PDP_TK_IF, PDP_TK_LIKE, PDP_TK_HAS,
        PDP_TK_IS, PDP_TK_IN, PDP_TK_THEN, PDP_TK_ELSE, PDP_TK_TRUE,
        PDP_TK_FALSE, PDP_TK_CEDAR, PDP_TK_IDENT, PDP_TK_RPAREN, PDP_TK_EOF,
    };
    box_buf err;
    box_buf_init(&err, 4096);
    pdp_lex lx;
    assert_int_equal(pdp_lex_init(&lx, src, strlen(src), "t.dw", &err), BOX_OK);
    /* The BOM is skipped and does not count as a column. */
    assert_int_equal(lx.lx_tok.t_line, 1);
    assert_int_equal(lx.lx_tok.t_col, 1);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        if (lx.lx_tok.t_kind != want[i])
            fail_msg("token %zu: got %s want %s", i, pdp_tk_name(lx.lx_tok.t_kind),
                     pdp_tk_name(want[i]));
        if (i == 7) { // `principal` on line 2 after two blanks and `(`
            assert_int_equal(lx.lx_tok.t_line, 2);
            assert_int_equal(lx.lx_tok.t_col, 5);
        }
        if (want[i] != PDP_TK_EOF)
            assert_int_equal(pdp_lex_next(&lx), BOX_OK);
    }
    box_buf_reset(&err);
}

static void
test_columns_count_characters(void **state)
{
    const char *src = "\"é€😀\" x";
    box_buf err;
    box_buf_init(&err, 4096);
    pdp_lex lx;
    assert_int_equal(pdp_lex_init(&lx, src, strlen(src), "t.dw", &err), BOX_OK);
    assert_int_equal(pdp_lex_next(&lx), BOX_OK);
    assert_int_equal(lx.lx_tok.t_kind, PDP_TK_IDENT);
    assert_int_equal(lx.lx_tok.t_col, 7);
    const pdp_token *ahead;
    assert_int_equal(pdp_lex_peek(&lx, &ahead), BOX_OK);
    assert_int_equal(ahead->t_kind, PDP_TK_EOF);
    box_buf_reset(&err);
}

/* Whitespace is Cedar's: every Unicode White_Space character (found by
 * tests/cedar_diff: cedar-wasm loads a policy with a no-break space or a
 * form feed between tokens). Other format characters stay errors. */
static void
test_unicode_whitespace(void **state)
{
    const char *src = "a\v\fb\xc2\x85\xc2\xa0"
                      "c\xe1\x9a\x80\xe2\x80\x80\xe2\x80\x8a "
                      "d\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaf"
                      "\xe2\x81\x9f\xe3\x80\x80" "e";
    box_buf err;
    box_buf_init(&err, 4096);
    pdp_lex lx;
    assert_int_equal(pdp_lex_init(&lx, src, strlen(src), "t.dw", &err), BOX_OK);
    for (char want = 'a'; want <= 'e'; want++) {
        assert_int_equal(lx.lx_tok.t_kind, PDP_TK_IDENT);
        assert_int_equal(lx.lx_tok.t_len, 1);
        assert_int_equal(lx.lx_tok.t_text[0], want);
        assert_int_equal(pdp_lex_next(&lx), BOX_OK);
    }
    assert_int_equal(lx.lx_tok.t_kind, PDP_TK_EOF);
    box_buf_reset(&err);
}

static void
lex_error(const char *src, size_t len, const char *want)
{
    box_buf err;
    box_buf_init(&err, 4096);
    pdp_lex lx;
    box_err rv = pdp_lex_init(&lx, src, len, "t.dw", &err);
    while (rv == BOX_OK && lx.lx_tok.t_kind != PDP_TK_EOF)
        rv = pdp_lex_next(&lx);
    assert_int_equal(rv, BOX_EPARSE);
    assert_string_equal(err.b_data, want);
    box_buf_reset(&err);
}

static void
test_lex_errors(void **state)
{
    lex_error("a \"abc", 6, "t.dw:1:3: unterminated string literal");
    lex_error("a\n  | b", 7, "t.dw:2:3: unexpected character `|`");
    lex_error("a & b", 5, "t.dw:1:3: unexpected character `&`");
    lex_error("a\n\xff", 3, "t.dw:2:1: policy text is not valid UTF-8");
    lex_error("a ¬", strlen("a ¬"), "t.dw:1:3: unexpected character `¬`");
    /* A zero-width space and a BOM inside the text are not whitespace. */
    lex_error("a\xe2\x80\x8b", 4,
              "t.dw:1:2: unexpected character `\xe2\x80\x8b`");
    lex_error("a \xef\xbb\xbf", 5, "t.dw:1:3: unexpected character "
                                    "`\xef\xbb\xbf`");
}

/* Decodes the string literal src (with quotes). */
static box_err
decode(const char *src, bool pattern, char **out, size_t *len, bool **wild,
       box_buf *err, box_arena *a)
{
    pdp_lex lx;
    box_err rv = pdp_lex_init(&lx, src, strlen(src), "t.dw", err);
    if (rv != BOX_OK)
        return rv;
    assert_int_equal(lx.lx_tok.t_kind, PDP_TK_STR);
    return pdp_lex_string(&lx, &lx.lx_tok, a, pattern, out, len, wild);
}

static void
test_escapes(void **state)
{
    box_arena *a = box_arena_new(1u << 20);
    box_buf err;
    box_buf_init(&err, 4096);
    char *s;
    size_t n;
    bool *w;
    assert_int_equal(decode("\"a\\n\\r\\t\\0\\\\\\\"\\'\\x41\\x7F\\u{e9}"
                            "\\u{1F600}\\u{10FFFF}\"",
                            false, &s, &n, NULL, &err, a),
                     BOX_OK);
    const char want[] = "a\n\r\t\0\\\"'A\x7f\xc3\xa9\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf";
    assert_int_equal(n, sizeof(want) - 1);
    assert_memory_equal(s, want, n);
    /* Line continuation skips the newline and the next line's blanks. */
    assert_int_equal(decode("\"ab\\\n    cd\"", false, &s, &n, NULL, &err, a),
                     BOX_OK);
    assert_string_equal(s, "abcd");
    /* `_` separators inside \u{…}, as Rust (and Cedar) allow. */
    assert_int_equal(decode("\"\\u{4_1}\\u{0_1_2_3}\\u{1_F_6_0_0}\"", false, &s,
                            &n, NULL, &err, a),
                     BOX_OK);
    assert_string_equal(s, "A\xc4\xa3\xf0\x9f\x98\x80");
    /* Patterns: unescaped star is a wildcard, \* a literal star. */
    assert_int_equal(decode("\"a*b\\*\"", true, &s, &n, &w, &err, a), BOX_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(s, "a*b*", 4);
    assert_false(w[0]);
    assert_true(w[1]);
    assert_false(w[2]);
    assert_false(w[3]);
    /* Only `\*` is a literal star: a star written \x2a or \u{2a} is a
     * wildcard, as in Cedar (found by tests/cedar_diff). */
    assert_int_equal(decode("\"\\x2a\\u{2a}\\u{2_a}\\*\"", true, &s, &n, &w,
                            &err, a),
                     BOX_OK);
    assert_int_equal(n, 4);
    assert_memory_equal(s, "****", 4);
    assert_true(w[0]);
    assert_true(w[1]);
    assert_true(w[2]);
    assert_false(w[3]);

    static const struct {
        const char *src;
        const char *msg;
    } bad[] = {
        {"\"a\\qb\"", "t.dw:1:3: the input `\\q` is not a valid escape"},
        {"\"a\\*b\"", "t.dw:1:3: the input `\\*` is not a valid escape"},
        {"\"\\xFF\"", "t.dw:1:2: the input `\\xFF` is not a valid escape"},
        {"\"\\x8\"", "t.dw:1:2: the input `\\x8` is not a valid escape"},
        {"\"\\u{}\"", "t.dw:1:2: the input `\\u{}` is not a valid escape"},
        {"\"\\u{110000}\"",
         "t.dw:1:2: the input `\\u{110000}` is not a valid escape"},
        {"\"\\u{D800}\"", "t.dw:1:2: the input `\\u{D800}` is not a valid escape"},
        {"\"\\u{1234567}\"",
         "t.dw:1:2: the input `\\u{1234567}` is not a valid escape"},
        {"\"\\u0041\"", "t.dw:1:2: the input `\\u` is not a valid escape"},
        {"\"\\u{_41}\"", "t.dw:1:2: the input `\\u{` is not a valid escape"},
        {"\"\\u{1_2_3_4_5_6_7}\"",
         "t.dw:1:2: the input `\\u{1_2_3_4_5_6_7}` is not a valid escape"},
        {"\"x\\é\"", "t.dw:1:3: the input `\\é` is not a valid escape"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        box_buf_reset(&err);
        assert_int_equal(decode(bad[i].src, false, &s, &n, NULL, &err, a),
                         BOX_EPARSE);
        assert_string_equal(err.b_data, bad[i].msg);
    }
    box_buf_reset(&err);
    box_arena_free(a);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_columns_count_characters),
        cmocka_unit_test(test_unicode_whitespace),
        cmocka_unit_test(test_lex_errors),
        cmocka_unit_test(test_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
