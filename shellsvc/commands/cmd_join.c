/* SPDX-License-Identifier: Apache-2.0 */
/* join [OPTION]... FILE1 FILE2: GNU coreutils 9.1 in C.UTF-8 (keys
 * compared as bytes, -i by ASCII case), the lines of two files sorted on
 * a key field, paired on it. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define JOIN_CHUNK (64u * 1024u)   // output gathered per write
#define JOIN_LINE_MAX (256u << 20) // one line held whole
#define JOIN_RUN_MAX (1u << 20)    // lines of one key held at once
#define JOIN_OUT_MAX 4096          // items of -o

enum {
    JOIN_OPT_CHECK = SH_GOPT_LONG_ONLY,
    JOIN_OPT_NOCHECK,
    JOIN_OPT_HEADER,
};

static const sh_gopt join_opts[] = {
    {'a', NULL, SH_GARG_REQ},
    {'e', NULL, SH_GARG_REQ},
    {'i', "ignore-case", SH_GARG_NONE},
    {'j', NULL, SH_GARG_REQ},
    {'o', NULL, SH_GARG_REQ},
    {'t', NULL, SH_GARG_REQ},
    {'v', NULL, SH_GARG_REQ},
    {'z', "zero-terminated", SH_GARG_NONE},
    {'1', NULL, SH_GARG_REQ},
    {'2', NULL, SH_GARG_REQ},
    {JOIN_OPT_CHECK, "check-order", SH_GARG_NONE},
    {JOIN_OPT_NOCHECK, "nocheck-order", SH_GARG_NONE},
    {JOIN_OPT_HEADER, "header", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec join_spec = {
    .gs_cmd = "join",
    .gs_opts = join_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: join [OPTION]... FILE1 FILE2\n"
        "For each pair of input lines with identical join fields, write a "
        "line to\n"
        "standard output.  The default join field is the first, delimited "
        "by blanks.\n"
        "\n"
        "When FILE1 or FILE2 (not both) is -, read standard input.\n"
        "\n"
        "  -a FILENUM             also print unpairable lines from file "
        "FILENUM, where\n"
        "                           FILENUM is 1 or 2, corresponding to "
        "FILE1 or FILE2\n"
        "  -e STRING              replace missing (empty) input fields with "
        "STRING;\n"
        "                           I.e., missing fields specified with "
        "'-12jo' options\n"
        "  -i, --ignore-case      ignore differences in case when comparing "
        "fields\n"
        "  -j FIELD               equivalent to '-1 FIELD -2 FIELD'\n"
        "  -o FORMAT              obey FORMAT while constructing output "
        "line\n"
        "  -t CHAR                use CHAR as input and output field "
        "separator\n"
        "  -v FILENUM             like -a FILENUM, but suppress joined "
        "output lines\n"
        "  -1 FIELD               join on this FIELD of file 1\n"
        "  -2 FIELD               join on this FIELD of file 2\n"
        "      --check-order      check that the input is correctly sorted, "
        "even\n"
        "                           if all input lines are pairable\n"
        "      --nocheck-order    do not check that the input is correctly "
        "sorted\n"
        "      --header           treat the first line in each file as "
        "field headers,\n"
        "                           print them without trying to pair "
        "them\n"
        "  -z, --zero-terminated  line delimiter is NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "Unless -t CHAR is given, leading blanks separate fields and are "
        "ignored,\n"
        "else fields are separated by CHAR.  Any FIELD is a field number "
        "counted\n"
        "from 1.  FORMAT is one or more comma or blank separated "
        "specifications,\n"
        "each being 'FILENUM.FIELD' or '0'.  Default FORMAT outputs the join "
        "field,\n"
        "the remaining fields from FILE1, the remaining fields from FILE2, "
        "all\n"
        "separated by CHAR.  If FORMAT is the keyword 'auto', then the "
        "first\n"
        "line of each file determines the number of fields output for each "
        "line.\n"
        "\n"
        "Important: FILE1 and FILE2 must be sorted on the join fields.\n"
        "E.g., use \"sort -k 1b,1\" if 'join' has no options,\n"
        "or use \"join -t ''\" if 'sort' has no options.\n"
        "Note, comparisons honor the rules specified by 'LC_COLLATE'.\n"
        "If the input is not sorted and some lines cannot be joined, a\n"
        "warning message will be given.\n",
};

typedef enum jn_check { JN_CHECK_DEFAULT, JN_CHECK_ON, JN_CHECK_OFF } jn_check;

/* One line and its fields (offsets into jl_text). */
typedef struct jn_line {
    box_buf jl_text;
    size_t *jl_beg, *jl_len;
    size_t jl_nf, jl_cap;
} jn_line;

