/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for sh_print.c: functions printed back as bash 5.2 prints them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box_arena.h"
#include "box_buf.h"
#include "sh_internal.h"
#include "sh_parse.h"

/* Each definition and bash 5.2's `type NAME` body for it (without the
 * "is a function" line); tests/shell/cases/16-builtin-flags.cases checks
 * the same shapes against a live bash. */
static const struct {
    const char *src, *want;
} cases[] = {
    {"f() { :; }", "f () \n{ \n    :\n}"},
    {"f() { echo \"a $1\"; if true; then return 1; fi; }",
     "f () \n{ \n    echo \"a $1\";\n    if true; then\n        return 1;\n"
     "    fi\n}"},
    {"f() { for i; do :; done; }",
     "f () \n{ \n    for i in \"$@\";\n    do\n        :;\n    done\n}"},
    {"f() { a | b && c || d; ! e; c & }",
     "f () \n{ \n    a | b && c || d;\n    ! e;\n    c &\n}"},
    {"f() { x >&2; y <&3; z >&-; w 3>f; u &> o; }",
     "f () \n{ \n    x 1>&2;\n    y 0<&3;\n    z 1>&-;\n    w 3> f;\n"
     "    u &> o\n}"},
    {"f() { case x in a|b) ;; *) echo;& esac; }",
     "f () \n{ \n    case x in \n        a | b)\n\n        ;;\n        *)\n"
     "            echo\n        ;&\n    esac\n}"},
    {"f() { echo a; } > out 2>&1", "f () \n{ \n    echo a\n} > out 2>&1"},
    {"f() ( echo sub )", "f () \n{ \n    ( echo sub )\n}"},
    {"f() { g() { :; }; }",
     "f () \n{ \n    function g () \n    { \n        :\n    }\n}"},
    {"f() { cat <<EOF\nhi $x\nEOF\necho after; }",
     "f () \n{ \n    cat <<EOF\nhi $x\nEOF\n\n    echo after\n}"},
    {"f() { echo $'a\\tb' $'it\\'s' $\"loc\"; }",
     "f () \n{ \n    echo 'a\tb' 'it'\\''s' \"loc\"\n}"},
    {"f() { for ((;;)); do break; done; (( i++ )); }",
     "f () \n{ \n    for ((1; 1; 1))\n    do\n        break;\n    done;\n"
     "    (( i++ ))\n}"},
};

/* The first definition in src (parsed into a). */
static const sh_node *
parse_func(box_arena *a, const char *src)
{
    sh_node *list = NULL;
    sh_diag d;
    assert_int_equal(sh_parse(src, strlen(src), a, &list, &d), BOX_OK);
    const sh_node *n = list->u.list.items;
    assert_non_null(n);
    while (n->n_kind == SH_N_PIPE)
        n = n->u.pipe.stages;
    assert_int_equal(n->n_kind, SH_N_FUNC);
    return n;
}

static void
test_shapes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        box_arena *a = box_arena_new(1u << 20);
        assert_non_null(a);
        const sh_node *f = parse_func(a, cases[i].src);
        box_buf b;
        box_buf_init(&b, 1u << 16);
        assert_int_equal(sh_print_func(&b, "f", f->u.func.body), BOX_OK);
        assert_int_equal(box_buf_putc(&b, '\0'), BOX_OK);
        if (strcmp(b.b_data, cases[i].want) != 0)
            fail_msg("case %zu: %s\n got  [%s]\n want [%s]", i, cases[i].src,
                     b.b_data, cases[i].want);
        box_buf_reset(&b);
        box_arena_free(a);
    }
}

/* A buffer too small for the text is an error, never a cut text. */
static void
test_cap(void **state)
{
    (void)state;
    box_arena *a = box_arena_new(1u << 20);
    assert_non_null(a);
    const sh_node *f = parse_func(a, cases[1].src);
    box_buf b;
    box_buf_init(&b, 16);
    assert_int_not_equal(sh_print_func(&b, "f", f->u.func.body), BOX_OK);
    box_buf_reset(&b);
    box_arena_free(a);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
