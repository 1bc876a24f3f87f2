/* SPDX-License-Identifier: Apache-2.0 */
/* shuf [-rz] [-n COUNT] [-o FILE] [--random-source=FILE] [FILE | -e ARG...
 * | -i LO-HI]: GNU coreutils 9.1. With --random-source the bytes are
 * used as GNU uses them (its randint and randperm, and its reservoir
 * sampling for -n on a pipe), so the output is GNU's, byte for byte;
 * without it, getrandom(2). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define SHUF_CHUNK (64u * 1024u)
#define SHUF_INPUT_MAX (256u << 20)             // all input is held: 256 MiB
#define SHUF_RESERVOIR_MIN (8u * 1024u * 1024u) // GNU's RESERVOIR_MIN_INPUT
#define SHUF_RANGE_MAX (64u << 20)              // -i numbers permuted at once
#define SHUF_SPARSE_MAX 4096u // -n past SHUF_RANGE_MAX: swaps kept as pairs

enum { SHUF_OPT_SOURCE = SH_GOPT_LONG_ONLY };

static const sh_gopt shuf_opts[] = {
    {'e', "echo", SH_GARG_NONE},
    {'i', "input-range", SH_GARG_REQ},
    {'n', "head-count", SH_GARG_REQ},
    {'o', "output", SH_GARG_REQ},
    {SHUF_OPT_SOURCE, "random-source", SH_GARG_REQ},
    {'r', "repeat", SH_GARG_NONE},
    {'z', "zero-terminated", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec shuf_spec = {
    .gs_cmd = "shuf",
    .gs_opts = shuf_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: shuf [OPTION]... [FILE]\n"
        "  or:  shuf -e [OPTION]... [ARG]...\n"
        "  or:  shuf -i LO-HI [OPTION]...\n"
        "Write a random permutation of the input lines to standard "
        "output.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -e, --echo                treat each ARG as an input line\n"
        "  -i, --input-range=LO-HI   treat each number LO through HI as an "
        "input line\n"
        "  -n, --head-count=COUNT    output at most COUNT lines\n"
        "  -o, --output=FILE         write result to FILE instead of "
        "standard output\n"
        "      --random-source=FILE  get random bytes from FILE\n"
        "  -r, --repeat              output lines can be repeated\n"
        "  -z, --zero-terminated     line delimiter is NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

/* Where random bytes come from, and GNU randint's state: a number
 * randnum uniformly drawn from 0..randmax, not used yet. */
typedef struct shuf_rand {
    sh_ctx *sr_cx;
    sh_input *sr_in; // --random-source, or NULL: getrandom
    const char *sr_name;
    uintmax_t sr_num, sr_max;
    bool sr_failed;
} shuf_rand;

typedef struct shuf_run {
    sh_cmd_run sh_run;
    shuf_rand sh_rand;
    box_buf sh_text; // the input, whole
    size_t *sh_off;  // where line i starts in sh_text; sh_off[n] its end
    size_t sh_n, sh_cap;
    char sh_eol;
    box_buf sh_out;
} shuf_run;

/* ---- random numbers, as gnulib's randint ---- */

static bool
shuf_bytes(shuf_rand *s, unsigned char *buf, size_t n)
{
    if (s->sr_in == NULL) {
        while (n > 0) {
            ssize_t k = getrandom(buf, n, 0);
            if (k <= 0) {
                sh_cmd_err(s->sr_cx, "shuf", 1, "getrandom failed");
                s->sr_failed = true;
                return false;
            }
            buf += k;
            n -= (size_t)k;
        }
        return true;
    }
    while (n > 0) {
        ssize_t k = sh_input_read(s->sr_in, buf, n);
        if (k <= 0) {
            if (k == 0) {
                char *q = sh_gquote(s->sr_name);
                sh_cmd_err(s->sr_cx, "shuf", 1, "%s: end of file",
                           q != NULL ? q : s->sr_name);
                box_free(q);
            }
            s->sr_failed = true;
            return false;
        }
        buf += k;
        n -= (size_t)k;
    }
    return true;
}

