/* SPDX-License-Identifier: Apache-2.0 */
/* sed's script compiler: the joined -e/-f text into a flat command array
 * (blocks as jumps), with GNU sed 4.9's messages and char positions. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_sed.h"

#define SP_EOF (-1)

/* The reader: one lookahead. Each chunk (-e string, -f file) ends in
 * its own EOF, as GNU reads them; p_pos counts as GNU counts (an EOF
 * read is not a byte). */
typedef struct sp {
    sed *p_sed;
    const char *p_t;
    size_t p_pos, p_lim;
    bool p_eof; // the last sp_get was the chunk's EOF
    const sed_chunk *p_ch;
    size_t p_nch, p_ci;
} sp;

static int
sp_get(sp *p)
{
    if (p->p_pos >= p->p_lim) {
        p->p_eof = true;
        return SP_EOF;
    }
    p->p_eof = false;
    return (unsigned char)p->p_t[p->p_pos++];
}

static void
sp_unget(sp *p)
{
    if (p->p_eof)
        p->p_eof = false;
    else
        p->p_pos--;
}

static int
sp_peek(sp *p)
{
    return p->p_pos < p->p_lim ? (unsigned char)p->p_t[p->p_pos] : SP_EOF;
}

/* On to the next chunk: false after the last. */
static bool
sp_next_chunk(sp *p)
{
    if (p->p_ci + 1 >= p->p_nch)
        return false;
    const sed_chunk *c = &p->p_ch[++p->p_ci];
    p->p_pos = c->ch_start;
    p->p_lim = c->ch_start + c->ch_len;
    p->p_eof = false;
    return true;
}

/* "-e expression #N, char C: MSG" (C 0: at the end), or "file F line
 * L: MSG"; status 1. */
