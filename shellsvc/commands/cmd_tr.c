/* SPDX-License-Identifier: Apache-2.0 */
/* tr [-cdst] STRING1 [STRING2]: GNU coreutils 9.1, byte-wise (its
 * behaviour in the C.UTF-8 locale). Reads standard input only. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_tr_set.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define TR_CHUNK (64u * 1024u)

// GNU's order (its ambiguity messages list them so).
static const sh_gopt tr_opts[] = {
    {'c', "complement", SH_GARG_NONE},
    {'d', "delete", SH_GARG_NONE},
    {'s', "squeeze-repeats", SH_GARG_NONE},
    {'t', "truncate-set1", SH_GARG_NONE},
    {'C', NULL, SH_GARG_NONE},
    {'A', NULL, SH_GARG_NONE}, // GNU's undocumented "C locale": a no-op here
    {0},
};

static const sh_gopt_spec tr_spec = {
    .gs_cmd = "tr",
    .gs_opts = tr_opts,
    .gs_flags = SH_GOPT_F_INORDER, // GNU's "+": `tr a -d` translates "-d"
    .gs_fail = 1,
    .gs_help =
        "Usage: tr [OPTION]... STRING1 [STRING2]\n"
        "Translate, squeeze and/or delete bytes of standard input, writing "
        "to\nstandard output.\n"
        "\n"
        "  -c, -C, --complement    use the complement of STRING1\n"
        "  -d, --delete            delete the bytes in STRING1\n"
        "  -s, --squeeze-repeats   replace each run of one byte listed in "
        "the\n"
        "                            last STRING by a single one\n"
        "  -t, --truncate-set1     first cut STRING1 to the length of "
        "STRING2\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "STRINGs hold bytes, escapes (\\n \\t \\\\ \\NNN …), ranges (a-z), "
        "classes\n"
        "([:alpha:] [:digit:] [:lower:] [:upper:] [:space:] …), [=c=], and "
        "in\n"
        "STRING2 [c*n] (n copies) or [c*] (as many as needed). A shorter "
        "STRING2\nis padded with its last byte.\n",
};

typedef struct tr_run {
    bool tr_complement, tr_delete, tr_squeeze, tr_truncate;
    bool tr_translating; // two STRINGs, no -d
    tr_set tr_s1, tr_s2; // owned
    bool tr_has_s2;
    uintmax_t tr_len1; // bytes STRING1 stands for (complemented)
    uintmax_t tr_pad;  // STRING2's padding: tr_pad copies of tr_padc
    unsigned char tr_padc;
    unsigned char tr_map[256];
    bool tr_del[256], tr_sq[256];
} tr_run;

/* ---- checks ---- */

typedef struct tr_stats {
    uintmax_t ss_len;                       // with the [c*] left out
    size_t ss_fills;                        // [c*] constructs
    tr_elem *ss_fill;                       // the last of them
    bool ss_class, ss_equiv, ss_restricted; // restricted: not upper, lower
} tr_stats;

/* False after GNU's message when the set stands for too many bytes. */
static bool
tr_stats_of(sh_ctx *cx, tr_set *s, tr_stats *st)
{
    memset(st, 0, sizeof *st);
    for (size_t i = 0; i < s->ts_n; i++) {
        tr_elem *e = &s->ts_v[i];
        uintmax_t n = e->te_fill ? 0 : tr_elem_len(e);
        if (n >= UINTMAX_MAX - st->ss_len) {
            sh_cmd_err(cx, "tr", 1, "too many characters in set");
            return false;
        }
        st->ss_len += n;
        if (e->te_fill) {
            st->ss_fills++;
            st->ss_fill = e;
        }
        st->ss_class |= e->te_kind == TR_CLASS;
        st->ss_equiv |= e->te_kind == TR_EQUIV;
        st->ss_restricted |= e->te_kind == TR_CLASS &&
                             e->te_class != TR_UPPER && e->te_class != TR_LOWER;
    }
    return true;
}