/* A number from 0 to genmax, every one as likely: bytes are appended to
 * the unused randomness until it covers genmax; a draw past the last
 * whole multiple of genmax+1 is retried with what is left of it. */
static bool
shuf_genmax(shuf_rand *s, uintmax_t genmax, uintmax_t *out)
{
    uintmax_t num = s->sr_num, max = s->sr_max, choices = genmax + 1;
    for (;;) {
        if (max < genmax) {
            unsigned char buf[sizeof num];
            size_t i = 0;
            uintmax_t rmax = max;
            do {
                rmax = (rmax << 8) + 0xff;
                i++;
            } while (rmax < genmax);
            if (!shuf_bytes(s, buf, i))
                return false;
            i = 0;
            do {
                num = (num << 8) + buf[i];
                max = (max << 8) + 0xff;
                i++;
            } while (max < genmax);
        }
        if (max == genmax) {
            s->sr_num = s->sr_max = 0;
            *out = num;
            return true;
        }
        uintmax_t excess = max - genmax;
        uintmax_t unusable = excess % choices;
        uintmax_t last_usable = max - unusable;
        uintmax_t reduced = num % choices;
        if (num <= last_usable) {
            s->sr_num = num / choices;
            s->sr_max = excess / choices;
            *out = reduced;
            return true;
        }
        num -= last_usable + 1;
        max = unusable - 1;
    }
}

static bool
shuf_choose(shuf_rand *s, uintmax_t n, uintmax_t *out)
{
    return shuf_genmax(s, n - 1, out);
}

/* The first h of a random permutation of 0..n-1, as gnulib's randperm:
 * swap i with i + choose(n - i), for i below h. NULL (after the
 * message) on failure; h 0 gives a non-NULL empty array. */
