/* SPDX-License-Identifier: Apache-2.0 */
/* tail [-n [+]N] [file...]: the last N lines (10 by default) or from line N. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_internal.h"

#define TAIL_DEFAULT_LINES 10
#define TAIL_CHUNK (64u * 1024u) // -n +N: one read, one write
// The last N lines are held in memory until the input ends; this caps
// the storage they may take (stdin can be an endless pipe).
#define TAIL_HOLD_MAX (32u << 20)

/* One held line; its storage is reused when the ring wraps. */
typedef struct tail_line {
    char *tl_p;
    size_t tl_len, tl_cap;
} tail_line;

/*
 * The last lines seen. Slots are added one by one until there are N
 * (never N up front: N may be huge and the input short); from then on
 * the oldest slot is overwritten, so only N lines are ever held.
 */
typedef struct tail_ring {
    tail_line *rg_v;
    size_t rg_cap;   // slots allocated (at most N)
    size_t rg_n;     // slots in use
    size_t rg_start; // the oldest line (0 until the ring is full)
    size_t rg_held;  // bytes allocated for lines, at most TAIL_HOLD_MAX
    bool rg_open;    // the newest line has no '\n' yet (more pieces come)
} tail_ring;

typedef struct tail_run {
    sh_cmd_run tr_run;  // first: the bodies get &tr_run
    uintmax_t tr_lines; // N
    bool tr_from_start; // -n +N: print from line N on
    tail_ring tr_ring;
    char *tr_chunk; // -n +N copy buffer
} tail_run;

/* The slot for a new line: a fresh one until N are in use, then the
 * oldest. NULL on allocation failure. */
static tail_line *
ring_next(tail_ring *g, uintmax_t n)
{
    if (g->rg_n == g->rg_cap && g->rg_n < n) {
        size_t cap = g->rg_cap ? g->rg_cap * 2 : 16;
        if (cap > n)
            cap = (size_t)n;
        tail_line *v = box_realloc(g->rg_v, cap * sizeof *v);
        if (v == NULL)
            return NULL;
        memset(v + g->rg_cap, 0, (cap - g->rg_cap) * sizeof *v);
        g->rg_v = v;
        g->rg_cap = cap;
    }
    tail_line *l;
    if (g->rg_n < g->rg_cap) {
        l = &g->rg_v[g->rg_n++];
    } else {
        l = &g->rg_v[g->rg_start];
        g->rg_start = (g->rg_start + 1) % g->rg_cap;
    }
    l->tl_len = 0;
    return l;
}

/* The newest line, for the next piece of a line still open. */
static tail_line *
ring_last(tail_ring *g)
{
    size_t i = g->rg_start == 0 ? g->rg_n - 1 : g->rg_start - 1;
    return &g->rg_v[i];
}

/* Appends p to l, growing it within TAIL_HOLD_MAX (else BOX_ETOOBIG). */
static box_err
ring_append(tail_ring *g, tail_line *l, const char *p, size_t n)
{
    if (l->tl_len + n > l->tl_cap) {
        size_t cap = l->tl_cap ? l->tl_cap : 64;
        while (cap < l->tl_len + n)
            cap *= 2;
        if (g->rg_held - l->tl_cap + cap > TAIL_HOLD_MAX)
            return BOX_ETOOBIG;
        char *np = box_realloc(l->tl_p, cap);
        if (np == NULL)
            return BOX_ENOMEM;
        g->rg_held += cap - l->tl_cap;
        l->tl_p = np;
        l->tl_cap = cap;
    }
    memcpy(l->tl_p + l->tl_len, p, n);
    l->tl_len += n;
    return BOX_OK;
}

/* Adds one line or piece (a line over SH_LINE_MAX comes in pieces). */
static box_err
ring_add(tail_ring *g, uintmax_t n, const char *p, size_t len)
{
    tail_line *l = g->rg_open ? ring_last(g) : ring_next(g, n);
    if (l == NULL)
        return BOX_ENOMEM;
    box_err e = ring_append(g, l, p, len);
    if (e == BOX_OK)
        g->rg_open = p[len - 1] != '\n';
    return e;
}

static void
ring_free(tail_ring *g)
{
    for (size_t i = 0; i < g->rg_cap; i++)
        box_free(g->rg_v[i].tl_p);
    box_free(g->rg_v);
}

/* Reads the whole operand into the ring, then writes what it holds. */
static bool
tail_last(sh_cmd_run *cr, sh_input *in, const char *name)
{
    tail_run *r = (tail_run *)cr;
    tail_ring *g = &r->tr_ring;
    g->rg_n = g->rg_start = 0;
    g->rg_open = false;
    while (r->tr_lines > 0) { // -n 0: nothing to read
        const char *line;
        size_t len;
        int rc = sh_cmd_line(cr, in, &line, &len);
        if (rc < 0)
            return false;
        if (rc == 0)
            break; // after a read error too: print what we have
        box_err e = ring_add(g, r->tr_lines, line, len);
        if (e == BOX_ETOOBIG) {
            cr->cr_status = sh_cmd_err(cr->cr_cx, "tail", 1,
                                       "%s: lines too long to hold (limit "
                                       "%u MiB)",
                                       name, TAIL_HOLD_MAX >> 20);
            return false;
        }
        if (e != BOX_OK) {
            cr->cr_status = sh_cmd_err(cr->cr_cx, "tail", 1, "out of memory");
            return false;
        }
    }
    for (size_t i = 0; i < g->rg_n; i++) {
        const tail_line *l = &g->rg_v[(g->rg_start + i) % g->rg_cap];
        if (!sh_cmd_emit(cr, l->tl_p, l->tl_len))
            return false;
    }
    return true;
}

/* -n +N: skips N-1 lines, then copies the rest a chunk at a time. */
static bool
tail_from(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    tail_run *r = (tail_run *)cr;
    for (uintmax_t skipped = 1; skipped < r->tr_lines;) {
        const char *line;
        size_t len;
        int rc = sh_cmd_line(cr, in, &line, &len);
        if (rc <= 0)
            return rc == 0;
        skipped += line[len - 1] == '\n';
    }
    return sh_cmd_copy(cr, in, r->tr_chunk, TAIL_CHUNK);
}

/*
 * Continues past a failed operand (status 1 at the end), like GNU. N of
 * -n: '+' counts from the start (+0 is +1); a '-' changes nothing.
 */
int
sh_cmd_tail(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    tail_run r = {.tr_run = {.cr_cx = cx,
                             .cr_cmd = "tail",
                             .cr_headers = argc - o->o_ind > 1},
                  .tr_lines = TAIL_DEFAULT_LINES};
    const char *n = o->o_arg['n'];
    char sign = 0;
    if (sh_opt(o, 'n') && !sh_cmd_count(n, &r.tr_lines, &sign))
        return sh_cmd_err(cx, "tail", 1, "invalid number of lines: '%s'", n);
    r.tr_from_start = sign == '+';
    if (r.tr_from_start && (r.tr_chunk = box_alloc(TAIL_CHUNK)) == NULL) {
        r.tr_run.cr_status = sh_cmd_err(cx, "tail", 1, "out of memory");
        goto out;
    }
    sh_cmd_operands(&r.tr_run, argc, argv, o,
                    r.tr_from_start ? tail_from : tail_last);
out:
    ring_free(&r.tr_ring);
    box_free(r.tr_chunk);
    return r.tr_run.cr_status;
}
