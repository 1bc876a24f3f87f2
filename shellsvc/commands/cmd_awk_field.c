/* SPDX-License-Identifier: Apache-2.0 */
/* awk's record and fields: $0, its split by FS (blanks, one byte, a regex,
 * every character; newlines too in paragraph mode), NF assignment, $0
 * rebuilt with OFS after a field changes, and the cache of dynamic
 * regexes (a string used as a regex is compiled once). */
#include <string.h>

#include "box_alloc.h"
#include "cmd_awk.h"

#define AWK_RECACHE_MAX 64

awk_re *
awk_re_dynamic(awk *a, const char *s, size_t n)
{
    bool icase = awk_val_true(&a->a_globals[V_IGNORECASE].c_val);
    for (size_t i = 0; i < a->a_nre; i++)
        if (a->a_recache[i]->r_icase == icase &&
            strlen(a->a_retext[i]) == n && memcmp(a->a_retext[i], s, n) == 0)
            return a->a_recache[i];
    awk_re *re = awk_re_new(a, s, n, icase);
    if (re == NULL)
        return NULL;
    char *t = box_strndup(s, n);
    if (t == NULL) {
        awk_re_free(re);
        awk_fatal(a, "out of memory");
        return NULL;
    }
    if (a->a_nre == AWK_RECACHE_MAX) {
        // the oldest goes
        awk_re_free(a->a_recache[0]);
        box_free(a->a_retext[0]);
        memmove(a->a_recache, a->a_recache + 1,
                (AWK_RECACHE_MAX - 1) * sizeof *a->a_recache);
        memmove(a->a_retext, a->a_retext + 1,
                (AWK_RECACHE_MAX - 1) * sizeof *a->a_retext);
        a->a_nre--;
    }
    a->a_recache[a->a_nre] = re;
    a->a_retext[a->a_nre++] = t;
    return re;
}

static bool
span_add(awk_spans *o, size_t start, size_t len)
{
    if (o->sp_n + 2 > o->sp_cap) {
        size_t cap = o->sp_cap ? o->sp_cap * 2 : 64;
        size_t *v = box_realloc(o->sp_v, cap * sizeof *v);
        if (v == NULL)
            return false;
        o->sp_v = v;
        o->sp_cap = cap;
    }
    o->sp_v[o->sp_n++] = start;
    o->sp_v[o->sp_n++] = len;
    return true;
}

static bool
is_blank(char c, bool nl)
{
    return c == ' ' || c == '\t' || (nl && c == '\n');
}

bool
awk_split_by(awk *a, const char *s, size_t n, const char *fs, size_t fslen,
             awk_re *re, bool para, awk_spans *out)
{
    out->sp_n = 0;
    bool ok = true;
    if (re == NULL && fslen == 1 && fs[0] == ' ') {
        size_t i = 0;
        for (;;) {
            while (i < n && is_blank(s[i], true))
                i++;
            if (i >= n)
                break;
            size_t st = i;
            while (i < n && !is_blank(s[i], true))
                i++;
            if (!span_add(out, st, i - st))
                return false;
        }
        return true;
    }
    if (n == 0)
        return true;
    if (re == NULL && fslen == 0) {
        for (size_t i = 0; i < n && ok;) {
            size_t k = 1;
            if ((unsigned char)s[i] >= 0xc0)
                while (i + k < n && ((unsigned char)s[i + k] & 0xc0) == 0x80)
                    k++;
            ok = span_add(out, i, k);
            i += k;
        }
        return ok;
    }
    if (re == NULL && fslen == 1 && fs[0] != '\\' && !para) {
        char c = fs[0];
        size_t st = 0;
        for (;;) {
            const char *p = memchr(s + st, c, n - st);
            if (p == NULL)
                return span_add(out, st, n - st);
            if (!span_add(out, st, (size_t)(p - s) - st))
                return false;
            st = (size_t)(p - s) + 1;
        }
    }
    if (re == NULL) {
        if (para) {
            // paragraph mode: a newline separates fields too
            box_buf b;
            box_buf_init(&b, AWK_STR_MAX);
            bool single = fslen == 1 && fs[0] != '\\';
            ok = box_buf_puts(&b, single ? "[" : "(") == BOX_OK &&
                 (!single || fs[0] != '^' ||
                  box_buf_putc(&b, '\\') == BOX_OK) &&
                 box_buf_append(&b, fs, fslen) == BOX_OK &&
                 box_buf_puts(&b, single ? "\n]" : ")|\n") == BOX_OK;
            re = ok ? awk_re_dynamic(a, b.b_data, b.b_len) : NULL;
            box_buf_reset(&b);
        } else if (fslen == 1) {
            re = awk_re_dynamic(a, "\\\\", 2);
        } else {
            re = awk_re_dynamic(a, fs, fslen);
        }
        if (re == NULL)
            return false;
    }
    size_t st = 0, pos = 0;
    for (;;) {
        size_t so, eo;
        if (pos > n || !awk_re_exec(re, s, n, pos, pos > 0, &so, &eo))
            break;
        if (eo == so) {
            // an empty match separates nothing: look one further
            pos = so + 1;
            if (pos > n)
                break;
            continue;
        }
        if (!span_add(out, st, so - st))
            return false;
        if (out->sp_sep != NULL) {
            // split()'s seps: kept beside the pieces (as start, length)
        }
        st = pos = eo;
    }
    return span_add(out, st, n - st);
}

