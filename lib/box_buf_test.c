/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for box_buf: growth, the cap, take. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"

static void
test_append_and_take(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 1000);
    for (int i = 0; i < 100; i++)
        assert_int_equal(box_buf_puts(&b, "ab"), BOX_OK);
    assert_int_equal(b.b_len, 200);
    assert_int_equal(box_buf_printf(&b, "%d", 42), BOX_OK);
    char *s = box_buf_take(&b);
    assert_int_equal(strlen(s), 202);
    assert_string_equal(s + 200, "42");
    assert_null(b.b_data);
    box_free(s);
}

static void
test_cap_refuses_and_keeps(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 4);
    assert_int_equal(box_buf_puts(&b, "abc"), BOX_OK);
    assert_int_equal(box_buf_puts(&b, "de"), BOX_ETOOBIG);
    assert_string_equal(b.b_data, "abc");
    assert_int_equal(box_buf_putc(&b, 'd'), BOX_OK);
    assert_int_equal(box_buf_printf(&b, "x"), BOX_ETOOBIG);
    assert_string_equal(b.b_data, "abcd");
    box_buf_reset(&b);
}

/* Room made ahead is used without growing again; past the cap it is
 * refused and the buffer is as it was. */
static void
test_reserve(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 100);
    assert_int_equal(box_buf_reserve(&b, 50), BOX_OK);
    char *room = b.b_data;
    assert_non_null(room);
    assert_true(b.b_cap >= 51);
    for (int i = 0; i < 25; i++)
        assert_int_equal(box_buf_puts(&b, "ab"), BOX_OK);
    assert_ptr_equal(b.b_data, room);
    assert_int_equal(box_buf_reserve(&b, 51), BOX_ETOOBIG);
    assert_int_equal(b.b_len, 50);
    box_buf_reset(&b);
}

/* putc on room already there and fill both stop at the cap, as append
 * does, leaving the text as it was. */
static void
test_putc_fill_cap(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 6);
    assert_int_equal(box_buf_reserve(&b, 6), BOX_OK);
    assert_int_equal(box_buf_fill(&b, 'x', 3), BOX_OK);
    assert_int_equal(box_buf_putc(&b, 'y'), BOX_OK);
    assert_int_equal(box_buf_fill(&b, 'z', 3), BOX_ETOOBIG);
    assert_string_equal(b.b_data, "xxxy");
    assert_int_equal(box_buf_fill(&b, 'z', 0), BOX_OK);
    assert_int_equal(box_buf_putc(&b, 'a'), BOX_OK);
    assert_int_equal(box_buf_putc(&b, 'b'), BOX_OK);
    assert_int_equal(box_buf_putc(&b, 'c'), BOX_ETOOBIG);
    assert_string_equal(b.b_data, "xxxyab");
    assert_int_equal(b.b_len, 6);
    box_buf_reset(&b);
}

/* The inline append on room already there: it fills the room to the
 * last byte before the NUL, then grows; with room past the cap (reserved
 * under a larger one) it still stops at the cap, the text as it was. A
 * literal appends its bytes, not its NUL. */
static void
test_append_room_edges(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 100);
    assert_int_equal(box_buf_reserve(&b, 10), BOX_OK);
    size_t cap = b.b_cap;
    char *room = b.b_data;
    char fill[128];
    memset(fill, 'a', sizeof fill);
    assert_int_equal(box_buf_append(&b, fill, cap - 1), BOX_OK);
    assert_ptr_equal(b.b_data, room); // fit: no growth
    assert_int_equal(b.b_data[cap - 1], '\0');
    assert_int_equal(box_buf_lit(&b, "xy"), BOX_OK); // grows
    assert_int_equal(b.b_len, cap + 1);
    assert_string_equal(b.b_data + cap - 1, "xy");
    box_buf_reset(&b);

    box_buf_init(&b, 64);
    assert_int_equal(box_buf_reserve(&b, 64), BOX_OK);
    b.b_max = 5; // room beyond the cap
    assert_int_equal(box_buf_lit(&b, "abcd"), BOX_OK);
    assert_int_equal(box_buf_lit(&b, "ef"), BOX_ETOOBIG);
    assert_string_equal(b.b_data, "abcd");
    assert_int_equal(box_buf_append(&b, "e", 1), BOX_OK);
    assert_int_equal(box_buf_append(&b, NULL, 0), BOX_OK);
    assert_int_equal(box_buf_append(&b, "f", 1), BOX_ETOOBIG);
    assert_string_equal(b.b_data, "abcde");
    box_buf_reset(&b);
}

static void
test_take_empty(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 4);
    char *s = box_buf_take(&b);
    assert_string_equal(s, "");
    box_free(s);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_take),
        cmocka_unit_test(test_cap_refuses_and_keeps),
        cmocka_unit_test(test_take_empty),
        cmocka_unit_test(test_reserve),
        cmocka_unit_test(test_putc_fill_cap),
        cmocka_unit_test(test_append_room_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