/* One input: the lines of the key now compared (jf_run[0] first), the
 * line read before (for the order check), where it is. */
typedef struct jn_file {
    sh_input *jf_in;
    const char *jf_name;
    jn_line **jf_run;
    size_t jf_count, jf_alloc;
    jn_line jf_prev;
    bool jf_has_prev;
    uintmax_t jf_lineno;
    bool jf_warned;
    size_t jf_field; // the join field, from 0
} jn_file;

/* One -o item: file 0 (the join field), 1 or 2, and a field from 0. */
typedef struct jn_item {
    int ji_file;
    size_t ji_field;
} jn_item;

typedef struct jn_run {
    sh_cmd_run jr_run;
    jn_file jr_f[2];
    int jr_tab; // -t byte; -1: blanks; '\n' for -t ''
    char jr_eol;
    bool jr_icase, jr_header, jr_auto;
    bool jr_unpaired[2]; // -a / -v
    bool jr_paired;      // no -v
    jn_check jr_check;
    const char *jr_empty; // -e, or NULL
    jn_item *jr_items;
    size_t jr_nitems;
    size_t jr_autocount[2];
    bool jr_seen_unpairable;
    box_buf jr_out;
    jn_line jr_blank; // the line of no fields for an unpaired side
} jn_run;

/* ---- lines ---- */

static void
jn_line_free(jn_line *l)
{
    box_buf_reset(&l->jl_text);
    box_free(l->jl_beg);
    box_free(l->jl_len);
    l->jl_beg = l->jl_len = NULL;
    l->jl_nf = l->jl_cap = 0;
}

static bool
jn_field_add(jn_line *l, size_t beg, size_t len)
{
    if (l->jl_nf == l->jl_cap) {
        size_t cap = l->jl_cap ? l->jl_cap * 2 : 8;
        size_t *b = box_realloc(l->jl_beg, cap * sizeof *b);
        if (b == NULL)
            return false;
        l->jl_beg = b;
        size_t *n = box_realloc(l->jl_len, cap * sizeof *n);
        if (n == NULL)
            return false;
        l->jl_len = n;
        l->jl_cap = cap;
    }
    l->jl_beg[l->jl_nf] = beg;
    l->jl_len[l->jl_nf++] = len;
    return true;
}

static bool
jn_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* GNU's fields: with -t, every separator splits (empty fields count);
 * else runs of blanks split, leading ones ignored, and blanks at the
 * end leave one empty field. An empty line has none. */
static bool
jn_split(jn_run *r, jn_line *l)
{
    const char *t = l->jl_text.b_data;
    size_t n = l->jl_text.b_len, p = 0;
    l->jl_nf = 0;
    if (n == 0)
        return true;
    if (r->jr_tab >= 0 && r->jr_tab != '\n') {
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)t[i] == (unsigned)r->jr_tab) {
                if (!jn_field_add(l, p, i - p))
                    return false;
                p = i + 1;
            }
    } else if (r->jr_tab < 0) {
        while (jn_blank(t[p]))
            if (++p == n)
                return true;
        for (;;) {
            size_t s = p + 1;
            while (s < n && !jn_blank(t[s]))
                s++;
            if (!jn_field_add(l, p, s - p))
                return false;
            if (s == n)
                return true;
            for (p = s + 1; p < n && jn_blank(t[p]); p++)
                ;
            if (p == n)
                break;
        }
    }
    return jn_field_add(l, p, n - p);
}