static int sp_fail(sp *p, bool at_end, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
sp_fail(sp *p, bool at_end, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const sed_chunk *c = &p->p_ch[p->p_ci];
    size_t rel = p->p_pos - c->ch_start;
    if (c->ch_expr == 0) {
        size_t line = 1;
        for (size_t i = c->ch_start; i < p->p_pos; i++)
            line += p->p_t[i] == '\n';
        if (rel > 0 && p->p_t[p->p_pos - 1] == '\n')
            line--;
        return sed_err(p->p_sed, "file %s line %zu: %s", c->ch_file, line, msg);
    }
    return sed_err(p->p_sed, "-e expression #%d, char %zu: %s", c->ch_expr,
                   at_end ? (size_t)0 : rel, msg);
}

static void
sp_skip_ws(sp *p)
{
    int c;
    while ((c = sp_get(p)) == ' ' || c == '\t')
        ;
    sp_unget(p);
}

/* end -> ws* ( ';' | '\n' | EOF | before '}' or '#' ) */
static int
sp_end_cmd(sp *p)
{
    sp_skip_ws(p);
    int c = sp_get(p);
    if (c == SP_EOF || c == '\n' || c == ';')
        return 0;
    if (c == '}' || c == '#') {
        sp_unget(p);
        return 0;
    }
    return sp_fail(p, false, "extra characters after command");
}

static bool
sp_number(sp *p, uintmax_t *out)
{
    int c = sp_get(p);
    if (c < '0' || c > '9') {
        sp_unget(p);
        return false;
    }
    uintmax_t v = 0;
    for (; c >= '0' && c <= '9'; c = sp_get(p))
        v = v > (UINTMAX_MAX - 9) / 10 ? UINTMAX_MAX
                                       : v * 10 + (uintmax_t)(c - '0');
    sp_unget(p);
    *out = v;
    return true;
}

/*
 * The text up to an unescaped delim (regex: a bracket expression's bytes
 * never end it), escapes kept. *start and *n locate it in the script;
 * false at a newline or the end (the caller's "unterminated" message).
 */
static bool
sp_delimited(sp *p, char delim, bool regex, size_t *start, size_t *n)
{
    *start = p->p_pos;
    for (;;) {
        int c = sp_get(p);
        if (c == SP_EOF || (c == '\n' && delim != '\n' && regex))
            return false;
        if (c == '\\') {
            if (sp_get(p) == SP_EOF)
                return false;
        } else if (c == (unsigned char)delim) {
            *n = p->p_pos - 1 - *start;
            return true;
        } else if (c == '[' && regex) {
            if (sp_peek(p) == '^')
                sp_get(p);
            if (sp_peek(p) == ']')
                sp_get(p);
            for (;;) {
                c = sp_get(p);
                if (c == SP_EOF || c == '\n')
                    return false;
                if (c == ']')
                    break;
                if (c == '[' && (sp_peek(p) == ':' || sp_peek(p) == '.' ||
                                 sp_peek(p) == '=')) {
                    int k = sp_get(p), d;
                    while ((d = sp_get(p)) != SP_EOF && d != '\n' &&
                           !(d == k && sp_peek(p) == ']'))
                        ;
                    if (d == SP_EOF || d == '\n')
                        return false;
                    sp_get(p);
                }
            }
        }
    }
}

static sed_re *
sp_regex(sp *p, size_t start, size_t n, char delim, int flags)
{
    char err[256];
    sed_re *re = sed_re_compile(&p->p_sed->s_prog, p->p_t + start, n, delim,
                                flags, err, sizeof err);
    if (re == NULL)
        sp_fail(p, false, "%s", err);
    return re;
}

/* addr -> N | N~S | '$' | '/re/' flags | '\cREc' flags ; flags: I M */
static int
sp_addr(sp *p, sed_addr *a, bool *got)
{
    *got = true;
    int c = sp_get(p);
    if (c >= '0' && c <= '9') {
        sp_unget(p);
        sp_number(p, &a->a_n);
        a->a_kind = a->a_n == 0 ? SA_ZERO : SA_LINE;
        if (sp_peek(p) == '~') {
            sp_get(p);
            if (!sp_number(p, &a->a_step))
                a->a_step = 0;
            a->a_kind = a->a_n == 0 && a->a_step == 0 ? SA_ZERO : SA_STEP;
        }
        return 0;
    }
    if (c == '$') {
        a->a_kind = SA_LAST;
        return 0;
    }
    if (c == '/' || c == '\\') {
        char delim = '/';
        if (c == '\\' && ((c = sp_get(p)) == SP_EOF || c == '\n'))
            return sp_fail(p, false, "unterminated address regex");
        if (c != '/')
            delim = (char)c;
        size_t start, n;
        if (!sp_delimited(p, delim, true, &start, &n))
            return sp_fail(p, false, "unterminated address regex");
        int flags = 0;
        for (;;) {
            c = sp_get(p);
            if (c == 'I')
                flags |= REG_ICASE;
            else if (c == 'M')
                flags |= REG_NEWLINE;
            else
                break;
        }
        sp_unget(p);
        a->a_kind = SA_RE;
        if (n == 0) {
            a->a_empty_re = true;
            return 0;
        }
        a->a_re = sp_regex(p, start, n, delim, flags);
        return a->a_re == NULL ? 1 : 0;
    }
    if (c == '+' || c == '~') {
        uintmax_t n;
        sp_number(p, &n);
        return sp_fail(p, false, "invalid usage of +N or ~N as first address");
    }
    sp_unget(p);
    *got = false;
    return 0;
}

static sed_cmd *
sp_new_cmd(sp *p)
{
    sed_prog *g = &p->p_sed->s_prog;
    if (g->p_ncmds == g->p_cap) {
        size_t cap = g->p_cap ? g->p_cap * 2 : 16;
        sed_cmd *n = box_realloc(g->p_cmds, cap * sizeof *n);
        if (n == NULL)
            return NULL;
        g->p_cmds = n;
        g->p_cap = cap;
    }
    sed_cmd *c = &g->p_cmds[g->p_ncmds++];
    memset(c, 0, sizeof *c);
    return c;
}

/* The rest of the line (r R w W FILE, labels): trailing blanks kept for
 * files, as GNU keeps them. */
static char *
sp_rest(sp *p, bool label, bool brace)
{
    sp_skip_ws(p);
    size_t start = p->p_pos;
    int c;
    while ((c = sp_get(p)) != SP_EOF && c != '\n' &&
           !(label && (c == ';' || c == ' ' || c == '\t')) &&
           !(brace && c == '}'))
        ;
    size_t end = c == SP_EOF ? p->p_pos : p->p_pos - 1;
    if (label && c != SP_EOF && c != '\n')
        sp_unget(p); // ';' or a blank: the end-of-command check reads it
    return box_strndup(p->p_t + start, end - start);
}

/* a i c text: "a text" (GNU's one-liner, leading blanks dropped), or
 * "a\" newline then lines, each ending in '\' continuing; a backslash
 * keeps the byte after it. */
static int
sp_text(sp *p, sed_cmd *cmd)
{
    sp_skip_ws(p);
    int c = sp_get(p);
    if (c == SP_EOF)
        return sp_fail(p, false, "expected \\ after `a', `c' or `i'");
    if (c == '\\') {
        c = sp_get(p);
        if (c == SP_EOF && !sp_next_chunk(p)) { // -e 'a\' -e TEXT, or none
            cmd->c_text = box_strdup("");
            return cmd->c_text == NULL ? sp_fail(p, false, "out of memory") : 0;
        }
        if (c != '\n' && c != SP_EOF)
            sp_unget(p);
    } else {
        sp_unget(p);
    }
    box_buf b;
    box_buf_init(&b, SED_HOLD_MAX);
    box_err rc = BOX_OK;
    while ((c = sp_get(p)) != SP_EOF && c != '\n' && rc == BOX_OK) {
        if (c == '\\') {
            c = sp_get(p);
            if (c == SP_EOF)
                break;
            // \t and the like are their bytes; any other byte is itself
            size_t i = p->p_pos - 1;
            unsigned char v;
            if (c != '\n' && sed_char_escape(p->p_t, p->p_lim, &i, &v)) {
                p->p_pos = i + 1;
                c = v;
            }
        }
        rc = box_buf_putc(&b, (char)c);
    }
    if (rc == BOX_OK)
        rc = box_buf_putc(&b, '\n');
    if (rc != BOX_OK) {
        box_buf_reset(&b);
        return sp_fail(p, false, "out of memory");
    }
    cmd->c_textlen = b.b_len;
    cmd->c_text = box_buf_take(&b);
    return 0;
}

/* A w file, or an R file's reader (shared by name). */
static int
sp_wfile(sp *p, sed_out **out)
{
    if (p->p_sed->s_prog.p_sandbox)
        return sp_fail(p, false, "e/r/w commands disabled in sandbox mode");
    char *name = sp_rest(p, false, false);
    int st = 0;
    if (name == NULL)
        return sp_fail(p, false, "out of memory");
    if (*name == '\0')
        st = sp_fail(p, false, "missing filename in r/R/w/W commands");
    else if ((*out = sed_out_get(p->p_sed, name, &st)) == NULL && st == 0)
        st = 1;
    box_free(name);
    return st;
}

static int
sp_rfile(sp *p, sed_cmd *cmd, bool shared)
{
    if (p->p_sed->s_prog.p_sandbox)
        return sp_fail(p, false, "e/r/w commands disabled in sandbox mode");
    char *name = sp_rest(p, false, false);
    if (name == NULL)
        return sp_fail(p, false, "out of memory");
    if (*name == '\0') {
        box_free(name);
        return sp_fail(p, false, "missing filename in r/R/w/W commands");
    }
    if (!shared) {
        cmd->c_fname = name;
        return 0;
    }
    sed_prog *g = &p->p_sed->s_prog;
    for (sed_rfile *f = g->p_rfiles; f != NULL; f = f->rf_next)
        if (strcmp(f->rf_name, name) == 0) {
            cmd->c_rfile = f;
            box_free(name);
            return 0;
        }
    sed_rfile *f = box_calloc(1, sizeof *f);
    if (f == NULL) {
        box_free(name);
        return sp_fail(p, false, "out of memory");
    }
    f->rf_name = name;
    f->rf_next = g->p_rfiles;
    g->p_rfiles = f;
    cmd->c_rfile = f;
    return 0;
}

/* The replacement of s: pieces of text, groups and case changes. */
static int
sp_replacement(sp *p, sed_subst *sb, size_t start, size_t n, char delim)
{
    const char *t = p->p_t + start;
    box_buf text;
    box_buf_init(&text, SED_HOLD_MAX);
    sb->sb_reps = box_calloc(n + 1, sizeof *sb->sb_reps);
    if (sb->sb_reps == NULL)
        return sp_fail(p, false, "out of memory");
    box_err rc = BOX_OK;
    sed_rep *cur = NULL; // the text piece being extended
    for (size_t i = 0; i < n && rc == BOX_OK; i++) {
        char c = t[i];
        sed_rep r = {.rp_kind = SR_TEXT};
        unsigned char v = (unsigned char)c;
        if (c == '&') {
            r = (sed_rep){.rp_kind = SR_GROUP, .rp_group = 0};
        } else if (c == '\\' && i + 1 < n) {
            char e = t[++i];
            const char *cs = strchr("LUElu", e);
            if (e >= '0' && e <= '9') {
                r = (sed_rep){.rp_kind = SR_GROUP, .rp_group = e - '0'};
                if (r.rp_group > sb->sb_maxref)
                    sb->sb_maxref = r.rp_group;
            } else if (e != '\0' && cs != NULL) {
                static const sed_case cases[] = {SC_LOWER, SC_UPPER, SC_NONE,
                                                 SC_ONE_LOWER, SC_ONE_UPPER};
                r = (sed_rep){.rp_kind = SR_CASE,
                              .rp_case = cases[cs - "LUElu"]};
            } else if (e == '\n' || e == delim || e == '&' || e == '\\') {
                v = (unsigned char)e;
            } else if (!sed_char_escape(t, n, &i, &v)) {
                v = (unsigned char)e;
            }
        }
        if (r.rp_kind != SR_TEXT) {
            sb->sb_reps[sb->sb_nreps++] = r;
            cur = NULL;
            continue;
        }
        if (cur == NULL) {
            cur = &sb->sb_reps[sb->sb_nreps++];
            *cur = (sed_rep){.rp_kind = SR_TEXT, .rp_off = text.b_len};
        }
        rc = box_buf_putc(&text, (char)v);
        cur->rp_len++;
    }
    if (rc != BOX_OK ||
        (text.b_data == NULL && box_buf_putc(&text, 0) != BOX_OK)) {
        box_buf_reset(&text);
        return sp_fail(p, false, "out of memory");
    }
    sb->sb_text = box_buf_take(&text);
    return 0;
}

/* s -> 's' D regex D replacement D flags ; flags: g p N i I m M e w FILE */
static int
sp_subst(sp *p, sed_cmd *cmd)
{
    int c = sp_get(p);
    if (c == SP_EOF || c == '\n' || c == '\\')
        return sp_fail(p, false, "unterminated `s' command");
    char delim = (char)c;
    size_t rs, rn, ps, pn;
    if (!sp_delimited(p, delim, true, &rs, &rn) ||
        !sp_delimited(p, delim, false, &ps, &pn))
        return sp_fail(p, false, "unterminated `s' command");
    sed_subst *sb = box_calloc(1, sizeof *sb);
    if (sb == NULL)
        return sp_fail(p, false, "out of memory");
    cmd->c_sub = sb;
    sb->sb_nth = 1;
    int st = sp_replacement(p, sb, ps, pn, delim);
    if (st != 0)
        return st;
    int flags = 0;
    bool nth = false;
    for (;;) {
        c = sp_get(p);
        if (c == 'i' || c == 'I') {
            flags |= REG_ICASE;
        } else if (c == 'm' || c == 'M') {
            flags |= REG_NEWLINE;
        } else if (c == 'p') {
            if (sb->sb_print)
                return sp_fail(p, false, "multiple `p' options to `s' command");
            sb->sb_print = true;
        } else if (c == 'g') {
            if (sb->sb_global)
                return sp_fail(p, false, "multiple `g' options to `s' command");
            sb->sb_global = true;
        } else if (c >= '0' && c <= '9') {
            if (nth)
                return sp_fail(p, false,
                               "multiple number options to `s' command");
            sp_unget(p);
            sp_number(p, &sb->sb_nth);
            if (sb->sb_nth == 0)
                return sp_fail(p, false,
                               "number option to `s' command may "
                               "not be zero");
            nth = true;
        } else if (c == 'e') {
            return sp_fail(p, false,
                           "the `e' flag (run a command) is not "
                           "supported in this box");
        } else if (c == 'w') {
            if ((st = sp_wfile(p, &sb->sb_w)) != 0)
                return st;
            break;
        } else if (c == SP_EOF || c == '\n' || c == ';') {
            break;
        } else if (c == '}' || c == '#') {
            sp_unget(p);
            break;
        } else if (c == ' ' || c == '\t') {
            continue; // GNU takes blanks among the flags
        } else {
            return sp_fail(p, false, "unknown option to `s'");
        }
    }
    if (rn == 0) {
        sb->sb_empty_re = true;
        return 0;
    }
    if ((sb->sb_re = sp_regex(p, rs, rn, delim, flags)) == NULL)
        return 1;
    if ((size_t)sb->sb_maxref > sb->sb_re->re_nsub)
        return sp_fail(p, false, "invalid reference \\%d on `s' command's RHS",
                       sb->sb_maxref);
    return 0;
}

/* One side of y, its escapes resolved into out (SED_YMAX bytes room). */
#define SED_YMAX 4096
static bool
sp_ystr(sp *p, size_t start, size_t n, char delim, unsigned char *out,
        size_t *outn)
{
    const char *t = p->p_t + start;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char v = (unsigned char)t[i];
        if (t[i] == '\\' && i + 1 < n) {
            char e = t[++i];
            if (e == '\\' || e == delim || e == '\n' ||
                !sed_char_escape(t, n, &i, &v))
                v = (unsigned char)e; // any other escaped byte is itself
        }
        if (k == SED_YMAX)
            return false;
        out[k++] = v;
    }
    *outn = k;
    return true;
}

