/* SPDX-License-Identifier: Apache-2.0 */
/* Garbage and mutated scripts: never crash, and the incremental driver
 * fed byte by byte agrees with the one-shot parse. */
#include "sh_test_util.h"

/* Defaults for ctest; SH_FUZZ_N and SH_FUZZ_SEED override for long runs. */
static int fuzz_n = 400;

static uint64_t rng_state = 0x5eed5eedULL;

static uint32_t
rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)rng_state;
}

static const char *const seeds[] = {
    "echo hi | wc -l && x=1 y || { a; b; } > f 2>&1 &\n",
    "if a; then b; elif c; then d; else e; fi\n",
    "for i in 1 2 \"$x\"; do echo ${i:-z}; done; while read l; do :; done <f\n",
    "case $x in a|b) echo `date`;; (*) ;; esac\n",
    "f() { local x=$(( 1 + 2 )); echo \"$x${y%%.*}\"; }\n",
    "cat <<EOF | sed 's/a/b/'\nhello $USER\nEOF\ncat <<-'E'\n\tx\n\tE\n",
    "( cd ~/src && make ) || ! true; echo $? $# $@ $$ ${#v} ${v##*/}\n",
    "echo $(echo $(echo \"$(a)\")) 'q' \\x \"a\\\"b\"\n",    "(( i = 1 + (2 * 3) )) && ((echo a); echo b) || time -p ! ((x))\n",
    "for ((i = 0; i < 3; i++)) { echo {a,b}{1..3}; }; for ((;;)) do break; done\n",
    "case $x in a) b;& c) d;;& *) e;; esac; read -r v <<< \"$x y\" 3<<<z\n",
};

/* What the one-shot parse gives: the dump, or "E<line>:<msg>". */
static char *
oneshot(const char *s, size_t n)
{
    return sh_test_dump(s, n, SH_DUMP_LINES);
}

/* The same through sh_parse_next, fed one byte at a time. */
static char *
incremental(const char *s, size_t n)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_parser *p = sh_parser_new(a);
    assert_non_null(p);
    box_buf items, out;
    box_buf_init(&items, 1u << 24);
    box_buf_init(&out, 1u << 24);
    size_t off = 0;
    for (;;) {
        sh_node *node = NULL;
        sh_parse_status st = sh_parse_next(p, &node);
        if (st == SH_PARSE_MORE) {
            if (off < n) {
                assert_int_equal(sh_parser_feed(p, s + off, 1), BOX_OK);
                off++;
            }
            if (off == n)
                sh_parser_finish(p);
            continue;
        }
        if (st == SH_PARSE_END) {
            assert_int_equal(box_buf_puts(&out, "(list@1"), BOX_OK);
            if (items.b_len > 0)
                assert_int_equal(box_buf_append(&out, items.b_data,
                                                 items.b_len),
                                 BOX_OK);
            assert_int_equal(box_buf_puts(&out, ")"), BOX_OK);
            break;
        }
        if (st == SH_PARSE_ERROR) {
            const sh_diag *d = sh_parser_diag(p);
            assert_int_equal(box_buf_printf(&out, "error: line %u: %s",
                                            (unsigned)d->d_line, d->d_msg),
                             BOX_OK);
            break;
        }
        for (const sh_node *it = node->u.list.items; it; it = it->n_next) {
            /* Dump each item alone, as the one-shot list would. */
            sh_node copy = *it;
            copy.n_next = NULL;
            assert_int_equal(box_buf_putc(&items, ' '), BOX_OK);
            assert_int_equal(sh_ast_dump(&copy, &items, SH_DUMP_LINES),
                             BOX_OK);
        }
    }
    box_buf_reset(&items);
    sh_parser_free(p);
    box_arena_free(a);
    return box_buf_take(&out);
}

static void
check(const char *s, size_t n, bool differential)
{
    char *a = oneshot(s, n);
    if (differential) {
        char *b = incremental(s, n);
        if (strcmp(a, b) != 0) {
            box_buf q;
            box_buf_init(&q, 1u << 20);
            for (size_t i = 0; i < n; i++)
                assert_int_equal(box_buf_printf(&q, "\\x%02x",
                                                (unsigned char)s[i]),
                                 BOX_OK);
            fail_msg("differ on \"%s\"\n one-shot:    %s\n incremental: %s",
                     q.b_data, a, b);
        }
        box_free(b);
    }
    box_free(a);
}

/* Bytes that matter to the lexer, plus a little noise. */
static const char alphabet[] = "abcEOF01 \t\n;&|()<>{}!$`'\"\\#~=-+%?*:@,.[]/";

static void
test_random(void **state)
{
    char buf[200];
    for (int i = 0; i < fuzz_n; i++) {
        size_t n = rnd() % sizeof(buf);
        for (size_t j = 0; j < n; j++) {
            uint32_t r = rnd();
            buf[j] = (r % 16 == 0) ? (char)(r >> 8)
                                   : alphabet[r % (sizeof(alphabet) - 1)];
        }
        check(buf, n, n < 120);
    }
}

static void
test_mutants(void **state)
{
    char buf[512];
    for (int i = 0; i < fuzz_n; i++) {
        const char *seed = seeds[rnd() % NELEM(seeds)];
        size_t n = strlen(seed);
        memcpy(buf, seed, n);
        int edits = 1 + rnd() % 4;
        for (int e = 0; e < edits && n > 0; e++) {
            size_t at = rnd() % n;
            switch (rnd() % 3) {
            case 0: // replace
                buf[at] = alphabet[rnd() % (sizeof(alphabet) - 1)];
                break;
            case 1: // delete
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
                break;
            default: // insert
                if (n + 1 < sizeof(buf)) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = alphabet[rnd() % (sizeof(alphabet) - 1)];
                    n++;
                }
            }
        }
        check(buf, n, true);
    }
}

/* The seeds themselves parse, and truncating them anywhere never
 * crashes. */
static void
test_seeds_and_prefixes(void **state)
{
    for (size_t i = 0; i < NELEM(seeds); i++) {
        char *d = oneshot(seeds[i], strlen(seeds[i]));
        if (strncmp(d, "error", 5) == 0)
            fail_msg("seed %zu: %s", i, d);
        box_free(d);
        for (size_t n = 0; n <= strlen(seeds[i]); n++)
            check(seeds[i], n, true);
    }
}

int
main(void)
{
    if (getenv("SH_FUZZ_N") != NULL)
        fuzz_n = (int)strtol(getenv("SH_FUZZ_N"), NULL, 10);
    if (getenv("SH_FUZZ_SEED") != NULL)
        rng_state = strtoull(getenv("SH_FUZZ_SEED"), NULL, 10) | 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seeds_and_prefixes),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_mutants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
