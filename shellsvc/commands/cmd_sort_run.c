/* SPDX-License-Identifier: Apache-2.0 */
/* sort's run: every input into one buffer, a stable merge sort over an
 * index of its lines, the output (or -o FILE). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_sort.h"
#include "sh_internal.h"

#define SORT_TEXT_MAX (1u << 30) // all input held at once: 1 GiB
#define SORT_READ_CHUNK (256u * 1024u)
#define SORT_OUT_CHUNK (64u * 1024u)
#define SORT_STDIO_BUF 8192u       // glibc's BUFSIZ
#define SORT_NAMES_MAX (16u << 20) // --files0-from's list of names

/* The inputs: their bytes back to back, each ending in the delimiter,
 * then the index of lines. st_ends[i] is the line count after input i
 * (the runs -m merges). */
typedef struct sort_text {
    char *st_buf;
    size_t st_len, st_cap;
    size_t *st_bytes; // bytes after each input
    sort_line *st_lines;
    size_t st_nlines;
    size_t *st_ends;
    size_t st_longest;
} sort_text;

static void
sort_text_free(sort_text *t)
{
    box_free(t->st_buf);
    box_free(t->st_bytes);
    box_free(t->st_lines);
    box_free(t->st_ends);
}

/* Room for SORT_READ_CHUNK more bytes; false past SORT_TEXT_MAX. */
static bool
sort_text_room(sort_text *t)
{
    if (t->st_cap - t->st_len >= SORT_READ_CHUNK)
        return true;
    size_t cap = t->st_cap ? t->st_cap * 2 : 2 * SORT_READ_CHUNK;
    if (cap > SORT_TEXT_MAX + SORT_READ_CHUNK)
        cap = SORT_TEXT_MAX + SORT_READ_CHUNK;
    if (cap - t->st_len < SORT_READ_CHUNK)
        return false;
    char *nb = box_realloc(t->st_buf, cap);
    if (nb == NULL)
        return false;
    t->st_buf = nb;
    t->st_cap = cap;
    return true;
}

/* "sort: read failed: NAME: why" (status 2), or the stop status when the
 * call is over. */
static int
sort_read_failed(sh_ctx *cx, sh_input *in, const char *name)
{
    if (sh_check_stop(cx))
        return cx->cx_status;
    return sh_cmd_err(cx, "sort", SORT_FAIL, "read failed: %s: %s", name,
                      strerror(sh_input_errno(in)));
}

/* Appends all of in, then the delimiter if its last line lacks one. */
static int
sort_read_one(sh_ctx *cx, sort_text *t, sh_input *in, const char *name,
              char eol)
{
    size_t start = t->st_len;
    for (;;) {
        if (sh_check_stop(cx))
            return cx->cx_status;
        if (!sort_text_room(t))
            return sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
        ssize_t n =
            sh_input_read(in, t->st_buf + t->st_len, t->st_cap - t->st_len);
        if (n < 0)
            return sort_read_failed(cx, in, name);
        if (n == 0)
            break;
        t->st_len += (size_t)n;
    }
    if (t->st_len > start && t->st_buf[t->st_len - 1] != eol)
        t->st_buf[t->st_len++] = eol; // room: the chunk was not full
    return 0;
}

/* Opens every input first, as GNU checks them all before reading any:
 * "sort: cannot read: NAME: why". */
static int
sort_open_all(sh_ctx *cx, char **names, size_t n, sh_input **ins)
{
    for (size_t i = 0; i < n; i++) {
        int st;
        ins[i] = sh_input_open(cx, "sort: cannot read", names[i], &st);
        if (ins[i] == NULL)
            return st == BOX_STATUS_FAULT ? st : SORT_FAIL;
        sh_input_quiet(ins[i]);
    }
    return 0;
}

