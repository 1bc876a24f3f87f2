/* SPDX-License-Identifier: Apache-2.0 */
/* sed's engine: the cycle (read a line, run the commands, print), the
 * addresses and ranges, and what each command does. One table maps a
 * command letter to its action. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_sed.h"

/* What an action tells the cycle. */
typedef enum sed_next {
    SN_NEXT,   // on to the next command
    SN_JUMP,   // to *pc, set by the action
    SN_END,    // end of the script: autoprint, next cycle
    SN_DELETE, // d: no autoprint, next cycle
    SN_AGAIN,  // D: no autoprint, next cycle without reading
    SN_QUIT,   // q: autoprint, then stop
    SN_STOP,   // Q, end of input in n/N, or an error: stop now
} sed_next;

static bool
ps_oom(sed *s)
{
    s->s_run.cr_status = sed_err(s, "pattern space too large (limit %u MiB)",
                                 SED_HOLD_MAX >> 20);
    return false;
}

/* ---- addresses ---- */

static bool
addr_is(sed *s, const sed_addr *a, int *err)
{
    switch (a->a_kind) {
    case SA_LINE:
        return s->s_lineno == a->a_n;
    case SA_LAST:
        return sed_last_line(s);
    case SA_STEP:
        if (a->a_step == 0)
            return s->s_lineno == a->a_n;
        return s->s_lineno >= a->a_n && (s->s_lineno - a->a_n) % a->a_step == 0;
    case SA_RE: {
        int m =
            sed_re_match(s, a->a_re, s->s_ps.b_data, 0, s->s_ps.b_len, false);
        if (m < 0)
            *err = 1;
        return m == 1;
    }
    default:
        return false;
    }
}

/*
 * Whether cmd applies to this line (before '!'). GNU's ranges: one opens
 * on a line its first address matches (a line number: on the first line
 * at or past it, since N may skip it; once closed such a range never
 * opens again) and closes on the line its second matches (a regex or $
 * from the next line on; a line number at or before the opening line
 * closes it at once, and a line past it ends the range unmatched).
 */
static bool
addr_match(sed *s, sed_cmd *c, int *err)
{
    const sed_addr *a1 = &c->c_a1, *a2 = &c->c_a2;
    uintmax_t ln = s->s_lineno;
    if (a1->a_kind == SA_NONE)
        return true;
    if (a2->a_kind == SA_NONE)
        return addr_is(s, a1, err);
    if (a1->a_kind == SA_ZERO && !c->c_closed && !c->c_active)
        c->c_active = true; // 0,/re/: open before the first line
    if (c->c_active) {
        bool end;
        switch (a2->a_kind) {
        case SA_LINE:
            if (ln < a2->a_n)
                return true;
            c->c_active = false;
            c->c_closed = true;
            return ln == a2->a_n;
        case SA_PLUS:
            end = ln >= c->c_end;
            break;
        case SA_MULT:
            end = ln % a2->a_n == 0;
            break;
        default:
            end = addr_is(s, a2, err);
            break;
        }
        if (end) {
            c->c_active = false;
            c->c_closed = true;
        }
        return true;
    }
    if (a1->a_kind == SA_LINE) {
        if (c->c_closed || ln < a1->a_n)
            return false;
    } else if (!addr_is(s, a1, err)) {
        return false;
    }
    switch (a2->a_kind) {
    case SA_LINE:
        c->c_active = a2->a_n > ln;
        break;
    case SA_PLUS:
        c->c_end = ln + a2->a_n;
        c->c_active = a2->a_n > 0;
        break;
    case SA_MULT: // to the next multiple of N after this line
        c->c_active = a2->a_n > 0;
        break;
    default:
        c->c_active = true;
        break;
    }
    c->c_closed = !c->c_active;
    return true;
}

/* ---- output helpers ---- */

static bool
put_ps(sed *s, sed_out *o)
{
    return sed_put_line(s, o, s->s_ps.b_data, s->s_ps.b_len, s->s_ps_nl);
}

/* The first line of the pattern space (P, W). */
static size_t
first_line_len(sed *s)
{
    const char *nl = s->s_ps.b_len > 0
                         ? memchr(s->s_ps.b_data, s->s_delim, s->s_ps.b_len)
                         : NULL;
    return nl != NULL ? (size_t)(nl - s->s_ps.b_data) : s->s_ps.b_len;
}

/* l: the pattern space unambiguously, wrapped at width - 1 columns with a
 * '\' (width 0: never), ending in '$'. */