/* How many characters s[0, n) holds (sed_char_len each). */
static size_t
sp_nchars(const unsigned char *s, size_t n, bool *multi)
{
    size_t count = 0;
    for (size_t i = 0; i < n; count++) {
        size_t k = sed_char_len((const char *)s + i, n - i);
        *multi |= k > 1;
        i += k;
    }
    return count;
}

/* y: a byte table, or (a character past ASCII on either side) pairs of
 * characters. */
static int
sp_y(sp *p, sed_cmd *cmd)
{
    int c = sp_get(p);
    if (c == SP_EOF || c == '\n' || c == '\\')
        return sp_fail(p, false, "unterminated `y' command");
    char delim = (char)c;
    size_t as, an, bs, bn, na, nb;
    if (!sp_delimited(p, delim, false, &as, &an) ||
        !sp_delimited(p, delim, false, &bs, &bn))
        return sp_fail(p, false, "unterminated `y' command");
    static const size_t cap = SED_YMAX;
    unsigned char *a = box_alloc(2 * cap);
    if (a == NULL)
        return sp_fail(p, false, "out of memory");
    unsigned char *b = a + cap;
    int st = 0;
    bool multi = false;
    if (!sp_ystr(p, as, an, delim, a, &na) ||
        !sp_ystr(p, bs, bn, delim, b, &nb)) {
        st = sp_fail(p, false, "`y' command strings too long");
        goto out;
    }
    size_t ca = sp_nchars(a, na, &multi), cb = sp_nchars(b, nb, &multi);
    if (ca != cb) {
        st = sp_fail(p, false, "strings for `y' command are different lengths");
        goto out;
    }
    if (multi) {
        sed_ymb *m = box_calloc(1, sizeof *m + ca * sizeof m->ym_pairs[0]);
        if (m == NULL) {
            st = sp_fail(p, false, "out of memory");
            goto out;
        }
        cmd->c_ymb = m;
        for (size_t i = 0, j = 0; i < na; m->ym_n++) {
            size_t k = sed_char_len((const char *)a + i, na - i);
            size_t l = sed_char_len((const char *)b + j, nb - j);
            struct sed_ypair *y = &m->ym_pairs[m->ym_n];
            memcpy(y->yp_from, a + i, k);
            memcpy(y->yp_to, b + j, l);
            y->yp_fl = (unsigned char)k;
            y->yp_tl = (unsigned char)l;
            i += k;
            j += l;
        }
    } else {
        if ((cmd->c_ymap = box_alloc(256)) == NULL) {
            st = sp_fail(p, false, "out of memory");
            goto out;
        }
        for (int i = 0; i < 256; i++)
            cmd->c_ymap[i] = (unsigned char)i;
        for (size_t i = 0; i < na; i++)
            cmd->c_ymap[a[i]] = b[i];
    }
    st = sp_end_cmd(p);
out:
    box_free(a);
    return st;
}

