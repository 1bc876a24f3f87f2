/* SPDX-License-Identifier: Apache-2.0 */
/* tail: the last lines or bytes of each operand, or from line/byte N on,
 * GNU coreutils 9.1 (following a file is refused: a call's output ends
 * with the call). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
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
    uintmax_t tr_lines; // N (lines, or bytes with tr_bytes)
    bool tr_from_start; // +N: print from line (byte) N on
    bool tr_bytes;      // -c
    char tr_eol;        // '\n', or NUL with -z
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

/* -c N: the last N bytes, held in a window that slides as input comes;
 * -z -n N: the whole input held, then its last N records. */
static bool
tail_held(sh_cmd_run *cr, sh_input *in, const char *name)
{
    tail_run *r = (tail_run *)cr;
    box_buf hold;
    box_buf_init(&hold, TAIL_HOLD_MAX + TAIL_CHUNK);
    bool go = sh_cmd_hold(cr, in, name, r->tr_chunk, TAIL_CHUNK, &hold,
                          r->tr_bytes ? r->tr_lines : UINTMAX_MAX);
    if (!go)
        goto out;
    size_t from = 0;
    if (r->tr_bytes) {
        from = hold.b_len > r->tr_lines ? hold.b_len - (size_t)r->tr_lines : 0;
    } else if (r->tr_lines == 0) {
        from = hold.b_len;
    } else {
        // The last N records; a last one without its delimiter counts.
        uintmax_t want = r->tr_lines;
        size_t i = hold.b_len;
        if (i > 0 && hold.b_data[i - 1] == r->tr_eol)
            i--;
        while (i > 0) {
            if (hold.b_data[i - 1] == r->tr_eol && --want == 0)
                break;
            i--;
        }
        from = i;
    }
    // An empty input leaves the buffer unallocated: nothing to write.
    if (from < hold.b_len)
        go = sh_cmd_emit(cr, hold.b_data + from, hold.b_len - from);
out:
    box_buf_reset(&hold);
    return go;
}

/* +N with -c, or -z: skips N-1 bytes (records), then copies the rest. */
static bool
tail_from_raw(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    tail_run *r = (tail_run *)cr;
    uintmax_t skip = r->tr_lines > 0 ? r->tr_lines - 1 : 0;
    while (skip > 0) {
        if (!sh_cmd_live(cr))
            return false;
        ssize_t n = sh_input_read(in, r->tr_chunk, TAIL_CHUNK);
        if (n < 0 && !sh_cmd_live(cr))
            return false;
        if (n < 0)
            cr->cr_status = 1; // reported by the input
        if (n <= 0)
            return true;
        size_t at = (size_t)n;
        if (r->tr_bytes) {
            at = (uintmax_t)n > skip ? (size_t)skip : (size_t)n;
            skip -= at;
        } else {
            for (size_t i = 0; i < (size_t)n; i++)
                if (r->tr_chunk[i] == r->tr_eol && --skip == 0) {
                    at = i + 1;
                    break;
                }
        }
        if (skip == 0 && !sh_cmd_emit(cr, r->tr_chunk + at, (size_t)n - at))
            return false;
    }
    return sh_cmd_copy(cr, in, r->tr_chunk, TAIL_CHUNK);
}

enum { TAIL_OPT_RETRY = SH_GOPT_LONG_ONLY, TAIL_OPT_PID, TAIL_OPT_STATS };

static const sh_gopt tail_opts[] = {
    {'c', "bytes", SH_GARG_REQ},
    {'f', "follow", SH_GARG_OPT},
    {'F', NULL, SH_GARG_NONE},
    {'n', "lines", SH_GARG_REQ},
    {TAIL_OPT_STATS, "max-unchanged-stats", SH_GARG_REQ},
    {TAIL_OPT_PID, "pid", SH_GARG_REQ},
    {'q', "quiet", SH_GARG_NONE},
    {TAIL_OPT_RETRY, "retry", SH_GARG_NONE},
    {'q', "silent", SH_GARG_NONE},
    {'s', "sleep-interval", SH_GARG_REQ},
    {'v', "verbose", SH_GARG_NONE},
    {'z', "zero-terminated", SH_GARG_NONE},
    // Digits after the first word: "option used in invalid context".
    SH_GOPT_DIGIT_ROWS,
    {0},
};

