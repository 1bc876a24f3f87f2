/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target pdp_fmt: `box policy fmt` keeps the rules and is a fixed
 * point. */
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_fuzz.h"
#include "pdp_fmt.h"
#include "pdp_parse.h"

/*
 * The input is a .dw file. Invariants: a text that does not parse is
 * refused with a message and nothing written; one that parses formats to
 * a text that parses to the same rules (pdp_rule_dump of each), and
 * formatting that text again gives it back unchanged.
 */

#define FZ_MAX (1u << 24)

/* The rule dumps of text, joined; NULL when it does not parse. */
static char *
fz_dumps(const char *text, size_t len)
{
    box_arena *a = box_arena_new(FZ_MAX * 4);
    box_buf b;
    box_buf_init(&b, FZ_MAX * 4);
    const pdp_ast *ast = NULL;
    char *out = NULL;
    if (a == NULL)
        box_fuzz_fail("out of memory");
    if (pdp_parse(text, len, "fuzz.dw", a, &ast, &b) == BOX_OK) {
        box_buf_truncate(&b, 0);
        for (uint32_t i = 0; i < ast->as_nrules; i++)
            if (box_buf_putc(&b, '\n') != BOX_OK ||
                pdp_rule_dump(ast->as_rules[i], &b) != BOX_OK)
                box_fuzz_fail("a parsed rule does not dump");
        if (box_buf_putc(&b, '\0') != BOX_OK)
            box_fuzz_fail("out of memory");
        out = box_buf_take(&b);
    }
    box_buf_reset(&b);
    box_arena_free(a);
    return out;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    box_buf once, twice, err;
    box_buf_init(&once, FZ_MAX);
    box_buf_init(&twice, FZ_MAX);
    box_buf_init(&err, 1u << 16);
    box_err rv = pdp_fmt(text, size, "fuzz.dw", &once, &err);
    char *want = fz_dumps(text, size);
    if ((rv == BOX_OK) != (want != NULL) && rv != BOX_ETOOBIG)
        box_fuzz_fail("fmt and the parser disagree on whether it parses");
    if (rv != BOX_OK && (once.b_len != 0 || err.b_len == 0))
        box_fuzz_fail("a refusal that wrote text or gave no reason");
    if (rv == BOX_OK) {
        char *got = fz_dumps(once.b_data ? once.b_data : "", once.b_len);
        if (got == NULL)
            box_fuzz_fail("fmt wrote a text that does not parse");
        if (strcmp(got, want) != 0)
            box_fuzz_fail("fmt changed the rules");
        box_free(got);
        box_buf_truncate(&err, 0);
        if (pdp_fmt(once.b_data ? once.b_data : "", once.b_len, "fuzz.dw",
                    &twice, &err) != BOX_OK ||
            twice.b_len != once.b_len ||
            memcmp(twice.b_data ? twice.b_data : "",
                   once.b_data ? once.b_data : "", once.b_len) != 0)
            box_fuzz_fail("fmt of fmt is not fmt");
    }
    box_free(want);
    box_buf_reset(&once);
    box_buf_reset(&twice);
    box_buf_reset(&err);
    return 0;
}