static bool
do_list(sed *s, uintmax_t width)
{
    box_buf b;
    box_buf_init(&b, SED_HOLD_MAX);
    size_t col = 0;
    bool ok = true;
    const unsigned char *p = (const unsigned char *)s->s_ps.b_data;
    for (size_t i = 0; i < s->s_ps.b_len && ok; i++) {
        char e[8];
        static const char from[] = "\\\a\b\f\n\r\t\v", to[] = "\\abfnrtv";
        const char *k = p[i] != 0 ? strchr(from, p[i]) : NULL;
        if (k != NULL)
            snprintf(e, sizeof e, "\\%c", to[k - from]);
        else if (isprint(p[i]) && p[i] < 0x80)
            snprintf(e, sizeof e, "%c", p[i]);
        else
            snprintf(e, sizeof e, "\\%03o", p[i]);
        size_t w = strlen(e);
        if (width > 0 && col + w > width - 1) {
            ok = box_buf_puts(&b, "\\\n") == BOX_OK;
            col = 0;
        }
        ok = ok && box_buf_puts(&b, e) == BOX_OK;
        col += w;
    }
    ok = ok && box_buf_putc(&b, '$') == BOX_OK &&
         box_buf_putc(&b, s->s_delim) == BOX_OK;
    if (!ok) {
        box_buf_reset(&b);
        return ps_oom(s);
    }
    ok = sed_put(s, s->s_cur, b.b_data, b.b_len);
    box_buf_reset(&b);
    return ok;
}

/* ---- the append queue (a, r, R): written at the end of the cycle ---- */

static bool
aq_add(sed *s, const char *text, size_t len, const char *file)
{
    if (s->s_naq == s->s_aq_cap) {
        size_t cap = s->s_aq_cap ? s->s_aq_cap * 2 : 8;
        size_t *e = box_realloc(s->s_aq_ents, cap * sizeof *e);
        if (e != NULL)
            s->s_aq_ents = e;
        size_t *l = box_realloc(s->s_aq_lens, cap * sizeof *l);
        if (l != NULL)
            s->s_aq_lens = l;
        const char **f = box_realloc(s->s_aq_files, cap * sizeof *f);
        if (f != NULL)
            s->s_aq_files = f;
        if (e == NULL || l == NULL || f == NULL)
            return ps_oom(s);
        s->s_aq_cap = cap;
    }
    size_t off = s->s_aq.b_len;
    if (text != NULL && box_buf_append(&s->s_aq, text, len) != BOX_OK)
        return ps_oom(s);
    s->s_aq_ents[s->s_naq] = off;
    s->s_aq_lens[s->s_naq] = len;
    s->s_aq_files[s->s_naq] = file;
    s->s_naq++;
    return true;
}

/* An r file's bytes to the output as they are; one that does not open
 * is skipped silently, as GNU does (a probe first: a denial or a missing
 * file says nothing). */
static bool
aq_file(sed *s, const char *name)
{
    sh_ctx *cx = s->s_run.cr_cx;
    sh_kernel_stat kst;
    sh_kernel_result r = {0};
    int e = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, name, &kst, &r);
    bool fault = r.kr_outcome == SH_KR_FAULT;
    if (fault)
        s->s_run.cr_status = sh_fs_fail(cx, "sed", name, &r);
    sh_kernel_result_clear(&r);
    if (fault)
        return false;
    if (e != 0 || S_ISDIR(kst.ks_mode))
        return true;
    int st;
    sh_input *in = sh_input_open(cx, "sed", name, &st);
    if (in == NULL) {
        if (st == BOX_STATUS_FAULT)
            s->s_run.cr_status = st;
        return st != BOX_STATUS_FAULT;
    }
    char buf[8192];
    ssize_t n;
    bool ok = true;
    while (ok && (n = sh_input_read(in, buf, sizeof buf)) > 0)
        ok = sed_put(s, s->s_cur, buf, (size_t)n);
    sh_input_close(in);
    return ok;
}

static bool
aq_flush(sed *s)
{
    bool ok = true;
    for (size_t i = 0; i < s->s_naq && ok; i++) {
        if (s->s_aq_files[i] != NULL)
            ok = aq_file(s, s->s_aq_files[i]);
        else
            ok = sed_put(s, s->s_cur, s->s_aq.b_data + s->s_aq_ents[i],
                         s->s_aq_lens[i]);
    }
    s->s_naq = 0;
    box_buf_truncate(&s->s_aq, 0);
    return ok;
}