static size_t *
shuf_perm(shuf_run *r, size_t h, size_t n)
{
    size_t *v = box_calloc(n > 0 ? n : 1, sizeof *v);
    if (v == NULL) {
        sh_cmd_err(r->sh_run.cr_cx, "shuf", 1, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = i;
    for (size_t i = 0; i < h; i++) {
        uintmax_t j;
        if (!shuf_choose(&r->sh_rand, n - i, &j)) {
            box_free(v);
            return NULL;
        }
        size_t t = v[i];
        v[i] = v[i + j];
        v[i + j] = t;
    }
    return v;
}

/* The same for n too large to list (-i over a huge range): only the
 * places the swaps touched are kept, as pairs. h is small here. */
static uintmax_t
shuf_sparse_get(const uintmax_t (*kv)[2], size_t nkv, uintmax_t k)
{
    for (size_t i = 0; i < nkv; i++)
        if (kv[i][0] == k)
            return kv[i][1];
    return k;
}

static void
shuf_sparse_set(uintmax_t (*kv)[2], size_t *nkv, uintmax_t k, uintmax_t v)
{
    for (size_t i = 0; i < *nkv; i++)
        if (kv[i][0] == k) {
            kv[i][1] = v;
            return;
        }
    kv[*nkv][0] = k;
    kv[(*nkv)++][1] = v;
}

/* The first h of a permutation of 0..n-1 into out (h entries). */
static bool
shuf_perm_sparse(shuf_run *r, size_t h, uintmax_t n, uintmax_t *out)
{
    uintmax_t(*kv)[2] = box_calloc(2 * h + 1, sizeof *kv);
    size_t nkv = 0;
    if (kv == NULL) {
        sh_cmd_err(r->sh_run.cr_cx, "shuf", 1, "out of memory");
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < h && ok; i++) {
        uintmax_t c;
        if (!(ok = shuf_choose(&r->sh_rand, n - i, &c)))
            break;
        uintmax_t j = i + c;
        uintmax_t vi = shuf_sparse_get(kv, nkv, i);
        uintmax_t vj = shuf_sparse_get(kv, nkv, j);
        shuf_sparse_set(kv, &nkv, i, vj);
        shuf_sparse_set(kv, &nkv, j, vi);
        out[i] = vj;
    }
    box_free(kv);
    return ok;
}

/* ---- input ---- */

static bool
shuf_add_line(shuf_run *r, size_t start)
{
    if (r->sh_n + 1 >= r->sh_cap) {
        size_t cap = r->sh_cap ? r->sh_cap * 2 : 256;
        size_t *o = box_realloc(r->sh_off, cap * sizeof *o);
        if (o == NULL)
            return false;
        r->sh_off = o;
        r->sh_cap = cap;
    }
    r->sh_off[r->sh_n++] = start;
    return true;
}

/* Splits sh_text into lines, each ending in sh_eol (added to the last
 * when it has none). */
static bool
shuf_lines(shuf_run *r)
{
    box_buf *t = &r->sh_text;
    if (t->b_len > 0 && t->b_data[t->b_len - 1] != r->sh_eol &&
        box_buf_putc(t, r->sh_eol) != BOX_OK)
        return false;
    size_t start = 0;
    for (size_t i = 0; i < t->b_len; i++)
        if (t->b_data[i] == r->sh_eol) {
            if (!shuf_add_line(r, start))
                return false;
            start = i + 1;
        }
    if (!shuf_add_line(r, start))
        return false;
    r->sh_n--; // the last offset is the end, no line
    return true;
}

/* -e: each ARG a line. */
static bool
shuf_args(shuf_run *r, char **ops, int nops)
{
    for (int i = 0; i < nops; i++)
        if (box_buf_puts(&r->sh_text, ops[i]) != BOX_OK ||
            box_buf_putc(&r->sh_text, r->sh_eol) != BOX_OK)
            return false;
    return shuf_lines(r);
}

/* The whole of FILE (or stdin); *pipe when it is no regular file or
 * larger than GNU reads whole before choosing -n lines. */
static int
shuf_read(shuf_run *r, const char *op, bool *pipe)
{
    int st = 0;
    sh_input *in = sh_input_open(r->sh_run.cr_cx, "shuf", op, &st);
    if (in == NULL)
        return st;
    char chunk[SHUF_CHUNK];
    bool ok = sh_cmd_hold(&r->sh_run, in, op != NULL ? op : "-", chunk,
                          sizeof chunk, &r->sh_text, UINTMAX_MAX);
    *pipe = !sh_input_is_file(in) || r->sh_text.b_len > SHUF_RESERVOIR_MIN;
    sh_input_close(in);
    if (!ok || r->sh_run.cr_status != 0)
        return r->sh_run.cr_status != 0 ? r->sh_run.cr_status : 1;
    if (!shuf_lines(r))
        return sh_cmd_err(r->sh_run.cr_cx, "shuf", 1, "out of memory");
    return 0;
}

/* ---- output ---- */

static bool
shuf_put(shuf_run *r, const char *p, size_t n)
{
    if (box_buf_append(&r->sh_out, p, n) != BOX_OK) {
        r->sh_run.cr_status =
            sh_cmd_err(r->sh_run.cr_cx, "shuf", 1, "out of memory");
        return false;
    }
    if (r->sh_out.b_len < SHUF_CHUNK)
        return true;
    bool ok = sh_cmd_emit(&r->sh_run, r->sh_out.b_data, r->sh_out.b_len);
    box_buf_truncate(&r->sh_out, 0);
    return ok && sh_cmd_live(&r->sh_run);
}

static bool
shuf_line_out(shuf_run *r, size_t i)
{
    return shuf_put(r, r->sh_text.b_data + r->sh_off[i],
                    r->sh_off[i + 1] - r->sh_off[i]);
}

static bool
shuf_num_out(shuf_run *r, uintmax_t v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%ju%c", v, r->sh_eol);
    return shuf_put(r, b, (size_t)n);
}

/* GNU's reservoir sampling over the held lines (what it does reading a
 * pipe with -n): the first k lines fill it, line j after them replaces
 * slot choose(j+1) when that is below k. The kept lines' order in
 * *keep; false on failure. */
static bool
shuf_reservoir(shuf_run *r, uintmax_t k, size_t *keep)
{
    for (size_t i = 0; i < k && i < r->sh_n; i++)
        keep[i] = i;
    if (r->sh_n < k)
        return true; // the input ended while filling it
    // GNU draws for the line after the k-th before it knows there is
    // one: a draw for the end of the input too.
    for (size_t j = (size_t)k; j <= r->sh_n; j++) {
        uintmax_t x;
        if (!shuf_choose(&r->sh_rand, (uintmax_t)j + 1, &x))
            return false;
        if (j < r->sh_n && x < k)
            keep[x] = j;
    }
    return true;
}

/* ---- options ---- */

static int
shuf_bad(sh_ctx *cx, const char *fmt, const char *s)
{
    char *q = sh_gquote(s);
    int st = sh_cmd_err(cx, "shuf", 1, fmt, q != NULL ? q : s);
    box_free(q);
    return st;
}

static bool
shuf_umax(const char *s, const char **end, uintmax_t *v)
{
    *end = s; // where a bad number stops, even before its digits
    *v = 0;
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    if (*s == '-')
        return false;
    s += *s == '+';
    if (*s < '0' || *s > '9')
        return false;
    uintmax_t x = 0;
    bool big = false;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (x > (UINTMAX_MAX - d) / 10)
            big = true;
        else
            x = x * 10 + d;
    }
    *end = s;
    *v = big ? UINTMAX_MAX : x;
    return !big;
}

/* One bound of -i as xstrtoumax reads it: 0, 1 when it is no number, 2
 * when it passes UINTMAX_MAX. */
static int
shuf_bound(const char *s, size_t n, uintmax_t *v)
{
    char *w = box_strndup(s, n);
    const char *e;
    if (w == NULL)
        return 1;
    int rc = 0;
    if (!shuf_umax(w, &e, v))
        rc = *v == UINTMAX_MAX && *e == '\0' ? 2 : 1;
    else if (*e != '\0')
        rc = 1;
    box_free(w);
    return rc;
}

/* -i LO-HI: 0 with the bounds, else GNU's message naming the part that
 * is wrong (the whole when the range is empty the wrong way). */
static int
shuf_range(sh_ctx *cx, const char *arg, uintmax_t *lo, uintmax_t *hi)
{
    const char *dash = strchr(arg, '-');
    if (dash == NULL)
        return shuf_bad(cx, "invalid input range: %s", arg);
    const char *part[2] = {arg, dash + 1};
    size_t len[2] = {(size_t)(dash - arg), strlen(dash + 1)};
    uintmax_t *val[2] = {lo, hi};
    for (int i = 0; i < 2; i++) {
        int rc = shuf_bound(part[i], len[i], val[i]);
        if (rc == 0)
            continue;
        char *w = box_strndup(part[i], len[i]);
        int st = shuf_bad(cx,
                          rc == 2 ? "invalid input range: %s: Value too "
                                    "large for defined data type"
                                  : "invalid input range: %s",
                          w != NULL ? w : "");
        box_free(w);
        return st;
    }
    if ((*hi < *lo && *lo - *hi != 1) || (*lo == 0 && *hi == UINTMAX_MAX))
        return shuf_bad(cx, "invalid input range: %s", arg);
    return 0;
}

typedef struct shuf_opts_t {
    bool so_echo, so_range, so_repeat;
    uintmax_t so_lo, so_hi;
    uintmax_t so_head; // UINTMAX_MAX: all
    const char *so_out, *so_source;
} shuf_opts_t;

static int
shuf_option(sh_gopt_iter *it, shuf_run *r, shuf_opts_t *so, int id,
            const char *arg)
{
    sh_ctx *cx = r->sh_run.cr_cx;
    uintmax_t v;
    const char *e;
    switch (id) {
    case 'e':
        so->so_echo = true;
        return 0;
    case 'i':
        if (so->so_range)
            return sh_cmd_err(cx, "shuf", 1, "multiple -i options specified");
        so->so_range = true;
        return shuf_range(cx, arg, &so->so_lo, &so->so_hi);
    case 'n':
        if (!shuf_umax(arg, &e, &v) || *e != '\0') {
            // GNU ignores a count past UINTMAX_MAX
            if (*e == '\0' && v == UINTMAX_MAX)
                return 0;
            return shuf_bad(cx, "invalid line count: %s", arg);
        }
        if (v < so->so_head)
            so->so_head = v;
        return 0;
    case 'o':
        if (so->so_out != NULL && strcmp(so->so_out, arg) != 0)
            return sh_cmd_err(cx, "shuf", 1,
                              "multiple output files "
                              "specified");
        so->so_out = arg;
        return 0;
    case SHUF_OPT_SOURCE:
        if (so->so_source != NULL && strcmp(so->so_source, arg) != 0)
            return sh_cmd_err(cx, "shuf", 1,
                              "multiple random sources "
                              "specified");
        so->so_source = arg;
        return 0;
    case 'r':
        so->so_repeat = true;
        return 0;
    case 'z':
        r->sh_eol = '\0';
        return 0;
    }
    return 0;
}

/* ---- the output modes ---- */

/* -r: each line (or number) drawn anew, COUNT times or until the
 * reader or the call's output is done. */
static void
shuf_repeat(shuf_run *r, const shuf_opts_t *so)
{
    uintmax_t n = so->so_range ? so->so_hi - so->so_lo + 1 : r->sh_n;
    if (n == 0 && so->so_head > 0) {
        r->sh_run.cr_status =
            sh_cmd_err(r->sh_run.cr_cx, "shuf", 1, "no lines to repeat");
        return;
    }
    for (uintmax_t i = 0; i < so->so_head; i++) {
        uintmax_t j;
        if (!shuf_choose(&r->sh_rand, n, &j)) {
            r->sh_run.cr_status = 1;
            break;
        }
        if (!(so->so_range ? shuf_num_out(r, so->so_lo + j)
                           : shuf_line_out(r, (size_t)j)))
            return;
    }
    sh_cmd_emit(&r->sh_run, r->sh_out.b_data, r->sh_out.b_len);
}

/* -i over more numbers than can be listed: a few of them (-n), by the
 * sparse permutation. */
static void
shuf_huge(shuf_run *r, const shuf_opts_t *so, uintmax_t total)
{
    if (so->so_head > SHUF_SPARSE_MAX) {
        r->sh_run.cr_status = sh_cmd_err(
            r->sh_run.cr_cx, "shuf", 1,
            "input range too large for the box's shuf (at most %u numbers, "
            "or -n up to %u)",
            SHUF_RANGE_MAX, SHUF_SPARSE_MAX);
        return;
    }
    size_t h = (size_t)so->so_head;
    uintmax_t *v = box_calloc(h > 0 ? h : 1, sizeof *v);
    if (v == NULL) {
        r->sh_run.cr_status =
            sh_cmd_err(r->sh_run.cr_cx, "shuf", 1, "out of memory");
        return;
    }
    if (!shuf_perm_sparse(r, h, total, v)) {
        r->sh_run.cr_status = 1;
    } else {
        bool ok = true;
        for (size_t i = 0; i < h && ok; i++)
            ok = shuf_num_out(r, so->so_lo + v[i]);
        if (ok)
            sh_cmd_emit(&r->sh_run, r->sh_out.b_data, r->sh_out.b_len);
    }
    box_free(v);
}

static void
shuf_permute(shuf_run *r, const shuf_opts_t *so, bool pipe)
{
    uintmax_t total = so->so_range ? so->so_hi - so->so_lo + 1 : r->sh_n;
    size_t *keep = NULL, *perm = NULL;
    if (so->so_range && total > SHUF_RANGE_MAX) {
        shuf_huge(r, so, total);
        return;
    }
    size_t n = (size_t)total;
    size_t h = so->so_head < n ? (size_t)so->so_head : n;
    // GNU samples a pipe (or a big file) for -n as it reads it.
    bool sample =
        pipe && so->so_head != UINTMAX_MAX && !so->so_range && !so->so_echo;
    if (sample) {
        keep = box_calloc(h > 0 ? h : 1, sizeof *keep);
        if (keep == NULL) {
            r->sh_run.cr_status =
                sh_cmd_err(r->sh_run.cr_cx, "shuf", 1, "out of memory");
            return;
        }
        if (!shuf_reservoir(r, so->so_head, keep)) {
            r->sh_run.cr_status = 1;
            goto out;
        }
        n = h;
    }
    if ((perm = shuf_perm(r, h, n)) == NULL) {
        r->sh_run.cr_status = 1;
        goto out;
    }
    for (size_t i = 0; i < h; i++) {
        size_t x = perm[i];
        bool ok = so->so_range ? shuf_num_out(r, so->so_lo + x)
                               : shuf_line_out(r, sample ? keep[x] : x);
        if (!ok)
            goto out;
    }
    sh_cmd_emit(&r->sh_run, r->sh_out.b_data, r->sh_out.b_len);
out:
    box_free(keep);
    box_free(perm);
}

int
sh_cmd_shuf(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    shuf_run r = {.sh_run = {.cr_cx = cx, .cr_cmd = "shuf"},
                  .sh_eol = '\n',
                  .sh_rand = {.sr_cx = cx}};
    shuf_opts_t so = {.so_head = UINTMAX_MAX};
    box_buf_init(&r.sh_text, SHUF_INPUT_MAX);
    box_buf_init(&r.sh_out, SHUF_CHUNK * 2);
    sh_stream *saved = NULL;
    bool redirected = false, pipe = false;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &shuf_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        if ((st = shuf_option(&it, &r, &so, id, arg)) != 0)
            goto out;
    if (id == SH_GOPT_EXIT)
        goto out;
    if (so.so_echo && so.so_range) {
        st = sh_gopt_usage_error(&it, "cannot combine -e and -i options");
        goto out;
    }
    if (!so.so_echo && it.gi_nops > (so.so_range ? 0 : 1)) {
        char *q = sh_gquote(it.gi_ops[so.so_range ? 0 : 1]);
        st = sh_gopt_usage_error(&it, "extra operand %s", q ? q : "");
        box_free(q);
        goto out;
    }
    if (so.so_head == 0)
        goto out; // GNU reads nothing then
    if (so.so_echo && !shuf_args(&r, it.gi_ops, it.gi_nops)) {
        st = sh_cmd_err(cx, "shuf", 1, "out of memory");
        goto out;
    }
    if (!so.so_echo && !so.so_range &&
        (st = shuf_read(&r, it.gi_nops > 0 ? it.gi_ops[0] : NULL, &pipe)) != 0)
        goto out;
    if (so.so_source != NULL) {
        r.sh_rand.sr_name = so.so_source;
        r.sh_rand.sr_in = sh_input_open(cx, "shuf", so.so_source, &st);
        if (r.sh_rand.sr_in == NULL)
            goto out;
    }
    // The output file is opened once the input is read (shuf -o f f).
    if (so.so_out != NULL) {
        if ((st = sh_cmd_output_begin(cx, "shuf", so.so_out, &saved)) != 0)
            goto out;
        redirected = true;
    }
    if (so.so_repeat)
        shuf_repeat(&r, &so);
    else
        shuf_permute(&r, &so, pipe);
    st = r.sh_run.cr_status;
out:
    if (redirected)
        sh_cmd_output_end(cx, saved);
    sh_input_close(r.sh_rand.sr_in);
    box_buf_reset(&r.sh_text);
    box_buf_reset(&r.sh_out);
    box_free(r.sh_off);
    sh_gopt_free(&it);
    return st;
}