/* Cuts the bytes into lines. */
static int
sort_index(sh_ctx *cx, sort_text *t, size_t nfiles, char eol)
{
    size_t n = 0;
    for (const char *p = t->st_buf, *end = p + t->st_len;
         p < end && (p = memchr(p, eol, (size_t)(end - p))) != NULL; p++)
        n++;
    t->st_lines = box_calloc(n + 1, sizeof *t->st_lines);
    t->st_ends = box_calloc(nfiles + 1, sizeof *t->st_ends);
    if (t->st_lines == NULL || t->st_ends == NULL)
        return sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
    size_t f = 0, start = 0;
    while (start < t->st_len) {
        while (f < nfiles && t->st_bytes[f] <= start)
            t->st_ends[f++] = t->st_nlines;
        // Found: every input ends in the delimiter.
        const char *nl = memchr(t->st_buf + start, eol, t->st_len - start);
        size_t i = (size_t)(nl - t->st_buf);
        sort_line *l = &t->st_lines[t->st_nlines++];
        l->sl_text = t->st_buf + start;
        l->sl_len = i - start;
        if (l->sl_len > t->st_longest)
            t->st_longest = l->sl_len;
        start = i + 1;
    }
    while (f < nfiles)
        t->st_ends[f++] = t->st_nlines;
    return 0;
}

/* ---- --files0-from ---- */

/* The NUL-separated names in file (or stdin, "-") into *names (an owned
 * array of pointers into the owned *store). */
static int
sort_files0(sh_ctx *cx, const char *file, char **store, char ***names,
            size_t *n)
{
    int st;
    box_buf b;
    box_buf_init(&b, SORT_NAMES_MAX);
    sh_input *in = sh_input_open(cx, "sort: open failed", file, &st);
    if (in == NULL)
        return st == BOX_STATUS_FAULT ? st : SORT_FAIL;
    sh_input_quiet(in);
    char chunk[4096];
    ssize_t r;
    while ((r = sh_input_read(in, chunk, sizeof chunk)) > 0)
        if (box_buf_append(&b, chunk, (size_t)r) != BOX_OK) {
            st = sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
            goto out;
        }
    if (r < 0) {
        char q[512];
        sh_cmd_quote_name(q, sizeof q, file);
        st = sh_check_stop(cx)
                 ? cx->cx_status
                 : sh_cmd_err(cx, "sort", SORT_FAIL,
                              "cannot read file names from %s", q);
        goto out;
    }
    st = SORT_FAIL;
    size_t len = b.b_len;
    if (len == 0) {
        sh_cmd_err(cx, "sort", SORT_FAIL, "no input from '%s'", file);
        goto out;
    }
    if (box_buf_putc(&b, '\0') != BOX_OK ||
        (*store = box_buf_take(&b)) == NULL) {
        sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
        goto out;
    }
    size_t count = 0;
    for (size_t i = 0; i < len; i++)
        count += (*store)[i] == '\0' || i + 1 == len;
    if ((*names = box_calloc(count, sizeof(char *))) == NULL) {
        sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
        goto out;
    }
    bool from_stdin = strcmp(file, "-") == 0;
    for (size_t start = 0; start < len; start += strlen(*store + start) + 1) {
        char *name = *store + start;
        if (from_stdin && strcmp(name, "-") == 0) {
            sh_cmd_err(cx, "sort", SORT_FAIL,
                       "when reading file names from stdin, no file name of "
                       "'-' allowed");
            goto out;
        }
        if (*name == '\0') {
            sh_cmd_err(cx, "sort", SORT_FAIL,
                       "%s:%zu: invalid zero-length file name", file, *n + 1);
            goto out;
        }
        (*names)[(*n)++] = name;
    }
    st = 0;
out:
    box_buf_reset(&b);
    sh_input_close(in);
    return st;
}

/* ---- sorting ---- */