/* R: the file's next line, queued (nothing once it is used up). */
static bool
do_readline(sed *s, sed_rfile *f)
{
    if (!f->rf_tried) {
        int st;
        f->rf_tried = true;
        sh_ctx *cx = s->s_run.cr_cx;
        sh_kernel_stat kst;
        sh_kernel_result r = {0};
        int e = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, f->rf_name,
                                    &kst, &r);
        bool fault = r.kr_outcome == SH_KR_FAULT;
        sh_kernel_result_clear(&r);
        if (fault) {
            s->s_run.cr_status = BOX_STATUS_FAULT;
            return false;
        }
        if (e == 0 && !S_ISDIR(kst.ks_mode))
            f->rf_in = sh_input_open(cx, "sed", f->rf_name, &st);
    }
    if (f->rf_in == NULL)
        return true;
    const char *line;
    size_t len;
    int rc = sh_input_line(f->rf_in, &line, &len);
    if (rc <= 0)
        return true;
    return aq_add(s, line, len, NULL); // as read: GNU adds no newline
}

/* ---- the commands ---- */

typedef sed_next (*sed_action)(sed *s, sed_cmd *c, size_t *pc);

static sed_next
x_block(sed *s, sed_cmd *c, size_t *pc)
{
    (void)s, (void)c, (void)pc;
    return SN_NEXT; // matched: into the block
}

static sed_next
x_nop(sed *s, sed_cmd *c, size_t *pc)
{
    (void)s, (void)c, (void)pc;
    return SN_NEXT;
}

static sed_next
x_lineno(sed *s, sed_cmd *c, size_t *pc)
{
    (void)c, (void)pc;
    char n[32];
    int k = snprintf(n, sizeof n, "%ju%c", s->s_lineno, s->s_delim);
    return sed_put(s, s->s_cur, n, (size_t)k) ? SN_NEXT : SN_STOP;
}

static sed_next
x_append(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    return aq_add(s, c->c_text, c->c_textlen, NULL) ? SN_NEXT : SN_STOP;
}

static sed_next
x_insert(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    return sed_put(s, s->s_cur, c->c_text, c->c_textlen) ? SN_NEXT : SN_STOP;
}

static sed_next
x_change(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    // In a range the text goes out once, at its end (not under '!').
    if ((c->c_a2.a_kind == SA_NONE || !c->c_active || c->c_neg) &&
        !sed_put(s, s->s_cur, c->c_text, c->c_textlen))
        return SN_STOP;
    return SN_DELETE;
}

static sed_next
x_branch(sed *s, sed_cmd *c, size_t *pc)
{
    bool go = c->c_name == 'b' || (c->c_name == 't') == s->s_replaced;
    if (c->c_name != 'b')
        s->s_replaced = false;
    if (!go)
        return SN_NEXT;
    *pc = c->c_jump;
    return SN_JUMP;
}

static sed_next
x_delete(sed *s, sed_cmd *c, size_t *pc)
{
    (void)s, (void)c, (void)pc;
    return SN_DELETE;
}

static sed_next
x_delete_first(sed *s, sed_cmd *c, size_t *pc)
{
    (void)c, (void)pc;
    size_t n = first_line_len(s);
    if (n == s->s_ps.b_len)
        return SN_DELETE;
    memmove(s->s_ps.b_data, s->s_ps.b_data + n + 1, s->s_ps.b_len - n - 1);
    box_buf_truncate(&s->s_ps, s->s_ps.b_len - n - 1);
    return SN_AGAIN;
}

static sed_next
x_hold(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    box_buf *from = c->c_name == 'g' || c->c_name == 'G' ? &s->s_hs : &s->s_ps;
    box_buf *to = from == &s->s_hs ? &s->s_ps : &s->s_hs;
    bool add = c->c_name == 'G' || c->c_name == 'H';
    // GNU: a space whose line lacked its newline passes that on
    if (to == &s->s_ps)
        s->s_ps_nl = s->s_hs_nl;
    else
        s->s_hs_nl = s->s_ps_nl;
    if (!add)
        box_buf_truncate(to, 0);
    if ((add && box_buf_putc(to, s->s_delim) != BOX_OK) ||
        (from->b_len > 0 &&
         box_buf_append(to, from->b_data, from->b_len) != BOX_OK)) {
        ps_oom(s);
        return SN_STOP;
    }
    return SN_NEXT;
}