/*
 * Each [:upper:] or [:lower:] of STRING2 must stand where one of them
 * starts in STRING1 (GNU maps the one class onto the other). Like GNU's
 * walk, the check ends at STRING1's end: a class there is misaligned, one
 * past it is not looked at.
 */
static bool
tr_case_aligned(const tr_set *s1, uintmax_t len1, const tr_set *s2)
{
    uintmax_t p1 = 0, p2 = 0;
    size_t i1 = 0;
    for (size_t i2 = 0; i2 < s2->ts_n && p2 <= len1; i2++) {
        const tr_elem *e2 = &s2->ts_v[i2];
        if (e2->te_kind == TR_CLASS) {
            while (i1 < s1->ts_n && p1 < p2)
                p1 += tr_elem_len(&s1->ts_v[i1++]);
            const tr_elem *e1 = i1 < s1->ts_n ? &s1->ts_v[i1] : NULL;
            if (p1 != p2 || e1 == NULL || e1->te_kind != TR_CLASS ||
                (e1->te_class != TR_UPPER && e1->te_class != TR_LOWER))
                return false;
        }
        p2 += tr_elem_len(e2);
    }
    return true;
}

static bool
tr_fail(sh_ctx *cx, const char *msg)
{
    sh_cmd_err(cx, "tr", 1, "%s", msg);
    return false;
}

/*
 * GNU's checks of the two STRINGs, in its order, and STRING2's [c*] count
 * and padding. False after the message.
 */
static bool
tr_validate(sh_ctx *cx, tr_run *r)
{
    tr_stats a, b;
    if (!tr_stats_of(cx, &r->tr_s1, &a))
        return false;
    if (a.ss_fills > 0)
        return tr_fail(cx, "the [c*] repeat construct may not appear in "
                           "string1");
    r->tr_len1 = a.ss_len;
    if (r->tr_complement) {
        r->tr_len1 = 256;
        for (unsigned c = 0; c < 256; c++)
            for (size_t i = 0; i < r->tr_s1.ts_n; i++)
                if (tr_elem_has(&r->tr_s1.ts_v[i], c)) {
                    r->tr_len1--;
                    break;
                }
    }
    if (!r->tr_has_s2)
        return true;
    if (!tr_stats_of(cx, &r->tr_s2, &b))
        return false;
    if (b.ss_fills == 1 && r->tr_len1 >= b.ss_len) {
        b.ss_fill->te_count = r->tr_len1 - b.ss_len;
        b.ss_len = r->tr_len1;
    }
    if (b.ss_fills > 1)
        return tr_fail(cx, "only one [c*] repeat construct may appear in "
                           "string2");
    if (!r->tr_translating) {
        if (b.ss_fills > 0)
            return tr_fail(cx, "the [c*] construct may appear in string2 "
                               "only when translating");
        return true;
    }
    if (b.ss_equiv)
        return tr_fail(cx, "[=c=] expressions may not appear in string2 "
                           "when translating");
    if (b.ss_restricted)
        return tr_fail(cx, "when translating, the only character classes "
                           "that may appear in\nstring2 are 'upper' and "
                           "'lower'");
    if (!r->tr_complement && !tr_case_aligned(&r->tr_s1, r->tr_len1, &r->tr_s2))
        return tr_fail(cx, "misaligned [:upper:] and/or [:lower:] construct");
    uintmax_t len2 = b.ss_len;
    if (r->tr_len1 > len2 && !r->tr_truncate) {
        if (len2 == 0)
            return tr_fail(cx, "when not truncating set1, string2 must be "
                               "non-empty");
        const tr_elem *last = &r->tr_s2.ts_v[r->tr_s2.ts_n - 1];
        if (last->te_kind == TR_CLASS)
            return tr_fail(cx, "when translating with string1 longer than "
                               "string2,\nthe latter string must not end "
                               "with a character class");
        r->tr_pad = r->tr_len1 - len2;
        r->tr_padc = last->te_kind == TR_RANGE ? last->te_hi : last->te_lo;
        len2 = r->tr_len1;
    }
    if (r->tr_complement && a.ss_class) {
        // Every byte outside STRING1 must go to one and the same byte.
        bool same = len2 == r->tr_len1;
        tr_walk w;
        tr_walk_start(&w, &r->tr_s2, r->tr_pad, r->tr_padc);
        int first = -1;
        while (same && tr_walk_next(&w)) {
            same = first < 0 || w.tw_c == first;
            first = w.tw_c;
        }
        if (!same)
            return tr_fail(cx, "when translating with complemented character "
                               "classes,\nstring2 must map all characters "
                               "in the domain to one");
    }
    return true;
}