static int
jn_keycmp(const jn_run *r, const jn_line *a, size_t fa, const jn_line *b,
          size_t fb)
{
    const char *pa = NULL, *pb = NULL;
    size_t la = 0, lb = 0;
    if (fa < a->jl_nf) {
        pa = a->jl_text.b_data + a->jl_beg[fa];
        la = a->jl_len[fa];
    }
    if (fb < b->jl_nf) {
        pb = b->jl_text.b_data + b->jl_beg[fb];
        lb = b->jl_len[fb];
    }
    if (la == 0)
        return lb == 0 ? 0 : -1;
    if (lb == 0)
        return 1;
    size_t n = la < lb ? la : lb;
    int d = 0;
    if (r->jr_icase) {
        for (size_t i = 0; i < n && d == 0; i++)
            d = toupper((unsigned char)pa[i]) - toupper((unsigned char)pb[i]);
    } else {
        d = memcmp(pa, pb, n);
    }
    if (d != 0)
        return d;
    return la < lb ? -1 : la != lb;
}

static bool
jn_oom(jn_run *r)
{
    r->jr_run.cr_status =
        sh_cmd_err(r->jr_run.cr_cx, "join", 1, "out of memory");
    return false;
}

/* ---- output ---- */

static bool
jn_put(jn_run *r, const char *p, size_t n)
{
    return n == 0 || box_buf_append(&r->jr_out, p, n) == BOX_OK || jn_oom(r);
}

static bool
jn_flush(jn_run *r)
{
    bool ok = sh_cmd_emit(&r->jr_run, r->jr_out.b_data, r->jr_out.b_len);
    box_buf_truncate(&r->jr_out, 0);
    return ok;
}

static bool
jn_sep(jn_run *r)
{
    char c = r->jr_tab >= 0 ? (char)r->jr_tab : ' ';
    return jn_put(r, &c, 1);
}

/* Field f of l, or -e's text when it is missing or empty. */
static bool
jn_field_out(jn_run *r, const jn_line *l, size_t f)
{
    if (f < l->jl_nf && l->jl_len[f] > 0)
        return jn_put(r, l->jl_text.b_data + l->jl_beg[f], l->jl_len[f]);
    return r->jr_empty == NULL || jn_put(r, r->jr_empty, strlen(r->jr_empty));
}

/* The fields of l but its join field (up to the first line's count with
 * -o auto), each after a separator. */
static bool
jn_rest_out(jn_run *r, const jn_line *l, int which)
{
    size_t n = r->jr_auto ? r->jr_autocount[which] : l->jl_nf;
    size_t jf = r->jr_f[which].jf_field;
    for (size_t i = 0; i < n; i++)
        if (i != jf && (!jn_sep(r) || !jn_field_out(r, l, i)))
            return false;
    return true;
}

/* One output line from a (file 1) and b (file 2), either maybe the
 * blank line of an unpaired side. */
static bool
jn_print(jn_run *r, const jn_line *a, const jn_line *b)
{
    const jn_line *key = a == &r->jr_blank ? b : a;
    size_t kf = a == &r->jr_blank ? r->jr_f[1].jf_field : r->jr_f[0].jf_field;
    if (r->jr_nitems > 0) {
        for (size_t i = 0; i < r->jr_nitems; i++) {
            const jn_item *it = &r->jr_items[i];
            if (i > 0 && !jn_sep(r))
                return false;
            bool ok =
                it->ji_file == 0
                    ? jn_field_out(r, key, kf)
                    : jn_field_out(r, it->ji_file == 1 ? a : b, it->ji_field);
            if (!ok)
                return false;
        }
    } else if (!jn_field_out(r, key, kf) || !jn_rest_out(r, a, 0) ||
               !jn_rest_out(r, b, 1)) {
        return false;
    }
    if (!jn_put(r, &r->jr_eol, 1))
        return false;
    return r->jr_out.b_len < JOIN_CHUNK || jn_flush(r);
}

/* ---- input ---- */

static bool
jn_copy_line(jn_line *dst, const jn_line *src)
{
    box_buf_truncate(&dst->jl_text, 0);
    if (src->jl_text.b_len > 0 &&
        box_buf_append(&dst->jl_text, src->jl_text.b_data,
                       src->jl_text.b_len) != BOX_OK)
        return false;
    dst->jl_nf = 0;
    for (size_t i = 0; i < src->jl_nf; i++)
        if (!jn_field_add(dst, src->jl_beg[i], src->jl_len[i]))
            return false;
    return true;
}