static int
sp_brace_push(sp *p)
{
    sed_prog *g = &p->p_sed->s_prog;
    if (g->p_nbraces == g->p_bcap) {
        size_t cap = g->p_bcap ? g->p_bcap * 2 : 8;
        size_t *n = box_realloc(g->p_braces, cap * sizeof *n);
        if (n == NULL)
            return sp_fail(p, false, "out of memory");
        g->p_braces = n;
        g->p_bcap = cap;
    }
    g->p_braces[g->p_nbraces++] = g->p_ncmds - 1;
    p->p_sed->s_prog.p_cmds[g->p_ncmds - 1].c_jump = p->p_ci; // until '}'
    p->p_sed->s_prog.p_cmds[g->p_ncmds - 1].c_int = p->p_pos;
    return 0;
}

/* The arguments of the command letter cmd->c_name. */
static int
sp_args(sp *p, sed_cmd *cmd, int naddr)
{
    sed_prog *g = &p->p_sed->s_prog;
    uintmax_t v;
    switch (cmd->c_name) {
    case '{':
        return sp_brace_push(p);
    case '}':
        if (naddr > 0 || g->p_nbraces == 0)
            return sp_fail(p, false, "unexpected `}'");
        g->p_cmds[g->p_braces[--g->p_nbraces]].c_jump = g->p_ncmds;
        return sp_end_cmd(p);
    case ':': {
        if (naddr > 0)
            return sp_fail(p, false, ": doesn't want any addresses");
        cmd->c_text = sp_rest(p, true, false);
        if (cmd->c_text == NULL)
            return sp_fail(p, false, "out of memory");
        if (*cmd->c_text == '\0')
            return sp_fail(p, false, "\":\" lacks a label");
        return sp_end_cmd(p);
    }
    case 'b':
    case 't':
    case 'T':
        cmd->c_text = sp_rest(p, true, true);
        if (cmd->c_text == NULL)
            return sp_fail(p, false, "out of memory");
        return sp_end_cmd(p);
    case 'a':
    case 'i':
    case 'c':
        return sp_text(p, cmd);
    case 'q':
    case 'Q':
        if (naddr > 1)
            return sp_fail(p, false, "command only uses one address");
        /* fall through */
    case 'l':
    case 'L':
        sp_skip_ws(p);
        if (sp_number(p, &v)) {
            cmd->c_int = v;
            cmd->c_has_int = true;
        }
        return sp_end_cmd(p);
    case 'r':
        return sp_rfile(p, cmd, false);
    case 'R':
        return sp_rfile(p, cmd, true);
    case 'w':
    case 'W':
        return sp_wfile(p, &cmd->c_out);
    case 's':
        return sp_subst(p, cmd);
    case 'y':
        return sp_y(p, cmd);
    case 'v': {
        char *ver = sp_rest(p, true, true);
        int st = 0;
        if (ver == NULL)
            st = sp_fail(p, false, "out of memory");
        else if (*ver != '\0' && strverscmp(ver, "4.9") > 0)
            st = sp_fail(p, false, "expected newer version of sed");
        box_free(ver);
        cmd->c_name = ':'; // does nothing when run
        return st != 0 ? st : sp_end_cmd(p);
    }
    case 'e':
        return sp_fail(p, false,
                       "the `e' command (run a command) is not "
                       "supported in this box");
    default:
        if (strchr("=dDgGhHxnNpPzF", cmd->c_name) != NULL)
            return sp_end_cmd(p);
        return sp_fail(p, false, "unknown command: `%c'", cmd->c_name);
    }
}

