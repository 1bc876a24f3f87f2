/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target sh_parse: the shell parser, in one shot and fed in pieces. */
#include <stdbool.h>
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_buf.h"
#include "box_fuzz.h"
#include "sh_ast.h"
#include "sh_parse.h"

/*
 * The input is the text of one `sh -c` call, as an agent sends it. It is
 * parsed in one shot (sh_parse, as eval and command substitution do) and
 * through the incremental driver the session uses (sh_parse_next), fed in
 * pieces, and both results are dumped (sh_ast_dump). Invariant: the two
 * agree, node for node and error for error (the contract in sh_parse.h;
 * sh_parse_fuzz_test checks it on random text, this on what libFuzzer
 * finds). Diagnostics are also formatted as the shell prints them.
 */

#define FZ_ARENA (64u << 20)
#define FZ_DUMP_MAX (64u << 20)

/* Appends the error as both drivers report it. */
static void
fz_put_error(box_buf *out, const sh_diag *d)
{
    char msg[512];
    (void)sh_diag_format(d, true, msg, sizeof msg);
    if (strlen(msg) >= sizeof msg)
        box_fuzz_fail("a diagnostic that is not NUL-terminated");
    if (box_buf_printf(out, "error: line %u: %s", (unsigned)d->d_line,
                       d->d_msg) != BOX_OK)
        box_fuzz_fail("out of memory");
}

/* The one-shot parse as text: the dump of the list, or the error. */
static void
fz_oneshot(const char *s, size_t n, box_buf *out)
{
    box_arena *a = box_arena_new(FZ_ARENA);
    sh_node *list = NULL;
    sh_diag d = {0};
    if (a == NULL)
        box_fuzz_fail("out of memory");
    if (sh_parse(s, n, a, &list, &d) != BOX_OK)
        fz_put_error(out, &d);
    else if (sh_ast_dump(list, out, SH_DUMP_LINES) != BOX_OK)
        box_fuzz_fail("a parsed list does not dump");
    box_arena_free(a);
}

/*
 * The same through sh_parse_next, fed first bytes, then chunk bytes at a
 * time: every complete command's items dumped one by one inside one
 * (list@1 …), as the one-shot dump prints them.
 */
static void
fz_incremental(const char *s, size_t n, size_t first, size_t chunk,
               box_buf *out)
{
    box_arena *a = box_arena_new(FZ_ARENA);
    sh_parser *p = a ? sh_parser_new(a) : NULL;
    box_buf items;
    size_t off = 0;
    box_buf_init(&items, FZ_DUMP_MAX);
    if (p == NULL)
        box_fuzz_fail("out of memory");
    if (n == 0)
        sh_parser_finish(p);
    for (;;) {
        sh_node *cmd = NULL;
        sh_parse_status st = sh_parse_next(p, &cmd);
        if (st == SH_PARSE_MORE) {
            size_t want = off == 0 ? first : chunk;
            size_t k = n - off < want ? n - off : want;
            if (k == 0)
                box_fuzz_fail("more asked for after finish");
            if (sh_parser_feed(p, s + off, k) != BOX_OK)
                continue; // failed: the next call reports it
            off += k;
            if (off == n)
                sh_parser_finish(p);
            continue;
        }
        if (st == SH_PARSE_ERROR) {
            fz_put_error(out, sh_parser_diag(p));
            break;
        }
        if (st == SH_PARSE_END) {
            if (box_buf_puts(out, "(list@1") != BOX_OK ||
                (items.b_len > 0 &&
                 box_buf_append(out, items.b_data, items.b_len) != BOX_OK) ||
                box_buf_puts(out, ")") != BOX_OK)
                box_fuzz_fail("out of memory");
            break;
        }
        if (cmd == NULL || cmd->n_kind != SH_N_LIST)
            box_fuzz_fail("a command that is not a list");
        for (const sh_node *it = cmd->u.list.items; it; it = it->n_next) {
            sh_node one = *it; // dumped alone, as the one-shot list would
            one.n_next = NULL;
            if (box_buf_putc(&items, ' ') != BOX_OK ||
                sh_ast_dump(&one, &items, SH_DUMP_LINES) != BOX_OK)
                box_fuzz_fail("out of memory");
        }
    }
    box_buf_reset(&items);
    sh_parser_free(p);
    box_arena_free(a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    box_buf one, inc;
    box_buf_init(&one, FZ_DUMP_MAX);
    box_buf_init(&inc, FZ_DUMP_MAX);
    fz_oneshot(s, size, &one);
    // Byte by byte tries every place a command may be cut, but costs a
    // parse per byte; a longer text is cut once, at a place its bytes
    // choose, so each mutation tries another.
    if (size <= 64) {
        fz_incremental(s, size, 1, 1, &inc);
    } else {
        uint32_t h = 2166136261u; // FNV-1a
        for (size_t i = 0; i < size; i++)
            h = (h ^ data[i]) * 16777619u;
        fz_incremental(s, size, 1 + h % (size - 1), size, &inc);
    }
    if (one.b_len != inc.b_len ||
        (one.b_len > 0 && memcmp(one.b_data, inc.b_data, one.b_len) != 0)) {
        fprintf(stderr, "one-shot:    %.*s\nincremental: %.*s\n",
                (int)one.b_len, one.b_data, (int)inc.b_len, inc.b_data);
        box_fuzz_fail("the incremental parse differs from the one-shot one");
    }
    box_buf_reset(&one);
    box_buf_reset(&inc);
    return 0;
}