static sed_next
x_exchange(sed *s, sed_cmd *c, size_t *pc)
{
    (void)c, (void)pc;
    box_buf t = s->s_ps;
    s->s_ps = s->s_hs;
    s->s_hs = t;
    bool nl = s->s_ps_nl;
    s->s_ps_nl = s->s_hs_nl;
    s->s_hs_nl = nl;
    return SN_NEXT;
}

static sed_next
x_list(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    return do_list(s, c->c_has_int ? c->c_int : s->s_lwidth) ? SN_NEXT
                                                             : SN_STOP;
}

/* n, N: the next line (n prints this one first). At the end of the
 * input GNU prints the pattern space (unless -n) and stops. */
static sed_next
x_next(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    if (sed_last_line(s)) // GNU: the cycle ends, the rest is not run
        return c->c_name == 'N' && s->s_prog.p_posix ? SN_DELETE : SN_END;
    if (c->c_name == 'n' && !s->s_quiet && !put_ps(s, s->s_cur))
        return SN_STOP;
    if (!aq_flush(s))
        return SN_STOP;
    int rc = sed_read_line(s, c->c_name == 'N');
    if (rc < 0)
        return SN_STOP;
    return rc == 0 ? SN_END : SN_NEXT;
}

static sed_next
x_print(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    if (c->c_name == 'p')
        return put_ps(s, s->s_cur) ? SN_NEXT : SN_STOP;
    size_t n = first_line_len(s);
    return sed_put_line(s, s->s_cur, s->s_ps.b_data, n,
                        n < s->s_ps.b_len || s->s_ps_nl)
               ? SN_NEXT
               : SN_STOP;
}

static sed_next
x_quit(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    s->s_exit = (int)(c->c_int & 0xff);
    s->s_quit = true;
    return c->c_name == 'q' ? SN_QUIT : SN_STOP;
}

static sed_next
x_readfile(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    if (c->c_name == 'R')
        return do_readline(s, c->c_rfile) ? SN_NEXT : SN_STOP;
    return aq_add(s, NULL, 0, c->c_fname) ? SN_NEXT : SN_STOP;
}

static sed_next
x_subst(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    const sed_subst *sb = c->c_sub;
    int rc = sed_substitute(s, sb);
    if (rc < 0)
        return SN_STOP;
    if (rc == 0)
        return SN_NEXT;
    s->s_replaced = true;
    if (sb->sb_print && !put_ps(s, s->s_cur))
        return SN_STOP;
    if (sb->sb_w != NULL && !put_ps(s, sb->sb_w))
        return SN_STOP;
    return SN_NEXT;
}

static sed_next
x_translate(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    unsigned char *p = (unsigned char *)s->s_ps.b_data;
    if (c->c_ymap != NULL) {
        for (size_t i = 0; i < s->s_ps.b_len; i++)
            p[i] = c->c_ymap[p[i]];
        return SN_NEXT;
    }
    const sed_ymb *m = c->c_ymb;
    box_buf *t = &s->s_tmp;
    box_buf_truncate(t, 0);
    for (size_t i = 0; i < s->s_ps.b_len;) {
        const char *ch = s->s_ps.b_data + i;
        size_t k = sed_char_len(ch, s->s_ps.b_len - i), j = 0;
        while (j < m->ym_n && (m->ym_pairs[j].yp_fl != k ||
                               memcmp(m->ym_pairs[j].yp_from, ch, k) != 0))
            j++;
        box_err rc = j < m->ym_n ? box_buf_append(t, m->ym_pairs[j].yp_to,
                                                  m->ym_pairs[j].yp_tl)
                                 : box_buf_append(t, ch, k);
        if (rc != BOX_OK) {
            ps_oom(s);
            return SN_STOP;
        }
        i += k;
    }
    box_buf tmp = s->s_ps;
    s->s_ps = *t;
    *t = tmp;
    return SN_NEXT;
}

static sed_next
x_write(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    size_t n = c->c_name == 'W' ? first_line_len(s) : s->s_ps.b_len;
    bool nl = n < s->s_ps.b_len || s->s_ps_nl;
    return sed_put_line(s, c->c_out, s->s_ps.b_data, n, nl) ? SN_NEXT : SN_STOP;
}

/* L (GNU's old fmt command) compiles but was never kept: GNU 4.9 stops
 * with this when it runs. */
