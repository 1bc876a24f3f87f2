/* SPDX-License-Identifier: Apache-2.0 */
/* diff's input: a file read whole through the kernel, split into lines,
 * and the lines of both files numbered by equivalence class as the
 * white-space and case options compare them. */
#include <ctype.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_diff.h"
#include "sh_gopt.h"
#include "box_hash.h"

#define DIFF_CHUNK (64u * 1024u)

void
diff_file_free(diff_file *f)
{
    box_buf_reset(&f->df_data);
    box_free(f->df_line);
    f->df_line = NULL;
    f->df_nlines = 0;
}

/* --strip-trailing-cr: each "\r\n" becomes "\n", in place. */
static void
strip_cr(box_buf *b)
{
    size_t w = 0;
    for (size_t r = 0; r < b->b_len; r++) {
        if (b->b_data[r] == '\r' && r + 1 < b->b_len &&
            b->b_data[r + 1] == '\n')
            continue;
        b->b_data[w++] = b->b_data[r];
    }
    box_buf_truncate(b, w);
}

/* The line starts of f (its data loaded). 0, or 2 after the message. */
static int
split_lines(diff_run *d, diff_file *f)
{
    const char *p = f->df_data.b_data;
    size_t n = f->df_data.b_len, lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += p[i] == '\n';
    f->df_noeol = n > 0 && p[n - 1] != '\n';
    lines += f->df_noeol;
    if (lines > DIFF_LINES_MAX)
        return sh_cmd_err(d->dr_run.cr_cx, "diff", 2,
                          "%s: too many lines to compare (limit %u)",
                          f->df_name, DIFF_LINES_MAX);
    f->df_line = box_alloc((lines + 1) * sizeof *f->df_line);
    if (f->df_line == NULL)
        return sh_cmd_err(d->dr_run.cr_cx, "diff", 2, "memory exhausted");
    size_t k = 0;
    f->df_line[k++] = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '\n' && k <= lines)
            f->df_line[k++] = i + 1;
    f->df_line[lines] = n;
    f->df_nlines = lines;
    size_t peek = n < DIFF_BIN_PEEK ? n : DIFF_BIN_PEEK;
    f->df_binary = !d->dr_text && peek > 0 && memchr(p, '\0', peek) != NULL;
    return 0;
}

int
diff_load(diff_run *d, diff_file *f, const char *path)
{
    sh_ctx *cx = d->dr_run.cr_cx;
    box_buf_init(&f->df_data, DIFF_FILE_MAX);
    if (f->df_absent)
        return split_lines(d, f);
    int st = 0;
    char *q = sh_gquotef(path);
    sh_input *in = sh_input_open_as(cx, "diff", path, q ? q : path, &st);
    box_free(q);
    if (in == NULL)
        return st == 1 ? 2 : st;
    char *chunk = box_alloc(DIFF_CHUNK);
    bool ok = chunk != NULL;
    int saved = d->dr_run.cr_status;
    d->dr_run.cr_status = 0;
    if (ok)
        ok = sh_cmd_hold(&d->dr_run, in, f->df_name, chunk, DIFF_CHUNK,
                         &f->df_data, UINTMAX_MAX);
    box_free(chunk);
    sh_input_close(in);
    int got = d->dr_run.cr_status;
    d->dr_run.cr_status = saved;
    if (chunk == NULL)
        return sh_cmd_err(cx, "diff", 2, "memory exhausted");
    if (!ok) {
        if (sh_check_stop(cx)) {
            d->dr_stop = true;
            return got;
        }
        return 2; // too large: said
    }
    if (got != 0)
        return 2; // a read error: said
    if (d->dr_strip_cr)
        strip_cr(&f->df_data);
    return split_lines(d, f);
}

/* ---- equivalence classes ---- */

/* The bytes a line compares by under d's options, then one byte saying
 * whether a missing newline counts (it does unless -Z, -b or -w). */
static box_err
line_key(const diff_run *d, const char *p, size_t n, bool noeol, box_buf *k)
{
    box_buf_truncate(k, 0);
    box_err e = box_buf_reserve(k, n * 8 + 2);
    if (e != BOX_OK)
        return e;
    char *o = k->b_data;
    size_t w = 0, col = 0;
    unsigned ws = d->dr_ws;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if ((ws & (DIFF_WS_ALL | DIFF_WS_CHANGE)) && isspace(c)) {
            size_t j = i;
            while (j < n && isspace((unsigned char)p[j]))
                j++;
            if ((ws & DIFF_WS_CHANGE) && !(ws & DIFF_WS_ALL) && j < n)
                o[w++] = ' ';
            i = j - 1;
            continue;
        }
        if ((ws & DIFF_WS_TRAIL) && isspace(c)) {
            size_t j = i;
            while (j < n && isspace((unsigned char)p[j]))
                j++;
            if (j == n)
                break;
        }
        if ((ws & DIFF_WS_TAB) && c == '\t') {
            size_t to = (col / 8 + 1) * 8;
            while (col < to) {
                o[w++] = ' ';
                col++;
            }
            continue;
        }
        o[w++] = (char)(d->dr_icase ? tolower(c) : c);
        col++;
    }
    bool counts = noeol && d->dr_style != DIFF_ED &&
                  !(ws & (DIFF_WS_ALL | DIFF_WS_CHANGE | DIFF_WS_TRAIL));
    o[w++] = counts ? 0 : 1;
    k->b_len = w; // written in the room reserved above
    return BOX_OK;
}