/* ---- tables ---- */

static void
tr_members(const tr_set *s, bool *in)
{
    for (size_t i = 0; i < s->ts_n; i++)
        for (unsigned c = 0; c < 256; c++)
            in[c] = in[c] || tr_elem_has(&s->ts_v[i], c);
}

/*
 * STRING1's bytes onto STRING2's, position by position (a later position
 * wins). A [:upper:] of STRING2 where STRING1 has [:lower:] maps the one
 * class onto the other; the same class on both sides maps only its first
 * byte (to itself), as GNU 9.1 does.
 */
static void
tr_build_map(tr_run *r, const tr_set *from)
{
    tr_walk w1, w2;
    tr_walk_start(&w1, from, 0, 0);
    tr_walk_start(&w2, &r->tr_s2, r->tr_pad, r->tr_padc);
    bool more = tr_walk_next(&w1) && tr_walk_next(&w2);
    while (more) {
        if (w2.tw_class_start && w1.tw_class_start) {
            tr_class k1 = w1.tw_e->te_class, k2 = w2.tw_e->te_class;
            for (unsigned c = 0; c < 256 && k1 != k2; c++)
                if (tr_class_has(k1, c))
                    r->tr_map[c] =
                        (unsigned char)(k2 == TR_UPPER ? c - 'a' + 'A'
                                                       : c - 'A' + 'a');
            if (k1 == k2)
                r->tr_map[w1.tw_c] = w2.tw_c;
            tr_walk_skip(&w1);
            tr_walk_skip(&w2);
            more = tr_walk_next(&w1) && tr_walk_next(&w2);
            continue;
        }
        uintmax_t step = w1.tw_n < w2.tw_n ? w1.tw_n : w2.tw_n;
        r->tr_map[w1.tw_c] = w2.tw_c;
        w1.tw_n -= step;
        w2.tw_n -= step;
        more = (w1.tw_n > 0 || tr_walk_next(&w1)) &&
               (w2.tw_n > 0 || tr_walk_next(&w2));
    }
}

/* The delete, squeeze and translation tables. False when out of memory
 * (after the message). */
static bool
tr_tables(sh_ctx *cx, tr_run *r)
{
    bool in1[256] = {false};
    for (unsigned c = 0; c < 256; c++)
        r->tr_map[c] = (unsigned char)c;
    tr_members(&r->tr_s1, in1);
    if (r->tr_complement)
        for (unsigned c = 0; c < 256; c++)
            in1[c] = !in1[c];
    if (r->tr_delete)
        memcpy(r->tr_del, in1, sizeof in1);
    if (r->tr_squeeze && r->tr_has_s2)
        tr_members(&r->tr_s2, r->tr_sq);
    else if (r->tr_squeeze)
        memcpy(r->tr_sq, in1, sizeof in1);
    if (!r->tr_translating)
        return true;
    if (!r->tr_complement) {
        tr_build_map(r, &r->tr_s1);
        return true;
    }
    // -c: the bytes outside STRING1, in order, are what is translated.
    tr_set rest = {.ts_v = box_calloc(256, sizeof(tr_elem))};
    if (rest.ts_v == NULL)
        return tr_fail(cx, "out of memory");
    for (unsigned c = 0; c < 256; c++)
        if (in1[c])
            rest.ts_v[rest.ts_n++] =
                (tr_elem){.te_kind = TR_CHAR, .te_lo = (unsigned char)c};
    tr_build_map(r, &rest);
    tr_set_free(&rest);
    return true;
}