/* cmd -> addr [',' addr2] ws* '!'* ws* letter args */
static int
sp_command(sp *p)
{
    sed_cmd *cmd = sp_new_cmd(p);
    if (cmd == NULL)
        return sp_fail(p, false, "out of memory");
    bool got;
    int naddr = 0, st = sp_addr(p, &cmd->c_a1, &got);
    if (st != 0)
        return st;
    if (got) {
        naddr = 1;
        sp_skip_ws(p);
        if (sp_peek(p) == ',') {
            sp_get(p);
            sp_skip_ws(p);
            int c = sp_get(p);
            if (c == '+' || c == '~') {
                if (!sp_number(p, &cmd->c_a2.a_n))
                    cmd->c_a2.a_n = 0; // GNU: no digits is 0
                cmd->c_a2.a_kind = c == '+' ? SA_PLUS : SA_MULT;
            } else {
                sp_unget(p);
                if ((st = sp_addr(p, &cmd->c_a2, &got)) != 0)
                    return st;
                if (!got) {
                    sp_get(p);
                    return sp_fail(p, false, "unexpected `,'");
                }
                if (cmd->c_a2.a_kind == SA_ZERO)
                    return sp_fail(p, false, "invalid usage of line address 0");
                if (cmd->c_a2.a_kind ==
                    SA_STEP) // N,first~step: GNU reads N,first
                    cmd->c_a2.a_kind = SA_LINE, cmd->c_a2.a_n = cmd->c_a2.a_n;
            }
            naddr = 2;
        }
    }
    sp_skip_ws(p);
    int c;
    while ((c = sp_get(p)) == '!') {
        if (cmd->c_neg)
            return sp_fail(p, false, "multiple `!'s");
        cmd->c_neg = true;
        sp_skip_ws(p);
    }
    if (c == SP_EOF || c == '\n' || c == ';') {
        if (c != SP_EOF)
            sp_unget(p);
        if (naddr > 0 || cmd->c_neg)
            return sp_fail(p, false, "missing command");
        p->p_sed->s_prog.p_ncmds--;
        return 0;
    }
    cmd->c_name = (char)c;
    if (cmd->c_a1.a_kind == SA_ZERO &&
        (naddr == 1 || cmd->c_a2.a_kind != SA_RE))
        return sp_fail(p, false, "invalid usage of line address 0");
    if (c == '#') {
        if (naddr > 0)
            return sp_fail(p, false, "comments don't accept any addresses");
        p->p_sed->s_prog.p_ncmds--;
        while ((c = sp_get(p)) != SP_EOF && c != '\n')
            ;
        return 0;
    }
    if (c == '}' && cmd->c_neg)
        return sp_fail(p, false, "unexpected `}'");
    // sp_args may grow the array: cmd is looked up again by index.
    size_t at = p->p_sed->s_prog.p_ncmds - 1;
    return sp_args(p, &p->p_sed->s_prog.p_cmds[at], naddr);
}