void
awk_set_record(awk *a, const char *s, size_t n)
{
    box_buf_truncate(&a->a_rec, 0);
    if (n > 0 && box_buf_append(&a->a_rec, s, n) != BOX_OK) {
        awk_fatal(a, "record too long (limit %u MiB)", AWK_STR_MAX >> 20);
        return;
    }
    if (box_buf_putc(&a->a_rec, '\0') == BOX_OK)
        a->a_rec.b_len--;
    a->a_split = false;
    a->a_rec_dirty = false;
}

static void
fields_clear(awk *a)
{
    for (size_t i = 1; i <= a->a_nf; i++)
        awk_val_free(&a->a_fields[i]);
    a->a_nf = 0;
}

static bool
fields_reserve(awk *a, size_t nf)
{
    if (nf + 1 <= a->a_capf)
        return true;
    size_t cap = a->a_capf ? a->a_capf : 32;
    while (cap < nf + 1)
        cap *= 2;
    awk_val *v = box_realloc(a->a_fields, cap * sizeof *v);
    if (v == NULL) {
        awk_fatal(a, "out of memory");
        return false;
    }
    memset(v + a->a_capf, 0, (cap - a->a_capf) * sizeof *v);
    a->a_fields = v;
    a->a_capf = cap;
    return true;
}

static void
nf_store(awk *a)
{
    awk_val *v = &a->a_globals[V_NF].c_val;
    awk_val_free(v);
    *v = awk_num((double)a->a_nf);
    a->a_globals[V_NF].c_kind = CK_SCALAR;
}

void
awk_split_record(awk *a)
{
    fields_clear(a);
    a->a_split = true;
    size_t fl;
    const char *fs = awk_var_str(a, V_FS, &fl);
    bool para = false;
    size_t rl;
    (void)awk_var_str(a, V_RS, &rl);
    para = rl == 0;
    awk_spans sp = {0};
    const char *rec = a->a_rec.b_data ? a->a_rec.b_data : "";
    if (!awk_split_by(a, rec, a->a_rec.b_len, fs, fl, NULL, para, &sp)) {
        box_free(sp.sp_v);
        awk_fatal(a, "out of memory");
        return;
    }
    size_t nf = sp.sp_n / 2;
    if (fields_reserve(a, nf)) {
        for (size_t i = 0; i < nf; i++)
            a->a_fields[i + 1] = awk_input(a, rec + sp.sp_v[2 * i],
                                           sp.sp_v[2 * i + 1]);
        a->a_nf = nf;
    }
    box_free(sp.sp_v);
    nf_store(a);
}

awk_val *
awk_field_ref(awk *a, long i, bool create)
{
    if (!a->a_split)
        awk_split_record(a);
    if ((size_t)i <= a->a_nf)
        return &a->a_fields[i];
    if (!create)
        return NULL;
    if (i > 10000000) {
        awk_fatal(a, "field index %ld too large", i);
        return NULL;
    }
    if (!fields_reserve(a, (size_t)i))
        return NULL;
    for (size_t k = a->a_nf + 1; k <= (size_t)i; k++)
        memset(&a->a_fields[k], 0, sizeof a->a_fields[k]);
    a->a_nf = (size_t)i;
    nf_store(a);
    return &a->a_fields[i];
}

void
awk_set_nf(awk *a, long nf)
{
    if (!a->a_split) {
        // split first, keeping the NF just assigned
        awk_val keep = a->a_globals[V_NF].c_val;
        memset(&a->a_globals[V_NF].c_val, 0, sizeof keep);
        awk_split_record(a);
        awk_val_free(&a->a_globals[V_NF].c_val);
        a->a_globals[V_NF].c_val = keep;
    }
    if (nf < 0) {
        awk_fatal(a, "NF set to negative value");
        return;
    }
    if ((size_t)nf > a->a_nf) {
        if (awk_field_ref(a, nf, true) == NULL)
            return;
    } else {
        for (size_t k = (size_t)nf + 1; k <= a->a_nf; k++)
            awk_val_free(&a->a_fields[k]);
        a->a_nf = (size_t)nf;
    }
    nf_store(a);
    a->a_rec_dirty = true;
}

void
awk_rebuild(awk *a)
{
    box_buf b;
    box_buf_init(&b, AWK_STR_MAX);
    size_t ol;
    const char *ofs = awk_var_str(a, V_OFS, &ol);
    bool ok = true;
    char tmp[512];
    for (size_t i = 1; i <= a->a_nf && ok; i++) {
        if (i > 1)
            ok = ol == 0 || box_buf_append(&b, ofs, ol) == BOX_OK;
        size_t l;
        const char *s = awk_outstr(a, &a->a_fields[i], tmp, sizeof tmp, &l);
        if (a->a_fields[i].v_type == AV_NUM) {
            // a number in a field takes CONVFMT, not OFMT
            s = awk_tostr(a, &a->a_fields[i], &l);
        }
        ok = ok && (l == 0 || box_buf_append(&b, s, l) == BOX_OK);
    }
    ok = ok && box_buf_putc(&b, '\0') == BOX_OK;
    if (!ok) {
        box_buf_reset(&b);
        awk_fatal(a, "record too long (limit %u MiB)", AWK_STR_MAX >> 20);
        return;
    }
    b.b_len--;
    box_buf_reset(&a->a_rec);
    a->a_rec = b;
    a->a_rec_dirty = false;
}

const char *
awk_record(awk *a, size_t *len)
{
    if (a->a_rec_dirty)
        awk_rebuild(a);
    *len = a->a_rec.b_len;
    return a->a_rec.b_data ? a->a_rec.b_data : "";
}
