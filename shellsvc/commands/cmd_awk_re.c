/* SPDX-License-Identifier: Apache-2.0 */
/* awk's regexes: gawk's regex text (its escapes, \y for a word boundary,
 * backslashes in bracket expressions) translated for glibc's ERE regcomp
 * in C.UTF-8 (the locale the run entered), and the search through regexec
 * with REG_STARTEND so no string is copied. */
#include <string.h>

#include "box_alloc.h"
#include "cmd_awk.h"
#include "cmd_regex.h"

/* A bracket expression from t[*i] ('[') to its ']': backslash escapes are
 * resolved (glibc reads a backslash there as itself), `\]` goes first and
 * `\-` last so they stay members. */
static bool
bracket(const char *t, size_t n, size_t *i, box_buf *b)
{
    size_t j = *i + 1;
    box_buf mid;
    box_buf_init(&mid, AWK_STR_MAX);
    bool neg = false, rbr = false, dash = false, ok = true;
    if (j < n && t[j] == '^') {
        neg = true;
        j++;
    }
    if (j < n && t[j] == ']') {
        rbr = true;
        j++;
    }
    for (; j < n && t[j] != ']' && ok; j++) {
        char c = t[j];
        if (c == '[' && j + 1 < n && (t[j + 1] == ':' || t[j + 1] == '.' ||
                                      t[j + 1] == '=')) {
            // [:class:] and friends, copied whole
            char end = t[j + 1];
            size_t k = j + 2;
            while (k + 1 < n && !(t[k] == end && t[k + 1] == ']'))
                k++;
            if (k + 1 >= n) {
                ok = false;
                break;
            }
            ok = box_buf_append(&mid, t + j, k + 2 - j) == BOX_OK;
            j = k + 1;
            continue;
        }
        if (c == '\\' && j + 1 < n) {
            char e = t[++j];
            const char *from = "nrtfvab", *to = "\n\r\t\f\v\a\b";
            const char *f = strchr(from, e);
            if (e == ']')
                rbr = true;
            else if (e == '-')
                dash = true;
            else if (f != NULL && e != '\0')
                ok = box_buf_putc(&mid, to[f - from]) == BOX_OK;
            else
                ok = box_buf_putc(&mid, e) == BOX_OK;
            continue;
        }
        ok = box_buf_putc(&mid, c) == BOX_OK;
    }
    if (j >= n)
        ok = false; // unterminated: regcomp reports it
    if (ok) {
        ok = box_buf_putc(b, '[') == BOX_OK &&
             (!neg || box_buf_putc(b, '^') == BOX_OK) &&
             (!rbr || box_buf_putc(b, ']') == BOX_OK) &&
             (mid.b_len == 0 ||
              box_buf_append(b, mid.b_data, mid.b_len) == BOX_OK) &&
             (!dash || box_buf_putc(b, '-') == BOX_OK) &&
             box_buf_putc(b, ']') == BOX_OK;
        *i = j;
    } else {
        // give the rest to regcomp as it is: its error names it
        ok = box_buf_append(b, t + *i, n - *i) == BOX_OK;
        *i = n;
    }
    box_buf_reset(&mid);
    return ok;
}

static bool
translate(const char *t, size_t n, box_buf *b)
{
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        char c = t[i];
        if (c == '[') {
            ok = bracket(t, n, &i, b);
            continue;
        }
        if (c == '{' || c == '}') {
            // an interval when it reads as one (copied whole); else a
            // literal brace, as gawk takes it
            size_t k = i + 1;
            while (c == '{' && k < n &&
                   ((t[k] >= '0' && t[k] <= '9') || t[k] == ','))
                k++;
            if (c == '{' && i > 0 && k < n && t[k] == '}' && k > i + 1 &&
                t[i + 1] != ',') {
                ok = box_buf_append(b, t + i, k + 1 - i) == BOX_OK;
                i = k;
            } else {
                ok = box_buf_putc(b, '\\') == BOX_OK &&
                     box_buf_putc(b, c) == BOX_OK;
            }
            continue;
        }
        if (c != '\\' || i + 1 >= n) {
            ok = box_buf_putc(b, c) == BOX_OK;
            continue;
        }
        char e = t[++i];
        const char *from = "nrtfvab/\"", *to = "\n\r\t\f\v\a\b/\"";
        const char *f = strchr(from, e);
        if (e == 'y') {
            ok = box_buf_append(b, "\\b", 2) == BOX_OK;
        } else if (f != NULL && e != '\0') {
            char lit = to[f - from];
            ok = box_buf_putc(b, lit) == BOX_OK;
        } else if (e >= '0' && e <= '7') {
            unsigned v = 0;
            int k = 0;
            for (; k < 3 && i < n && t[i] >= '0' && t[i] <= '7'; k++)
                v = v * 8 + (unsigned)(t[i++] - '0');
            i--;
            char lit = (char)v;
            ok = (strchr(".[]()*+?{}|^$\\", lit) == NULL || lit == '\0' ||
                  box_buf_putc(b, '\\') == BOX_OK) &&
                 box_buf_putc(b, lit) == BOX_OK;
        } else {
            ok = box_buf_putc(b, '\\') == BOX_OK && box_buf_putc(b, e) == BOX_OK;
        }
    }
    return ok && box_buf_putc(b, '\0') == BOX_OK;
}

awk_re *
awk_re_new(awk *a, const char *text, size_t len, bool icase)
{
    awk_re *re = box_calloc(1, sizeof *re);
    if (re == NULL) {
        awk_fatal(a, "out of memory");
        return NULL;
    }
    re->r_icase = icase;
    if (len == 0) {
        re->r_empty = true;
        return re;
    }
    box_buf b;
    box_buf_init(&b, AWK_STR_MAX);
    if (!translate(text, len, &b)) {
        box_buf_reset(&b);
        box_free(re);
        awk_fatal(a, "out of memory");
        return NULL;
    }
    int rc = cmd_regcomp(&re->r_rx, b.b_data,
                         REG_EXTENDED | (icase ? REG_ICASE : 0));
    box_buf_reset(&b);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &re->r_rx, msg, sizeof msg);
        box_free(re);
        awk_fatal(a, "invalid regexp: %s: /%.*s/", msg, (int)len, text);
        return NULL;
    }
    re->r_ok = true;
    return re;
}

void
awk_re_free(awk_re *re)
{
    if (re == NULL)
        return;
    if (re->r_ok)
        regfree(&re->r_rx);
    box_free(re);
}

bool
awk_re_exec(awk_re *re, const char *s, size_t n, size_t from, bool notbol,
            size_t *so, size_t *eo)
{
    if (re->r_empty) {
        *so = *eo = from;
        return true;
    }
    regmatch_t m[1];
    m[0].rm_so = (regoff_t)from;
    m[0].rm_eo = (regoff_t)n;
    if (regexec(&re->r_rx, s, 1, m, REG_STARTEND | (notbol ? REG_NOTBOL : 0)) != 0)
        return false;
    *so = (size_t)m[0].rm_so;
    *eo = (size_t)m[0].rm_eo;
    return true;
}