/* Stable: an element moves only past one that compares greater. */
static void
sort_merge_sort(const sort_order *o, sort_line *v, sort_line *tmp, size_t n)
{
    if (n < 12) {
        for (size_t i = 1; i < n; i++) {
            sort_line x = v[i];
            size_t j = i;
            for (; j > 0 && sort_compare(o, &v[j - 1], &x) > 0; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    size_t h = n / 2;
    sort_merge_sort(o, v, tmp, h);
    sort_merge_sort(o, v + h, tmp, n - h);
    if (sort_compare(o, &v[h - 1], &v[h]) <= 0)
        return; // already in order
    memcpy(tmp, v, h * sizeof *v);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        v[k++] = sort_compare(o, &tmp[i], &v[j]) <= 0 ? tmp[i++] : v[j++];
    while (i < h)
        v[k++] = tmp[i++];
}

/* -m: the inputs' runs merged into out; on equal lines the earlier input
 * goes first. */
static void
sort_merge_runs(const sort_order *o, const sort_text *t, size_t nruns,
                size_t *heads, sort_line *out)
{
    for (size_t r = 0; r < nruns; r++)
        heads[r] = r == 0 ? 0 : t->st_ends[r - 1];
    for (size_t k = 0; k < t->st_nlines; k++) {
        size_t best = nruns;
        for (size_t r = 0; r < nruns; r++) {
            if (heads[r] >= t->st_ends[r])
                continue;
            if (best == nruns || sort_compare(o, &t->st_lines[heads[r]],
                                              &t->st_lines[heads[best]]) < 0)
                best = r;
        }
        out[k] = t->st_lines[heads[best]++];
    }
}

/* ---- output ---- */

typedef struct sort_out {
    sh_ctx *so_cx;
    const char *so_name; // -o FILE, or NULL: standard output
    int so_status;       // 0 until a write failed or the call ended
    size_t so_total;     // bytes written so far
    bool so_final;       // the last flush
    char so_buf[SORT_OUT_CHUNK];
    size_t so_len;
} sort_out;

/* Writes p; false (so_status set) when the run must stop: the reader is
 * gone or the call's output is spent (end quietly with the call's
 * status), or the output cannot be written (GNU's message, status 2). */
static bool
sort_emit(sort_out *w, const char *p, size_t n)
{
    if (n == 0 || sh_write(w->so_cx, 1, p, n) == SH_IO_OK) {
        w->so_total += n;
        return true;
    }
    sh_ctx *cx = w->so_cx;
    if (cx->cx_flow != SH_FLOW_NONE) {
        w->so_status = cx->cx_status;
        return false;
    }
    char q[512];
    sh_cmd_quote_name(q, sizeof q,
                      w->so_name != NULL ? w->so_name : "standard output");
    // GNU's stdio holds up to BUFSIZ bytes: a failure of a short output
    // shows when the buffer is flushed at the end.
    bool at_flush = w->so_final && w->so_total + n <= SORT_STDIO_BUF;
    w->so_status = sh_cmd_err(cx, "sort", SORT_FAIL, "%s failed: %s: %s",
                              at_flush ? "fflush" : "write", q,
                              w->so_name != NULL ? "Input/output error"
                                                 : "Bad file descriptor");
    sh_cmd_err(cx, "sort", SORT_FAIL, "write error");
    return false;
}

static bool
sort_flush(sort_out *w)
{
    bool ok = sort_emit(w, w->so_buf, w->so_len);
    w->so_len = 0;
    return ok;
}

static bool
sort_put(sort_out *w, const sort_line *l, char eol)
{
    if (w->so_len + l->sl_len + 1 > sizeof w->so_buf) {
        if (!sort_flush(w))
            return false;
        if (l->sl_len + 1 > sizeof w->so_buf)
            return sort_emit(w, l->sl_text, l->sl_len) && sort_emit(w, &eol, 1);
    }
    memcpy(w->so_buf + w->so_len, l->sl_text, l->sl_len);
    w->so_len += l->sl_len;
    w->so_buf[w->so_len++] = eol;
    return true;
}

/* Writes the lines (with -u the first of each equal run) to fd 1, or to
 * -o FILE, opened only now so that FILE may be an input. */
static int
sort_write(sh_ctx *cx, const sort_conf *c, const sort_line *v, size_t n)
{
    sh_stream *saved = NULL;
    if (c->sc_out != NULL) {
        int st =
            sh_cmd_output_begin(cx, "sort: open failed", c->sc_out, &saved);
        if (st != 0)
            return st == BOX_STATUS_FAULT ? st : SORT_FAIL;
    }
    int status = SORT_FAIL;
    sort_out *w = box_calloc(1, sizeof *w);
    if (w == NULL) {
        sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
        goto out;
    }
    w->so_cx = cx;
    w->so_name = c->sc_out;
    const sort_line *last = NULL;
    for (size_t i = 0; i < n; i++) {
        if (c->sc_unique && last != NULL &&
            sort_compare(&c->sc_order, last, &v[i]) == 0)
            continue;
        last = &v[i];
        if (!sort_put(w, &v[i], c->sc_eol))
            break;
        if ((i & 4095) == 0 && sh_check_stop(cx)) {
            w->so_status = cx->cx_status;
            break;
        }
    }
    w->so_final = true;
    if (w->so_status == 0)
        (void)sort_flush(w);
    status = w->so_status;
out:
    box_free(w);
    if (c->sc_out != NULL)
        sh_cmd_output_end(cx, saved);
    return status;
}

/* Reads every input, then merges or sorts, and writes. */
static int
sort_body(sh_ctx *cx, sort_conf *c, char **names, size_t n)
{
    sort_text t = {0};
    sh_input **ins = box_calloc(n, sizeof *ins);
    sort_line *tmp = NULL;
    char *scratch = NULL;
    size_t *heads = NULL;
    int st = SORT_FAIL;
    t.st_bytes = box_calloc(n, sizeof *t.st_bytes);
    if (ins == NULL || t.st_bytes == NULL) {
        sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
        goto out;
    }
    if ((st = sort_open_all(cx, names, n, ins)) != 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if ((st = sort_read_one(cx, &t, ins[i], names[i], c->sc_eol)) != 0)
            goto out;
        t.st_bytes[i] = t.st_len;
        sh_input_close(ins[i]);
        ins[i] = NULL;
    }
    if ((st = sort_index(cx, &t, n, c->sc_eol)) != 0)
        goto out;
    st = SORT_FAIL;
    c->sc_order.so_scratch_len = t.st_longest + 1;
    scratch = box_alloc(2 * c->sc_order.so_scratch_len);
    // The merge sort copies out only the left half; -m merges into tmp.
    tmp = box_calloc((c->sc_merge ? t.st_nlines : t.st_nlines / 2) + 1,
                     sizeof *tmp);
    heads = box_calloc(n + 1, sizeof *heads);
    if (scratch == NULL || tmp == NULL || heads == NULL) {
        sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
        goto out;
    }
    c->sc_order.so_scratch[0] = scratch;
    c->sc_order.so_scratch[1] = scratch + c->sc_order.so_scratch_len;
    for (size_t i = 0; i < t.st_nlines; i++)
        sort_key_locate(&c->sc_order, &t.st_lines[i]);
    sort_line *v = t.st_lines;
    if (c->sc_merge) {
        sort_merge_runs(&c->sc_order, &t, n, heads, tmp);
        v = tmp;
    } else {
        sort_merge_sort(&c->sc_order, t.st_lines, tmp, t.st_nlines);
    }
    st = sort_write(cx, c, v, t.st_nlines);
out:
    for (size_t i = 0; ins != NULL && i < n; i++)
        sh_input_close(ins[i]);
    box_free(ins);
    box_free(tmp);
    box_free(scratch);
    box_free(heads);
    sort_text_free(&t);
    return st;
}

int
sort_run(sh_ctx *cx, sort_conf *c)
{
    static char *dash[] = {"-"};
    char *store = NULL;
    char **names = c->sc_files;
    size_t n = c->sc_nfiles;
    if (c->sc_files0 != NULL) {
        names = NULL;
        n = 0;
        int st = sort_files0(cx, c->sc_files0, &store, &names, &n);
        if (st != 0) {
            box_free(names);
            box_free(store);
            return st;
        }
    } else if (n == 0) {
        names = dash;
        n = 1;
    }
    int st = c->sc_check != 0 ? sort_check(cx, c, names[0])
                              : sort_body(cx, c, names, n);
    if (names != c->sc_files && names != dash)
        box_free(names);
    box_free(store);
    return st;
}