/* The order check of file i: the line just read against the one before,
 * by default only once some line went unpaired. False to stop. */
static bool
jn_check_order(jn_run *r, int i, const jn_line *l)
{
    jn_file *f = &r->jr_f[i];
    bool look = r->jr_check == JN_CHECK_ON ||
                (r->jr_check == JN_CHECK_DEFAULT && r->jr_seen_unpairable);
    if (!look || f->jf_warned || !f->jf_has_prev ||
        jn_keycmp(r, &f->jf_prev, f->jf_field, l, f->jf_field) <= 0)
        return true;
    f->jf_warned = true;
    if (r->jr_check == JN_CHECK_ON && !jn_flush(r))
        return false;
    sh_cmd_err(r->jr_run.cr_cx, "join", 1, "%s:%ju: is not sorted: %.*s",
               f->jf_name, f->jf_lineno, (int)l->jl_text.b_len,
               l->jl_text.b_data);
    if (r->jr_check != JN_CHECK_ON)
        return true;
    r->jr_run.cr_status = 1;
    return false;
}

/* The next line of file i into l: 1, 0 at its end, -1 to stop. */
static int
jn_get(jn_run *r, int i, jn_line *l)
{
    jn_file *f = &r->jr_f[i];
    sh_cmd_run *cr = &r->jr_run;
    int rc = sh_check_stop(cr->cr_cx)
                 ? -1
                 : sh_input_record(f->jf_in, r->jr_eol, &l->jl_text);
    if (rc == -1 && !sh_cmd_live(cr))
        return -1;
    if (rc == -2) {
        cr->cr_status = sh_cmd_err(cr->cr_cx, "join", 1, "line too long");
        return -1;
    }
    if (rc == -1)
        cr->cr_status = 1; // reported by the input: its end
    if (rc != 1)
        return 0;
    if (!jn_split(r, l)) {
        jn_oom(r);
        return -1;
    }
    f->jf_lineno++;
    if (!jn_check_order(r, i, l))
        return -1;
    if (!jn_copy_line(&f->jf_prev, l)) {
        jn_oom(r);
        return -1;
    }
    f->jf_has_prev = true;
    return 1;
}

/* Reads one more line of file i onto its run (first: the run starts
 * afresh): 1, 0 at the end, -1 to stop. */
static int
jn_advance(jn_run *r, int i, bool first)
{
    jn_file *f = &r->jr_f[i];
    if (first)
        f->jf_count = 0;
    if (f->jf_count == f->jf_alloc) {
        if (f->jf_alloc >= JOIN_RUN_MAX) {
            r->jr_run.cr_status = sh_cmd_err(r->jr_run.cr_cx, "join", 1,
                                             "too many lines with one key");
            return -1;
        }
        size_t cap = f->jf_alloc ? f->jf_alloc * 2 : 4;
        jn_line **p = box_realloc(f->jf_run, cap * sizeof *p);
        if (p == NULL) {
            jn_oom(r);
            return -1;
        }
        f->jf_run = p;
        for (size_t k = f->jf_alloc; k < cap; k++) {
            p[k] = box_calloc(1, sizeof **p);
            if (p[k] == NULL) {
                f->jf_alloc = k;
                {
                    jn_oom(r);
                    return -1;
                }
            }
            box_buf_init(&p[k]->jl_text, JOIN_LINE_MAX);
        }
        f->jf_alloc = cap;
    }
    int rc = jn_get(r, i, f->jf_run[f->jf_count]);
    if (rc == 1)
        f->jf_count++;
    return rc;
}

static void
jn_swap(jn_file *f, size_t a, size_t b)
{
    jn_line *t = f->jf_run[a];
    f->jf_run[a] = f->jf_run[b];
    f->jf_run[b] = t;
}

/* The rest of file i after the other ended: printed with -a, read on
 * for the order check. */
