/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for sh_lex: operators, words, IO numbers, reserved words. */
#include "sh_test_util.h"

#include "sh_lex.h"

static box_err
no_sub(void *ctx, sh_lex *lx, sh_sub_kind kind, sh_node **out)
{
    return BOX_ENOTSUP;
}

static void
lex_all(const char *src, const sh_tk *want, size_t n)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_diag d = {0};
    unsigned depth = 0;
    sh_lex lx;
    sh_lex_init(&lx, src, strlen(src), 1, true, a, &d, &depth, no_sub, NULL);
    for (size_t i = 0; i < n; i++) {
        sh_token t;
        assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
        sh_tk k = sh_lex_keyword(&t);
        if (k != want[i])
            fail_msg("%s: token %zu: got %s want %s", src, i, sh_tk_name(k),
                     sh_tk_name(want[i]));
    }
    box_arena_free(a);
}

static void
test_operators(void **state)
{
    static const sh_tk want[] = {
        SH_TK_SEMI, SH_TK_DSEMI, SH_TK_AMP, SH_TK_AND, SH_TK_PIPE,
        SH_TK_OR, SH_TK_LPAREN, SH_TK_RPAREN, SH_TK_LESS, SH_TK_GREAT,
        SH_TK_DGREAT, SH_TK_CLOBBER, SH_TK_LESSGREAT, SH_TK_LESSAND,
        SH_TK_GREATAND, SH_TK_DLESS, SH_TK_DLESSDASH, SH_TK_ANDGREAT,
        SH_TK_ANDDGREAT, SH_TK_TLESS, SH_TK_SEMIAND, SH_TK_DSEMIAND,
        SH_TK_PIPEAND, SH_TK_DSEMI, SH_TK_AMP, SH_TK_NEWLINE, SH_TK_EOF,
    };
    lex_all("; ;; & && | || ( ) < > >> >| <> <& >& << <<- &> &>> <<< "
            ";& ;;& |& ;; &\n",
            want, NELEM(want));
}

static void
test_words_and_keywords(void **state)
{
    static const sh_tk want[] = {
        SH_TK_IF, SH_TK_THEN, SH_TK_ELSE, SH_TK_ELIF, SH_TK_FI, SH_TK_DO,
        SH_TK_DONE, SH_TK_CASE, SH_TK_ESAC, SH_TK_WHILE, SH_TK_UNTIL,
        SH_TK_FOR, SH_TK_IN, SH_TK_LBRACE, SH_TK_RBRACE, SH_TK_BANG,
        SH_TK_WORD, SH_TK_WORD, SH_TK_WORD, SH_TK_FI, SH_TK_DONE,
        SH_TK_IO_NUMBER, SH_TK_GREAT, SH_TK_WORD, SH_TK_WORD, SH_TK_GREAT,
        SH_TK_WORD, SH_TK_EOF,
    };
    /* Quoted or joined keywords are plain words; a line continuation
     * is gone before reserved words are recognised. */
    lex_all("if then else elif fi do done case esac while until for in { } "
            "! 'if' \\fi {x fi\\\n done 2>f 2 >g # comment",
            want, NELEM(want));
}

static void
test_comment_and_continuation(void **state)
{
    static const sh_tk want[] = {
        SH_TK_WORD, SH_TK_NEWLINE, SH_TK_WORD, SH_TK_NEWLINE, SH_TK_WORD,
        SH_TK_EOF,
    };
    lex_all("a # c ; | &\n \\\n b\\\nc #\\\n d", want, NELEM(want));
}

static void
test_names(void **state)
{
    assert_string_equal(sh_tk_name(SH_TK_NEWLINE), "newline");
    assert_string_equal(sh_tk_name(SH_TK_DLESSDASH), "<<-");
    assert_string_equal(sh_tk_name(SH_TK_BANG), "!");
    assert_string_equal(sh_tk_name(SH_TK_COUNT), "?");
    for (int k = 0; k < SH_TK_COUNT; k++)
        assert_non_null(sh_tk_name((sh_tk)k));
}

static void
test_io_number(void **state)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_diag d = {0};
    unsigned depth = 0;
    sh_lex lx;
    const char *src = "12>x 3<&4 1234567890>y";
    sh_lex_init(&lx, src, strlen(src), 1, true, a, &d, &depth, no_sub, NULL);
    sh_token t;
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    assert_int_equal(t.t_kind, SH_TK_IO_NUMBER);
    assert_int_equal(t.t_fd, 12);
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    assert_int_equal(t.t_kind, SH_TK_GREAT);
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    assert_int_equal(t.t_fd, 3);
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    assert_int_equal(t.t_kind, SH_TK_LESSAND);
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    /* Too many digits for an fd: a plain word. */
    assert_int_equal(t.t_kind, SH_TK_WORD);
    box_arena_free(a);
}

/* Lines count newlines in quotes, continuations and comments. */
static void
test_lines(void **state)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_diag d = {0};
    unsigned depth = 0;
    sh_lex lx;
    const char *src = "'a\nb' \\\n c # x\n\n d";
    sh_lex_init(&lx, src, strlen(src), 1, true, a, &d, &depth, no_sub, NULL);
    static const unsigned lines[] = {1, 3, 3, 4, 5};
    for (size_t i = 0; i < NELEM(lines); i++) {
        sh_token t;
        assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
        assert_int_equal(t.t_line, lines[i]);
    }
    box_arena_free(a);
}

/* Without final input, reaching the end marks that more is needed. */
static void
test_hit_end(void **state)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_diag d = {0};
    unsigned depth = 0;
    sh_lex lx;
    sh_lex_init(&lx, "ab", 2, 1, false, a, &d, &depth, no_sub, NULL);
    sh_token t;
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    assert_true(lx.lx_hit_end);
    sh_lex_init(&lx, "ab\n", 3, 1, false, a, &d, &depth, no_sub, NULL);
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    assert_int_equal(sh_lex_next(&lx, &t), BOX_OK);
    assert_int_equal(t.t_kind, SH_TK_NEWLINE);
    assert_false(lx.lx_hit_end);
    box_arena_free(a);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operators),
        cmocka_unit_test(test_words_and_keywords),
        cmocka_unit_test(test_comment_and_continuation),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_io_number),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_hit_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
