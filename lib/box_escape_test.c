/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for box_escape: one table of inputs and their three forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box_alloc.h"
#include "box_escape.h"
#include "box_utf8.h"

#define FFFD "\xef\xbf\xbd"

/* An input (with its length: NUL bytes are inputs too) and what each
 * form writes for it. */
typedef struct esc_case {
    const char *ec_in;
    size_t ec_len;
    const char *ec_debug; // box_escape_debug
    const char *ec_str;   // box_escape_debug_str
    const char *ec_ids;   // box_escape_ids
} esc_case;

#define C(in, d, s, i)                                                         \
    {                                                                          \
        in, sizeof(in) - 1, d, s, i                                            \
    }

static const esc_case esc_cases[] = {
    C("src/main.rs", "src/main.rs", "src/main.rs", "src/main.rs"),
    C("", "", "", ""),
    /* The terminal tricks of a hostile file name. */
    C("a\nb", "a\\nb", "a\\nb", "a\\nb"),
    C("x\r~/secret.txt", "x\\r~/secret.txt", "x\\r~/secret.txt",
      "x\\r~/secret.txt"),
    C("\t", "\\t", "\\t", "\\t"),
    C("a\x1b[2Kb", "a\\u{1b}[2Kb", "a\\u{1b}[2Kb", "a\\u{1b}[2Kb"),
    C("\x07\x08\x0b\x0c\x1f", "\\u{7}\\u{8}\\u{b}\\u{c}\\u{1f}",
      "\\u{7}\\u{8}\\u{b}\\u{c}\\u{1f}", "\\u{7}\\u{8}\\u{b}\\u{c}\\u{1f}"),
    C("\x7f", "\\u{7f}", "\\u{7f}", "\\u{7f}"),
    C("a\0b", "a\\0b", "a\\0b", "a\\u{0}b"),
    C("\\u{1b}", "\\\\u{1b}", "\\\\u{1b}", "\\\\u{1b}"),
    /* C1 controls: NEL and the 8-bit CSI. */
    C("\xc2\x85\xc2\x9b", "\\u{85}\\u{9b}", "\\u{85}\\u{9b}", "\\u{85}\\u{9b}"),
    /* Bidi and format characters. */
    C("\xd8\x9c", "\\u{61c}", "\\u{61c}", "\\u{61c}"),
    C("\xe2\x80\x8e\xe2\x80\x8f", "\\u{200e}\\u{200f}", "\\u{200e}\\u{200f}",
      "\\u{200e}\\u{200f}"),
    C("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad\xe2\x80\xae",
      "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{202e}",
      "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{202e}",
      "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{202e}"),
    C("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9",
      "\\u{2066}\\u{2067}\\u{2068}\\u{2069}",
      "\\u{2066}\\u{2067}\\u{2068}\\u{2069}",
      "\\u{2066}\\u{2067}\\u{2068}\\u{2069}"),
    C("txt.\xe2\x80\xaegpj.exe", "txt.\\u{202e}gpj.exe", "txt.\\u{202e}gpj.exe",
      "txt.\\u{202e}gpj.exe"),
    C("\xe2\x80\xa8", "\\u{2028}", "\\u{2028}", "\\u{2028}"),
    /* Not printable for Rust, kept by the ids form. */
    C("\xc2\xa0\xef\xbb\xbf", "\\u{a0}\\u{feff}", "\\u{a0}\\u{feff}",
      "\xc2\xa0\xef\xbb\xbf"),
    /* Quotes: each form its own way. */
    C("it's \"q\"", "it\\'s \\\"q\\\"", "it's \\\"q\\\"", "it's \"q\""),
    /* Printable text passes whole, multi-byte included. */
    C("caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80",
      "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80",
      "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80",
      "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80"),
    /* Grapheme extenders: always for a char, only first for a str. */
    C("\xcc\x81x\xcc\x81", "\\u{301}x\\u{301}", "\\u{301}x\xcc\x81",
      "\xcc\x81x\xcc\x81"),
    /* Malformed UTF-8: one U+FFFD per byte, never the raw byte. */
    C("\xff", FFFD, FFFD, FFFD),
    C("a\xe2\x80", "a" FFFD FFFD, "a" FFFD FFFD, "a" FFFD FFFD),
    C("\xc0\xaf", FFFD FFFD, FFFD FFFD, FFFD FFFD),
    C("\xed\xa0\x80", FFFD FFFD FFFD, FFFD FFFD FFFD, FFFD FFFD FFFD),
    C("\2332K", FFFD "2K", FFFD "2K", FFFD "2K"),
};

typedef box_err (*esc_fn)(box_buf *, const char *, size_t);

static void
expect(esc_fn fn, const char *name, const esc_case *c, const char *want)
{
    box_buf b;
    box_buf_init(&b, 1u << 16);
    assert_int_equal(fn(&b, c->ec_in, c->ec_len), BOX_OK);
    const char *got = b.b_len ? b.b_data : "";
    if (strcmp(got, want) != 0)
        fail_msg("%s(%s)\n  got:  %s\n  want: %s", name, c->ec_in, got, want);
    box_buf_reset(&b);
}

static void
test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof esc_cases / sizeof esc_cases[0]; i++) {
        const esc_case *c = &esc_cases[i];
        expect(box_escape_debug, "debug", c, c->ec_debug);
        expect(box_escape_debug_str, "debug_str", c, c->ec_str);
        expect(box_escape_ids, "ids", c, c->ec_ids);
    }
}

/* True iff s[0..n) holds a C0 byte, DEL, or a C1 or bidi character. */
static bool
has_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t c;
        size_t k = box_utf8_decode(s + i, n - i, &c);
        if (k == 0)
            return true; // not even UTF-8
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x061c ||
            c == 0x200e || c == 0x200f || (c >= 0x2028 && c <= 0x202e) ||
            (c >= 0x2066 && c <= 0x2069))
            return true;
        i += k;
    }
    return false;
}

/* Every scalar value and every single byte: each form's output is valid
 * UTF-8 with no control or bidi character left. */
static void
test_every_character(void **state)
{
    (void)state;
    static const esc_fn fns[] = {box_escape_debug, box_escape_debug_str,
                                 box_escape_ids};
    box_buf b;
    box_buf_init(&b, 64);
    for (uint32_t c = 0; c <= 0x10FFFF; c++) {
        char in[4];
        size_t n;
        if (c >= 0xD800 && c <= 0xDFFF)
            continue;
        n = box_utf8_encode(c, in);
        for (size_t f = 0; f < 3; f++) {
            b.b_len = 0;
            assert_int_equal(fns[f](&b, in, n), BOX_OK);
            if (has_control(b.b_data, b.b_len))
                fail_msg("form %zu lets U+%04X through", f, c);
        }
        b.b_len = 0;
        assert_int_equal(box_escape_debug_char(&b, c), BOX_OK);
        assert_false(has_control(b.b_data, b.b_len));
    }
    for (unsigned v = 0; v < 256; v++) {
        char in = (char)v;
        for (size_t f = 0; f < 3; f++) {
            b.b_len = 0;
            assert_int_equal(fns[f](&b, &in, 1), BOX_OK);
            assert_false(has_control(b.b_data, b.b_len));
        }
    }
    box_buf_reset(&b);
}

/* A full buffer is an error, never a silent cut. */
static void
test_cap(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 8);
    assert_int_equal(box_escape_debug(&b, "\x1b\x1b", 2), BOX_ETOOBIG);
    box_buf_reset(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_every_character),
        cmocka_unit_test(test_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
