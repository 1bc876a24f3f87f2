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
    sh_ctx *tr_cx;
    uintmax_t tr_lines; // N
    bool tr_from_start; // -n +N: print from line N on
    bool tr_headers;    // several operands: "==> name <==" before each
    bool tr_first;      // no header printed yet (no blank line before it)
    tail_ring tr_ring;
    char *tr_chunk; // -n +N copy buffer
    int tr_status;  // 0, 1 after a failed operand, or the stop status
} tail_run;

/*
 * N of -n, GNU's spelling: '+' counts from the start (+0 is +1), a '-'
 * is allowed and changes nothing, then decimal digits (a value past
 * UINTMAX_MAX means "everything").
 */
static bool
tail_count(const char *s, uintmax_t *out, bool *from_start)
{
    *from_start = *s == '+';
    if (*s == '+' || *s == '-')
        s++;
    if (*s == '\0')
        return false;
    uintmax_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        v = v > (UINTMAX_MAX - d) / 10 ? UINTMAX_MAX : v * 10 + d;
    }
    *out = v;
    return true;
}

/*
 * Writes p to stdout. False when tail must end now: the reader is gone
 * or the call's output is spent (sh_write already set the flow: end
 * quietly with its status), or fd 1 is unusable (after the message).
 */
static bool
tail_emit(tail_run *r, const char *p, size_t n)
{
    if (n == 0 || sh_write(r->tr_cx, 1, p, n) == SH_IO_OK)
        return true;
    if (r->tr_cx->cx_flow != SH_FLOW_NONE)
        r->tr_status = r->tr_cx->cx_status;
    else
        r->tr_status =
            sh_cmd_err(r->tr_cx, "tail", 1, "write error: Bad file descriptor");
    return false;
}

/* False (status set) when the call is being torn down: timeout, abort. */
static bool
tail_live(tail_run *r)
{
    if (!sh_check_stop(r->tr_cx))
        return true;
    r->tr_status = r->tr_cx->cx_status;
    return false;
}

/* GNU's header: a blank line between operands; "-" is standard input. */
static bool
tail_header(tail_run *r, const char *operand)
{
    if (!r->tr_headers)
        return true;
    const char *name = strcmp(operand, "-") == 0 ? "standard input" : operand;
    bool ok = (r->tr_first || tail_emit(r, "\n", 1)) &&
              tail_emit(r, "==> ", 4) && tail_emit(r, name, strlen(name)) &&
              tail_emit(r, " <==\n", 5);
    r->tr_first = false;
    return ok;
}

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
tail_last(tail_run *r, sh_input *in, const char *name)
{
    tail_ring *g = &r->tr_ring;
    g->rg_n = g->rg_start = 0;
    g->rg_open = false;
    while (r->tr_lines > 0) { // -n 0: nothing to read
        if (!tail_live(r))
            return false;
        const char *line;
        size_t len;
        int rc = sh_input_line(in, &line, &len);
        if (rc < 0)
            r->tr_status = 1; // reported by the input; print what we have
        if (rc <= 0)
            break;
        box_err e = ring_add(g, r->tr_lines, line, len);
        if (e == BOX_ETOOBIG) {
            r->tr_status = sh_cmd_err(r->tr_cx, "tail", 1,
                                      "%s: lines too long to hold (limit %u "
                                      "MiB)",
                                      name, TAIL_HOLD_MAX >> 20);
            return false;
        }
        if (e != BOX_OK) {
            r->tr_status = sh_cmd_err(r->tr_cx, "tail", 1, "out of memory");
            return false;
        }
    }
    for (size_t i = 0; i < g->rg_n; i++) {
        const tail_line *l = &g->rg_v[(g->rg_start + i) % g->rg_cap];
        if (!tail_emit(r, l->tl_p, l->tl_len))
            return false;
    }
    return true;
}

/* -n +N: skips N-1 lines, then copies the rest a chunk at a time. */
static bool
tail_from(tail_run *r, sh_input *in)
{
    for (uintmax_t skipped = 1; skipped < r->tr_lines;) {
        if (!tail_live(r))
            return false;
        const char *line;
        size_t len;
        int rc = sh_input_line(in, &line, &len);
        if (rc < 0)
            r->tr_status = 1; // reported by the input; next operand
        if (rc <= 0)
            return true;
        skipped += line[len - 1] == '\n';
    }
    for (;;) {
        if (!tail_live(r))
            return false;
        ssize_t n = sh_input_read(in, r->tr_chunk, TAIL_CHUNK);
        if (n < 0)
            r->tr_status = 1;
        if (n <= 0)
            return true;
        if (!tail_emit(r, r->tr_chunk, (size_t)n))
            return false;
    }
}

/* One operand (NULL: stdin). False when tail must stop (status set). */
static bool
tail_operand(tail_run *r, const char *operand)
{
    int st;
    sh_input *in = sh_input_open(r->tr_cx, "tail", operand, &st);
    if (in == NULL) {
        r->tr_status = st;
        return st != 125; // 125: the PDP failed, nothing more may run
    }
    const char *name = operand ? operand : "-";
    bool go = tail_header(r, name) &&
              (r->tr_from_start ? tail_from(r, in) : tail_last(r, in, name));
    sh_input_close(in);
    return go;
}

/* Continues past a failed operand (status 1 at the end), like GNU. */
int
sh_cmd_tail(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    int nops = argc - o->o_ind;
    tail_run r = {.tr_cx = cx,
                  .tr_lines = TAIL_DEFAULT_LINES,
                  .tr_headers = nops > 1,
                  .tr_first = true};
    const char *n = o->o_arg['n'];
    if (sh_opt(o, 'n') && !tail_count(n, &r.tr_lines, &r.tr_from_start))
        return sh_cmd_err(cx, "tail", 1, "invalid number of lines: '%s'", n);
    if (r.tr_from_start && (r.tr_chunk = box_alloc(TAIL_CHUNK)) == NULL) {
        r.tr_status = sh_cmd_err(cx, "tail", 1, "out of memory");
        goto out;
    }
    for (int i = 0; i < (nops > 0 ? nops : 1); i++) {
        if (!tail_operand(&r, nops > 0 ? argv[o->o_ind + i] : NULL))
            break;
    }
out:
    ring_free(&r.tr_ring);
    box_free(r.tr_chunk);
    return r.tr_status;
}