/* ---- the filter ---- */

/* Standard input to standard output through the tables. */
static int
tr_filter(sh_ctx *cx, const tr_run *r)
{
    int st;
    sh_input *in = sh_input_open(cx, "tr", NULL, &st);
    char *buf = box_alloc(2 * TR_CHUNK);
    sh_cmd_run out = {.cr_cx = cx, .cr_cmd = "tr"};
    int last = -1; // the last byte written, for -s
    if (in == NULL || buf == NULL) {
        if (in != NULL)
            st = sh_cmd_err(cx, "tr", 1, "out of memory");
        goto done;
    }
    char *obuf = buf + TR_CHUNK;
    for (;;) {
        if (sh_check_stop(cx)) {
            st = cx->cx_status;
            break;
        }
        ssize_t n = sh_input_read(in, buf, TR_CHUNK);
        if (n < 0 && sh_check_stop(cx))
            continue; // the wait ended with the call: stop above
        if (n <= 0) {
            st = n < 0; // a read error was reported by the input
            break;
        }
        size_t k = 0;
        for (ssize_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)buf[i];
            if (r->tr_del[c])
                continue;
            c = r->tr_map[c];
            if (r->tr_sq[c] && c == last)
                continue;
            obuf[k++] = (char)c;
            last = c;
        }
        if (!sh_cmd_emit(&out, obuf, k)) {
            st = out.cr_status;
            break;
        }
    }
done:
    box_free(buf);
    sh_input_close(in);
    return st;
}

/*
 * GNU's operand counts: -d alone takes one STRING; -d -s and translating
 * take two; -s alone one or two.
 */
static int
tr_operands(sh_gopt_iter *it, const tr_run *r)
{
    int min = 1 + (r->tr_delete == r->tr_squeeze);
    int max = 1 + (!r->tr_delete || r->tr_squeeze);
    int n = it->gi_nops;
    if (n == 0)
        return sh_gopt_usage_error(it, "missing operand");
    if (n < min || n > max) {
        char *q = sh_gquote(it->gi_ops[n < min ? n - 1 : max]);
        const char *why =
            n < min  ? (r->tr_squeeze ? "\nTwo strings must be given when "
                                        "both deleting and squeezing "
                                        "repeats."
                                      : "\nTwo strings must be given when "
                                        "translating.")
            : n == 2 ? "\nOnly one string may be given when deleting "
                       "without squeezing repeats."
                     : "";
        int st = sh_gopt_usage_error(
            it, "%s %s%s", n < min ? "missing operand after" : "extra operand",
            q != NULL ? q : "", why);
        box_free(q);
        return st;
    }
    return 0;
}

int
sh_cmd_tr(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    tr_run *r = box_calloc(1, sizeof *r);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &tr_spec, argc, argv);
    const char *arg;
    int id, st = 1;
    if (r == NULL) {
        sh_cmd_err(cx, "tr", 1, "out of memory");
        goto out;
    }
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        r->tr_complement |= id == 'c' || id == 'C';
        r->tr_delete |= id == 'd';
        r->tr_squeeze |= id == 's';
        r->tr_truncate |= id == 't';
    }
    if (id == SH_GOPT_EXIT || (st = tr_operands(&it, r)) != 0)
        goto out;
    st = 1;
    r->tr_has_s2 = it.gi_nops == 2;
    r->tr_translating = r->tr_has_s2 && !r->tr_delete;
    if (!tr_set_parse(cx, it.gi_ops[0], &r->tr_s1) ||
        (r->tr_has_s2 && !tr_set_parse(cx, it.gi_ops[1], &r->tr_s2)) ||
        !tr_validate(cx, r) || !tr_tables(cx, r))
        goto out;
    st = tr_filter(cx, r);
out:
    if (r != NULL) {
        tr_set_free(&r->tr_s1);
        tr_set_free(&r->tr_s2);
    }
    box_free(r);
    sh_gopt_free(&it);
    return st;
}