static const sh_gopt_spec tail_spec = {
    .gs_cmd = "tail",
    .gs_opts = tail_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: tail [OPTION]... [FILE]...\n"
        "Print the last 10 lines of each FILE to standard output.\n"
        "With more than one FILE, precede each with a header giving the "
        "file name.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "  -c, --bytes=[+]NUM       output the last NUM bytes; or use -c +NUM "
        "to\n"
        "                             output starting with byte NUM of each "
        "file\n"
        "  -n, --lines=[+]NUM       output the last NUM lines, instead of the "
        "last 10;\n"
        "                             or use -n +NUM to skip NUM-1 lines at "
        "the start\n"
        "  -q, --quiet, --silent    never output headers giving file names\n"
        "  -v, --verbose            always output headers giving file names\n"
        "  -z, --zero-terminated    line delimiter is NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "-f and -F (following a file as it grows) are refused in this box: a "
        "call's\n"
        "output ends with the call.\n",
};

/* NUM of -n/-c: a '+' counts from the start (+0 is +1), a '-' changes
 * nothing. 0, or 1 after GNU's message. */
static int
tail_count(sh_ctx *cx, const char *s, bool bytes, tail_run *r)
{
    r->tr_from_start = *s == '+';
    const char *digits = *s == '+' || *s == '-' ? s + 1 : s;
    r->tr_bytes = bytes;
    return sh_cmd_gnu_count(cx, "tail", bytes, digits, s, &r->tr_lines);
}

/* GNU's obsolete first word [+-]NUM[bcl][f]: 0 when it is one (r set),
 * 1 after a message, -1 when it is not one. */
static int
tail_obsolete(sh_ctx *cx, const char *w, tail_run *r)
{
    if ((w[0] != '-' && w[0] != '+') || w[1] < '0' || w[1] > '9')
        return -1;
    const char *end = w + 1; // past the digits
    while (*end >= '0' && *end <= '9')
        end++;
    char unit = *end == 'b' || *end == 'c' || *end == 'l' ? *end : 'l';
    const char *p = end + (*end == unit);
    if (*p == 'f')
        return sh_cmd_err(cx, "tail", 1,
                          "-f: following a file is not supported in this box "
                          "(a call's output ends with the call)");
    if (*p != '\0')
        return -1; // an ordinary option word (or file name) after all
    char num[64];
    snprintf(num, sizeof num, "%.*s%s", (int)(end - w < 40 ? end - w : 40), w,
             unit == 'b' ? "b" : "");
    return tail_count(cx, num, unit != 'l', r);
}

/*
 * Continues past a failed operand (status 1 at the end), like GNU.
 */
int
sh_cmd_tail(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    tail_run r = {.tr_run = {.cr_cx = cx,
                             .cr_cmd = "tail",
                             .cr_open_fmt = "cannot open %s for reading"},
                  .tr_lines = TAIL_DEFAULT_LINES,
                  .tr_eol = '\n'};
    sh_gopt_iter it;
    bool quiet = false, verbose = false;
    int st = 0, id;
    const char *arg;
    sh_gopt_init(&it, cx, &tail_spec, argc, argv);
    int first = argc > 1 ? tail_obsolete(cx, argv[1], &r) : -1;
    if (first > 0) {
        r.tr_run.cr_status = first;
        goto out;
    }
    if (first == 0)
        it.gi_i = 2;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'c' || id == 'n') {
            if ((st = tail_count(cx, arg, id == 'c', &r)) != 0)
                break;
        } else if (id == 'q') {
            quiet = true;
            verbose = false;
        } else if (id == 'v') {
            verbose = true;
            quiet = false;
        } else if (id == 'z') {
            r.tr_eol = '\0';
        } else if (id == 'f' || id == 'F') {
            st = sh_cmd_err(cx, "tail", 1,
                            "-%c: following a file is not supported in this "
                            "box (a call's output ends with the call)",
                            id);
            break;
        } else if (id >= '0' && id <= '9') {
            st = sh_cmd_err(cx, "tail", 1,
                            "option used in invalid context -- %c", id);
            break;
        }
        // --retry, --pid, -s, --max-unchanged-stats: only for following.
    }
    if (id >= 0 || id == SH_GOPT_EXIT) {
        r.tr_run.cr_status = st;
        goto out;
    }
    r.tr_run.cr_headers = verbose || (!quiet && it.gi_nops > 1);
    if ((r.tr_chunk = box_alloc(TAIL_CHUNK)) == NULL) {
        r.tr_run.cr_status = sh_cmd_err(cx, "tail", 1, "out of memory");
        goto out;
    }
    sh_cmd_body body = tail_last;
    if (r.tr_from_start)
        body = r.tr_bytes || r.tr_eol != '\n' ? tail_from_raw : tail_from;
    else if (r.tr_bytes || r.tr_eol != '\n')
        body = tail_held;
    sh_opts ops = {.o_ind = 0};
    sh_cmd_operands(&r.tr_run, it.gi_nops, it.gi_ops, &ops, body);
out:
    sh_gopt_free(&it);
    ring_free(&r.tr_ring);
    box_free(r.tr_chunk);
    return r.tr_run.cr_status;
}