/* The labels of b, t and T; GNU's message for a missing one. */
static int
sp_labels(sp *p)
{
    sed_prog *g = &p->p_sed->s_prog;
    for (size_t i = 0; i < g->p_ncmds; i++) {
        sed_cmd *c = &g->p_cmds[i];
        if (c->c_name != 'b' && c->c_name != 't' && c->c_name != 'T')
            continue;
        c->c_jump = g->p_ncmds;
        if (*c->c_text == '\0')
            continue;
        size_t j = 0;
        for (; j < g->p_ncmds; j++)
            if (g->p_cmds[j].c_name == ':' && g->p_cmds[j].c_text != NULL &&
                strcmp(g->p_cmds[j].c_text, c->c_text) == 0)
                break;
        if (j == g->p_ncmds) {
            sed_err(p->p_sed, "can't find label for jump to `%s'", c->c_text);
            return SED_STATUS_IO; // GNU's status for it
        }
        c->c_jump = j;
    }
    return 0;
}

int
sed_compile(sed *s, const char *text, size_t len, const sed_chunk *ch,
            size_t nch)
{
    sp p = {.p_sed = s, .p_t = text, .p_ch = ch, .p_nch = nch};
    p.p_lim = nch > 0 ? ch[0].ch_start + ch[0].ch_len : 0;
    if (len >= 2 && text[0] == '#' && text[1] == 'n') // GNU: "#n" then anything
        s->s_prog.p_quiet_hash = true;
    for (;;) {
        int c;
        while ((c = sp_get(&p)) == ' ' || c == '\t' || c == '\n' || c == ';')
            ;
        if (c == SP_EOF && sp_next_chunk(&p))
            continue;
        if (c == SP_EOF)
            break;
        sp_unget(&p);
        int st = sp_command(&p);
        if (st != 0)
            return st;
    }
    if (s->s_prog.p_nbraces > 0) {
        // GNU names where the innermost open '{' stands, at char 0
        const sed_cmd *b =
            &s->s_prog.p_cmds[s->s_prog.p_braces[s->s_prog.p_nbraces - 1]];
        p.p_ci = b->c_jump;
        p.p_pos = (size_t)b->c_int;
        return sp_fail(&p, true, "unmatched `{'");
    }
    return sp_labels(&p);
}