static bool
jn_tail(jn_run *r, int i, bool check)
{
    jn_file *f = &r->jr_f[i];
    if (!(r->jr_unpaired[i] || check) || f->jf_count == 0)
        return true;
    const jn_line *b = &r->jr_blank;
    if (r->jr_unpaired[i] &&
        !jn_print(r, i == 0 ? f->jf_run[0] : b, i == 0 ? b : f->jf_run[0]))
        return false;
    // GNU counts no unpairable line here: a disorder in the tail alone
    // goes unreported by default.
    for (;;) {
        jn_line *l = f->jf_run[0];
        int rc = jn_get(r, i, l);
        if (rc < 0)
            return false;
        if (rc == 0)
            return true;
        if (r->jr_unpaired[i] && !jn_print(r, i == 0 ? l : b, i == 0 ? b : l))
            return false;
        if (f->jf_warned && !r->jr_unpaired[i])
            return true;
    }
}

/* The merge: runs of equal keys are paired every way; a smaller key
 * goes unpaired. */
static void
jn_merge(jn_run *r)
{
    jn_file *a = &r->jr_f[0], *b = &r->jr_f[1];
    const jn_line *blank = &r->jr_blank;
    if (jn_advance(r, 0, true) < 0 || jn_advance(r, 1, true) < 0)
        return;
    if (r->jr_auto) {
        r->jr_autocount[0] = a->jf_count ? a->jf_run[0]->jl_nf : 0;
        r->jr_autocount[1] = b->jf_count ? b->jf_run[0]->jl_nf : 0;
    }
    if (r->jr_header && (a->jf_count || b->jf_count)) {
        if (!jn_print(r, a->jf_count ? a->jf_run[0] : blank,
                      b->jf_count ? b->jf_run[0] : blank))
            return;
        a->jf_has_prev = b->jf_has_prev = false;
        if (a->jf_count && jn_advance(r, 0, true) < 0)
            return;
        if (b->jf_count && jn_advance(r, 1, true) < 0)
            return;
    }
    while (a->jf_count && b->jf_count) {
        int d =
            jn_keycmp(r, a->jf_run[0], a->jf_field, b->jf_run[0], b->jf_field);
        if (d != 0) {
            int i = d < 0 ? 0 : 1;
            jn_line *l = r->jr_f[i].jf_run[0];
            if (r->jr_unpaired[i] &&
                !jn_print(r, i == 0 ? l : blank, i == 0 ? blank : l))
                return;
            if (jn_advance(r, i, true) < 0)
                return;
            r->jr_seen_unpairable = true;
            continue;
        }
        bool eof[2] = {false, false};
        for (int i = 0; i < 2; i++) {
            jn_file *f = &r->jr_f[i];
            for (;;) {
                int rc = jn_advance(r, i, false);
                if (rc < 0)
                    return;
                if (rc == 0) {
                    eof[i] = true;
                    f->jf_count++; // the slot past the run, as if read
                    break;
                }
                const jn_line *x =
                    i == 0 ? f->jf_run[f->jf_count - 1] : a->jf_run[0];
                const jn_line *y =
                    i == 0 ? b->jf_run[0] : f->jf_run[f->jf_count - 1];
                if (jn_keycmp(r, x, a->jf_field, y, b->jf_field) != 0)
                    break;
            }
        }
        if (r->jr_paired)
            for (size_t x = 0; x + 1 < a->jf_count; x++)
                for (size_t y = 0; y + 1 < b->jf_count; y++)
                    if (!jn_print(r, a->jf_run[x], b->jf_run[y]))
                        return;
        for (int i = 0; i < 2; i++) {
            jn_file *f = &r->jr_f[i];
            if (eof[i]) {
                f->jf_count = 0;
            } else {
                jn_swap(f, 0, f->jf_count - 1);
                f->jf_count = 1;
            }
        }
    }
    // Unless --nocheck-order, the rest of both files is read for the
    // order check.
    bool check = r->jr_check != JN_CHECK_OFF && !(a->jf_warned && b->jf_warned);
    if (!jn_tail(r, 0, check) || !jn_tail(r, 1, check) || !jn_flush(r))
        return;
    if (a->jf_warned || b->jf_warned)
        r->jr_run.cr_status = sh_cmd_err(r->jr_run.cr_cx, "join", 1,
                                         "input is not in sorted order");
}