static uint64_t
key_hash(const char *p, size_t n)
{
    return box_fnv1a(BOX_FNV1A_INIT, p, n);
}

/* An open-addressing table from keys to classes. A key is kept in one
 * arena, or (raw: no option changes how lines compare) is the line's own
 * bytes in the file, its newline included, so nothing is copied. */
typedef struct cls_tab {
    size_t *ct_slot; // class + 1, 0 empty
    size_t ct_mask;
    uint64_t *ct_hash;   // per class
    size_t *ct_off;      // per class: key start in ct_keys, then one past
    const char **ct_rep; // raw: per class, the key's bytes
    size_t *ct_len;      // raw: per class, its length
    size_t ct_n, ct_cap;
    box_buf ct_keys;
} cls_tab;

static bool
cls_same(const cls_tab *t, size_t c, const char *p, size_t n)
{
    if (t->ct_rep != NULL)
        return t->ct_len[c] == n && memcmp(t->ct_rep[c], p, n) == 0;
    size_t a = t->ct_off[c], b = t->ct_off[c + 1];
    return b - a == n && memcmp(t->ct_keys.b_data + a, p, n) == 0;
}

static box_err
cls_find(cls_tab *t, const char *p, size_t n, int *out)
{
    uint64_t h = key_hash(p, n);
    size_t i = (size_t)h & t->ct_mask;
    for (;; i = (i + 1) & t->ct_mask) {
        size_t s = t->ct_slot[i];
        if (s == 0)
            break;
        if (t->ct_hash[s - 1] == h && cls_same(t, s - 1, p, n)) {
            *out = (int)(s - 1);
            return BOX_OK;
        }
    }
    if (t->ct_n >= t->ct_cap)
        return BOX_ENOMEM; // sized for every line: cannot happen
    size_t c = t->ct_n;
    if (t->ct_rep != NULL) {
        t->ct_rep[c] = p;
        t->ct_len[c] = n;
    } else {
        box_err e = box_buf_append(&t->ct_keys, p, n);
        if (e != BOX_OK)
            return e;
        t->ct_off[c + 1] = t->ct_keys.b_len;
    }
    t->ct_n++;
    t->ct_hash[c] = h;
    t->ct_slot[i] = c + 1;
    *out = (int)c;
    return BOX_OK;
}

box_err
diff_classes(const diff_run *d, const diff_file *f, int **eq)
{
    size_t total = f[0].df_nlines + f[1].df_nlines, size = 16;
    while (size < total * 2)
        size <<= 1;
    // An ed script cannot tell a missing newline: it does not count then.
    bool raw = d->dr_ws == 0 && !d->dr_icase &&
               (d->dr_style != DIFF_ED || (!f[0].df_noeol && !f[1].df_noeol));
    cls_tab t = {.ct_mask = size - 1, .ct_cap = total};
    box_buf key;
    box_buf_init(&key, SIZE_MAX);
    box_buf_init(&t.ct_keys, SIZE_MAX);
    box_err e = BOX_ENOMEM;
    eq[0] = eq[1] = NULL;
    t.ct_slot = box_calloc(size, sizeof *t.ct_slot);
    t.ct_hash = box_alloc((total + 1) * sizeof *t.ct_hash);
    if (raw) {
        t.ct_rep = box_alloc((total + 1) * sizeof *t.ct_rep);
        t.ct_len = box_alloc((total + 1) * sizeof *t.ct_len);
    } else {
        t.ct_off = box_calloc(total + 2, sizeof *t.ct_off);
    }
    eq[0] = box_alloc((f[0].df_nlines + 1) * sizeof **eq);
    eq[1] = box_alloc((f[1].df_nlines + 1) * sizeof **eq);
    if (t.ct_slot == NULL || t.ct_hash == NULL ||
        (raw ? t.ct_rep == NULL || t.ct_len == NULL : t.ct_off == NULL) ||
        eq[0] == NULL || eq[1] == NULL)
        goto out;
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < f[k].df_nlines; i++) {
            if (raw) {
                // The newline is part of the key: a last line without
                // one is another line.
                size_t a = f[k].df_line[i], b = f[k].df_line[i + 1];
                e = cls_find(&t, f[k].df_data.b_data + a, b - a, &eq[k][i]);
                if (e != BOX_OK)
                    goto out;
                continue;
            }
            size_t len;
            const char *p = diff_line(&f[k], i, &len);
            bool noeol = f[k].df_noeol && i + 1 == f[k].df_nlines;
            if ((e = line_key(d, p, len, noeol, &key)) != BOX_OK ||
                (e = cls_find(&t, key.b_data, key.b_len, &eq[k][i])) != BOX_OK)
                goto out;
        }
    }
    e = BOX_OK;
out:
    if (e != BOX_OK) {
        box_free(eq[0]);
        box_free(eq[1]);
        eq[0] = eq[1] = NULL;
    }
    box_free(t.ct_slot);
    box_free(t.ct_hash);
    box_free(t.ct_off);
    box_free(t.ct_rep);
    box_free(t.ct_len);
    box_buf_reset(&t.ct_keys);
    box_buf_reset(&key);
    return e;
}