static void
sp_out_free(sed_out *o)
{
    sh_stream_unref(o->o_stream);
    box_free(o->o_name);
    box_buf_reset(&o->o_buf);
}

void
sed_prog_free(sed_prog *g)
{
    for (size_t i = 0; i < g->p_ncmds; i++) {
        sed_cmd *c = &g->p_cmds[i];
        box_free(c->c_text);
        box_free(c->c_ymap);
        box_free(c->c_ymb);
        box_free(c->c_fname);
        if (c->c_sub != NULL) {
            box_free(c->c_sub->sb_reps);
            box_free(c->c_sub->sb_text);
            box_free(c->c_sub);
        }
    }
    box_free(g->p_cmds);
    box_free(g->p_braces);
    while (g->p_res != NULL) {
        sed_re *n = g->p_res->re_next;
        regfree(&g->p_res->re_rx);
        box_free(g->p_res);
        g->p_res = n;
    }
    while (g->p_outs != NULL) {
        sed_out *n = g->p_outs->o_next;
        sp_out_free(g->p_outs);
        box_free(g->p_outs);
        g->p_outs = n;
    }
    while (g->p_rfiles != NULL) {
        sed_rfile *n = g->p_rfiles->rf_next;
        sh_input_close(g->p_rfiles->rf_in);
        box_free(g->p_rfiles->rf_name);
        box_free(g->p_rfiles);
        g->p_rfiles = n;
    }
    memset(g, 0, sizeof *g);
}
