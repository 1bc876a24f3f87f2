/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only helpers for the shell front end: parse-and-dump, errors. */
#ifndef SH_TEST_UTIL_H
#define SH_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_arena.h"
#include "sh_ast.h"
#include "sh_parse.h"

#define SH_TEST_ARENA (64u << 20)
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Parses src in one shot; returns the dump (box_alloc'd) or, on error,
 * "error: line N: msg". */
static inline char *
sh_test_dump(const char *src, size_t len, unsigned flags)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    assert_non_null(a);
    sh_node *n = NULL;
    sh_diag d;
    box_buf out;
    box_buf_init(&out, 1u << 24);
    if (sh_parse(src, len, a, &n, &d) != BOX_OK) {
        assert_int_equal(box_buf_printf(&out, "error: line %u: %s",
                                        (unsigned)d.d_line, d.d_msg),
                         BOX_OK);
    } else {
        assert_int_equal(sh_ast_dump(n, &out, flags), BOX_OK);
    }
    box_arena_free(a);
    return box_buf_take(&out);
}

#endif