/* ---- options ---- */

static int
jn_bad(sh_ctx *cx, const char *fmt, const char *s)
{
    char *q = sh_gquote(s);
    int st = sh_cmd_err(cx, "join", 1, fmt, q != NULL ? q : s);
    box_free(q);
    return st;
}

/* A FIELD (from 1; past SIZE_MAX is SIZE_MAX), from 0 in *out. */
static int
jn_field_num(sh_ctx *cx, const char *s, size_t *out)
{
    const char *p = s;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        p++;
    p += *p == '+';
    uintmax_t v = 0;
    bool big = false, any = false;
    for (; *p >= '0' && *p <= '9'; p++, any = true) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINTMAX_MAX - d) / 10)
            big = true;
        else
            v = v * 10 + d;
    }
    if (!any || *p != '\0' || (v == 0 && !big))
        return jn_bad(cx, "invalid field number: %s", s);
    *out = big || v > SIZE_MAX ? SIZE_MAX - 1 : (size_t)v - 1;
    return 0;
}

/* -o: items "0" or "M.N" apart by commas or blanks. */
static int
jn_items(jn_run *r, const char *list)
{
    sh_ctx *cx = r->jr_run.cr_cx;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ", \t");
        if (n == 0) {
            p++;
            continue;
        }
        char *w = box_strndup(p, n);
        if (w == NULL)
            return sh_cmd_err(cx, "join", 1, "out of memory");
        int st = 0;
        jn_item it = {0};
        if (w[0] == '0') { // alone: no ".FIELD"
            if (w[1] != '\0')
                st = jn_bad(cx, "invalid field specifier: %s", w);
        } else if ((w[0] == '1' || w[0] == '2') && w[1] == '.') {
            it.ji_file = w[0] - '0';
            st = jn_field_num(cx, w + 2, &it.ji_field);
        } else if ((w[0] == '1' || w[0] == '2') && w[1] != '.') {
            st = jn_bad(cx, "invalid field specifier: %s", w);
        } else {
            st = jn_bad(cx, "invalid file number in field spec: %s", w);
        }
        box_free(w);
        if (st != 0)
            return st;
        if (r->jr_nitems == JOIN_OUT_MAX)
            return sh_cmd_err(cx, "join", 1, "too many output fields");
        if (r->jr_nitems % 16 == 0) {
            jn_item *ni =
                box_realloc(r->jr_items, (r->jr_nitems + 16) * sizeof *ni);
            if (ni == NULL)
                return sh_cmd_err(cx, "join", 1, "out of memory");
            r->jr_items = ni;
        }
        r->jr_items[r->jr_nitems++] = it;
        p += n;
    }
    return 0;
}

/* -t CHAR: one byte, '' for whole lines, "\0" for NUL. */
static int
jn_tab(jn_run *r, const char *arg)
{
    sh_ctx *cx = r->jr_run.cr_cx;
    int t = (unsigned char)arg[0];
    if (t == 0)
        t = '\n';
    if (arg[0] != '\0' && arg[1] != '\0') {
        if (strcmp(arg, "\\0") != 0)
            return jn_bad(cx, "multi-character tab %s", arg);
        t = 0;
    }
    if (r->jr_tab >= 0 && r->jr_tab != t)
        return sh_cmd_err(cx, "join", 1, "incompatible tabs");
    r->jr_tab = t;
    return 0;
}

static int
jn_filenum(sh_ctx *cx, const char *s, int *which)
{
    size_t f;
    int st = jn_field_num(cx, s, &f);
    if (st != 0)
        return st;
    if (f != 0 && f != 1)
        return jn_bad(cx, "invalid field number: %s", s);
    *which = (int)f;
    return 0;
}