static sed_next
x_bad(sed *s, sed_cmd *c, size_t *pc)
{
    (void)pc;
    s->s_run.cr_status = sh_cmd_err(s->s_run.cr_cx, "sed", SED_STATUS_IO,
                                    "INTERNAL ERROR: Bad cmd %c", c->c_name);
    return SN_STOP;
}

static sed_next
x_zap(sed *s, sed_cmd *c, size_t *pc)
{
    (void)c, (void)pc;
    box_buf_truncate(&s->s_ps, 0);
    return SN_NEXT;
}

static sed_next
x_filename(sed *s, sed_cmd *c, size_t *pc)
{
    (void)c, (void)pc;
    const char *n = s->s_line_name != NULL ? s->s_line_name : "-";
    return sed_put(s, s->s_cur, n, strlen(n)) &&
                   sed_put(s, s->s_cur, &s->s_delim, 1)
               ? SN_NEXT
               : SN_STOP;
}

/* Every command letter's action. */
static const struct {
    char letter;
    sed_action act;
} sed_actions[] = {
    {'{', x_block},     {'}', x_nop},      {':', x_nop},
    {'=', x_lineno},    {'a', x_append},   {'i', x_insert},
    {'c', x_change},    {'b', x_branch},   {'t', x_branch},
    {'T', x_branch},    {'d', x_delete},   {'D', x_delete_first},
    {'g', x_hold},      {'G', x_hold},     {'h', x_hold},
    {'H', x_hold},      {'x', x_exchange}, {'l', x_list},
    {'n', x_next},      {'N', x_next},     {'p', x_print},
    {'P', x_print},     {'q', x_quit},     {'Q', x_quit},
    {'r', x_readfile},  {'R', x_readfile}, {'s', x_subst},
    {'y', x_translate}, {'w', x_write},    {'W', x_write},
    {'z', x_zap},       {'F', x_filename}, {'L', x_bad},
};

static sed_action
sed_action_of(char letter)
{
    for (size_t i = 0; i < sizeof sed_actions / sizeof sed_actions[0]; i++)
        if (sed_actions[i].letter == letter)
            return sed_actions[i].act;
    return x_nop;
}

/* The script over the pattern space once. */
static sed_next
run_script(sed *s, sed_action *acts)
{
    sed_prog *g = &s->s_prog;
    size_t pc = 0;
    unsigned steps = 0;
    while (pc < g->p_ncmds) {
        // A loop that reads no input (`:a;ba`) still ends with the call.
        if (++steps % 4096 == 0 && !sh_cmd_live(&s->s_run))
            return SN_STOP;
        sed_cmd *c = &g->p_cmds[pc];
        int err = 0;
        bool m = addr_match(s, c, &err) != c->c_neg;
        if (err)
            return SN_STOP;
        if (!m) {
            pc = c->c_name == '{' ? c->c_jump : pc + 1;
            continue;
        }
        sed_next n = acts[pc](s, c, &pc);
        if (n == SN_JUMP)
            continue;
        if (n != SN_NEXT)
            return n;
        pc++;
    }
    return SN_END;
}

bool
sed_execute(sed *s)
{
    sed_prog *g = &s->s_prog;
    sed_action *acts = box_calloc(g->p_ncmds + 1, sizeof *acts);
    if (acts == NULL) {
        s->s_run.cr_status = sed_err(s, "out of memory");
        return false;
    }
    for (size_t i = 0; i < g->p_ncmds; i++)
        acts[i] = sed_action_of(g->p_cmds[i].c_name);
    bool ok = true, again = false;
    for (;;) {
        if (!again) {
            int rc = sed_read_line(s, false);
            if (rc < 0) {
                ok = false;
                break;
            }
            if (rc == 0)
                break;
        }
        again = false;
        if (!sh_cmd_live(&s->s_run)) {
            ok = false;
            break;
        }
        sed_next n = run_script(s, acts);
        if (n == SN_STOP) {
            ok = s->s_quit; // Q; else an error, or the end of the call
            break;          // Q drops the append queue, as GNU's does
        }
        // q ends its line with a newline even where the input had none
        if ((n == SN_END || n == SN_QUIT) && !s->s_quiet &&
            !sed_put_line(s, s->s_cur, s->s_ps.b_data, s->s_ps.b_len,
                          s->s_ps_nl || n == SN_QUIT)) {
            ok = false;
            break;
        }
        if (!aq_flush(s)) {
            ok = false;
            break;
        }
        if (n == SN_QUIT)
            break;
        again = n == SN_AGAIN;
    }
    box_free(acts);
    return ok;
}