static int
jn_option(jn_run *r, int id, const char *arg)
{
    sh_ctx *cx = r->jr_run.cr_cx;
    int st = 0, which = 0;
    size_t f;
    switch (id) {
    case 'a':
    case 'v':
        if ((st = jn_filenum(cx, arg, &which)) == 0) {
            r->jr_unpaired[which] = true;
            if (id == 'v')
                r->jr_paired = false;
        }
        return st;
    case 'e':
        r->jr_empty = arg;
        return 0;
    case 'i':
        r->jr_icase = true;
        return 0;
    case 'j':
    case '1':
    case '2':
        if ((st = jn_field_num(cx, arg, &f)) != 0)
            return st;
        if (id != '2')
            r->jr_f[0].jf_field = f;
        if (id != '1')
            r->jr_f[1].jf_field = f;
        return 0;
    case 'o':
        if (strcmp(arg, "auto") == 0) {
            r->jr_auto = true;
            return 0;
        }
        return jn_items(r, arg);
    case 't':
        return jn_tab(r, arg);
    case 'z':
        r->jr_eol = '\0';
        return 0;
    case JOIN_OPT_CHECK:
        r->jr_check = JN_CHECK_ON;
        return 0;
    case JOIN_OPT_NOCHECK:
        r->jr_check = JN_CHECK_OFF;
        return 0;
    case JOIN_OPT_HEADER:
        r->jr_header = true;
        return 0;
    }
    return 0;
}

static int
jn_operands(sh_gopt_iter *it)
{
    if (it->gi_nops == 2)
        return 0;
    if (it->gi_nops == 0)
        return sh_gopt_usage_error(it, "missing operand");
    if (it->gi_nops == 1) {
        char *q = sh_gquote(it->gi_ops[0]);
        int st =
            sh_gopt_usage_error(it, "missing operand after %s", q ? q : "");
        box_free(q);
        return st;
    }
    char *q = sh_gquoteaf(it->gi_ops[2]);
    int st = sh_gopt_usage_error(it, "extra operand %s", q ? q : "");
    box_free(q);
    return st;
}

/* Opens FILE1 and FILE2 (the first failure ends the command). */
static int
jn_open(jn_run *r, char **ops)
{
    sh_ctx *cx = r->jr_run.cr_cx;
    if (strcmp(ops[0], "-") == 0 && strcmp(ops[1], "-") == 0)
        return sh_cmd_err(cx, "join", 1,
                          "both files cannot be standard input: No such "
                          "file or directory");
    for (int i = 0; i < 2; i++) {
        int st = 0;
        char *q = sh_gquotef(ops[i]);
        if (q == NULL)
            return sh_cmd_err(cx, "join", 1, "out of memory");
        r->jr_f[i].jf_in = sh_input_open_as(cx, "join", ops[i], q, &st);
        box_free(q);
        if (r->jr_f[i].jf_in == NULL)
            return st;
        r->jr_f[i].jf_name = ops[i];
    }
    return 0;
}

int
sh_cmd_join(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    jn_run *r = box_calloc(1, sizeof *r);
    if (r == NULL)
        return sh_cmd_err(cx, "join", 1, "out of memory");
    r->jr_run = (sh_cmd_run){.cr_cx = cx, .cr_cmd = "join"};
    r->jr_tab = -1;
    r->jr_eol = '\n';
    r->jr_paired = true;
    box_buf_init(&r->jr_out, JOIN_LINE_MAX + JOIN_CHUNK);
    for (int i = 0; i < 2; i++)
        box_buf_init(&r->jr_f[i].jf_prev.jl_text, JOIN_LINE_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &join_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        if ((st = jn_option(r, id, arg)) != 0)
            goto out;
    if (id == SH_GOPT_EXIT)
        goto out;
    if ((st = jn_operands(&it)) != 0 || (st = jn_open(r, it.gi_ops)) != 0)
        goto out;
    jn_merge(r);
    st = r->jr_run.cr_status;
out:
    for (int i = 0; i < 2; i++) {
        jn_file *f = &r->jr_f[i];
        sh_input_close(f->jf_in);
        for (size_t k = 0; k < f->jf_alloc; k++) {
            jn_line_free(f->jf_run[k]);
            box_free(f->jf_run[k]);
        }
        box_free(f->jf_run);
        jn_line_free(&f->jf_prev);
    }
    box_free(r->jr_items);
    box_buf_reset(&r->jr_out);
    box_free(r);
    sh_gopt_free(&it);
    return st;
}
