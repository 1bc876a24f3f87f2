/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: parses the bash differential's case files and known gaps. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bash_case.h"
#include "box_alloc.h"
#include "box_buf.h"

#define BD_NAME_MAX 80
#define BD_BODY_MAX (1u << 20)

/*
 * A case file is lines. A line starting '%' is a directive; every other
 * line belongs to the body the last directive opened. `%%` at the start
 * stands for a literal '%', `%#` starts a comment. A body's trailing
 * blank lines are dropped (cases are separated by blank lines); `-n`
 * after a body directive drops its last newline too. A script never keeps
 * its last newline, so a one-line script is one line to both shells.
 */

typedef enum body_kind {
    BODY_NONE,
    BODY_SCRIPT,
    BODY_FILE,
    BODY_STDIN,
    BODY_BOX_OUT,
    BODY_BOX_ERR,
} body_kind;

typedef struct parser {
    bd_cases *p_cs;
    const char *p_origin;
    unsigned p_line;
    bd_case *p_case; // the case being read, or NULL before the first
    bool p_script;   // p_case has its %script
    bd_text *p_body; // where body lines go, or NULL
    body_kind p_kind;
    bool p_strip_nl; // `-n`
    bool p_inline;   // the body was given on the directive line
    box_buf p_buf;
    char *p_err;
} parser;

static box_err __attribute__((format(printf, 2, 3)))
perr(parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *what = box_vasprintf(fmt, ap);
    va_end(ap);
    if (p->p_err == NULL)
        p->p_err = box_asprintf("%s:%u: %s", p->p_origin, p->p_line,
                                what != NULL ? what : "out of memory");
    box_free(what);
    return BOX_EPARSE;
}

static bool
name_valid(const char *s, size_t n)
{
    if (n == 0 || n > BD_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'))
            return false;
    }
    return true;
}

/* Relative, no empty, `.` or `..` component, no control bytes. */
static bool
path_valid(const char *s, size_t n)
{
    if (n == 0 || s[0] == '/' || s[n - 1] == '/')
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && (unsigned char)s[i] < 0x20)
            return false;
        if (i == n || s[i] == '/') {
            size_t l = i - start;
            if (l == 0 || (l == 1 && s[start] == '.') ||
                (l == 2 && s[start] == '.' && s[start + 1] == '.'))
                return false;
            start = i + 1;
        }
    }
    return true;
}

/* Closes the open body: trailing blank lines go, then `-n`'s newline. */
static box_err
body_end(parser *p)
{
    if (p->p_body == NULL)
        return BOX_OK;
    size_t n = p->p_buf.b_len;
    const char *d = p->p_buf.b_data;
    while (n > 0 && d[n - 1] == '\n' && (n == 1 || d[n - 2] == '\n'))
        n--;
    if (n > 0 && d[n - 1] == '\n' &&
        (p->p_strip_nl || p->p_kind == BODY_SCRIPT))
        n--;
    p->p_buf.b_len = n;
    char *t = box_buf_take(&p->p_buf);
    if (t == NULL)
        return perr(p, "out of memory");
    t[n] = '\0';
    p->p_body->t_data = t;
    p->p_body->t_len = n;
    p->p_body = NULL;
    p->p_kind = BODY_NONE;
    return BOX_OK;
}

static box_err
case_end(parser *p)
{
    if (p->p_case != NULL && !p->p_script)
        return perr(p, "case '%s' (%s) has no %%script", p->p_case->bc_name,
                    p->p_case->bc_origin);
    return BOX_OK;
}

static bd_case *
cur(parser *p)
{
    return p->p_case;
}

/* ---- directives: one row each ---- */

static box_err
dir_case(parser *p, const char *arg, size_t n)
{
    box_err rv = case_end(p);
    if (rv != BOX_OK)
        return rv;
    if (!name_valid(arg, n))
        return perr(p,
                    "%%case needs a name of letters, digits, '-', '_' "
                    "or '.' (at most %d)",
                    BD_NAME_MAX);
    char name[BD_NAME_MAX + 1];
    memcpy(name, arg, n);
    name[n] = '\0';
    const bd_case *old = bd_cases_find(p->p_cs, name);
    if (old != NULL)
        return perr(p, "case '%s' is already defined at %s", name,
                    old->bc_origin);
    bd_cases *cs = p->p_cs;
    if (cs->cs_n == cs->cs_cap) {
        size_t cap = cs->cs_cap ? cs->cs_cap * 2 : 64;
        bd_case *v = box_realloc(cs->cs_v, cap * sizeof *v);
        if (v == NULL)
            return perr(p, "out of memory");
        cs->cs_v = v;
        cs->cs_cap = cap;
    }
    bd_case *c = &cs->cs_v[cs->cs_n];
    memset(c, 0, sizeof *c);
    c->bc_name = box_strdup(name);
    c->bc_origin = box_asprintf("%s:%u", p->p_origin, p->p_line);
    if (c->bc_name == NULL || c->bc_origin == NULL) {
        box_free(c->bc_name);
        box_free(c->bc_origin);
        return perr(p, "out of memory");
    }
    cs->cs_n++;
    p->p_case = c;
    p->p_script = false;
    return BOX_OK;
}

/* Reads an optional leading "-n " flag off arg. */
static bool
take_flag_n(const char **arg, size_t *n)
{
    if (*n >= 2 && memcmp(*arg, "-n", 2) == 0 &&
        (*n == 2 || (*arg)[2] == ' ')) {
        *arg += *n == 2 ? 2 : 3;
        *n -= *n == 2 ? 2 : 3;
        return true;
    }
    return false;
}

static box_err
body_open(parser *p, bd_text *t, body_kind k, bool strip)
{
    p->p_body = t;
    p->p_kind = k;
    p->p_strip_nl = strip;
    p->p_inline = false;
    box_buf_init(&p->p_buf, BD_BODY_MAX);
    return BOX_OK;
}

static box_err
dir_script(parser *p, const char *arg, size_t n)
{
    if (p->p_script)
        return perr(p, "case '%s' has a second %%script", cur(p)->bc_name);
    p->p_script = true;
    body_open(p, &cur(p)->bc_script, BODY_SCRIPT, false);
    if (n > 0) { // `%script TEXT`: a one-line script
        if (box_buf_append(&p->p_buf, arg, n) != BOX_OK)
            return perr(p, "out of memory");
        p->p_inline = true;
    }
    return BOX_OK;
}

static box_err
dir_file(parser *p, const char *arg, size_t n)
{
    bool strip = false, exec = false;
    for (;;) { // -n and -x, in either order
        if (take_flag_n(&arg, &n))
            strip = true;
        else if (n >= 3 && memcmp(arg, "-x ", 3) == 0)
            arg += 3, n -= 3, exec = true;
        else
            break;
    }
    if (!path_valid(arg, n))
        return perr(p, "%%file needs a relative path without '.', '..' or "
                       "empty components");
    bd_case *c = cur(p);
    for (size_t i = 0; i < c->bc_nfiles; i++)
        if (strlen(c->bc_files[i].bf_path) == n &&
            memcmp(c->bc_files[i].bf_path, arg, n) == 0)
            return perr(p, "case '%s' has %%file %.*s twice", c->bc_name,
                        (int)n, arg);
    bd_file *v = box_realloc(c->bc_files, (c->bc_nfiles + 1) * sizeof *v);
    if (v == NULL)
        return perr(p, "out of memory");
    c->bc_files = v;
    bd_file *f = &v[c->bc_nfiles];
    memset(f, 0, sizeof *f);
    if ((f->bf_path = box_strndup(arg, n)) == NULL)
        return perr(p, "out of memory");
    f->bf_exec = exec;
    c->bc_nfiles++;
    return body_open(p, &f->bf_body, BODY_FILE, strip);
}

static box_err
dir_stdin(parser *p, const char *arg, size_t n)
{
    bool strip = take_flag_n(&arg, &n);
    if (n != 0)
        return perr(p, "%%stdin takes only -n; its text is on the lines "
                       "below");
    if (cur(p)->bc_has_stdin)
        return perr(p, "case '%s' has a second %%stdin", cur(p)->bc_name);
    cur(p)->bc_has_stdin = true;
    return body_open(p, &cur(p)->bc_stdin, BODY_STDIN, strip);
}

static box_err
dir_box_out(parser *p, const char *arg, size_t n)
{
    bool strip = take_flag_n(&arg, &n);
    if (n != 0)
        return perr(p, "%%box-stdout takes only -n; its text is on the "
                       "lines below");
    if (cur(p)->bc_has_box_out)
        return perr(p, "case '%s' has a second %%box-stdout", cur(p)->bc_name);
    cur(p)->bc_has_box_out = true;
    return body_open(p, &cur(p)->bc_box_out, BODY_BOX_OUT, strip);
}

static box_err
dir_box_err(parser *p, const char *arg, size_t n)
{
    bool strip = take_flag_n(&arg, &n);
    if (n != 0)
        return perr(p, "%%box-stderr takes only -n; its text is on the "
                       "lines below");
    if (cur(p)->bc_has_box_err)
        return perr(p, "case '%s' has a second %%box-stderr", cur(p)->bc_name);
    cur(p)->bc_has_box_err = true;
    return body_open(p, &cur(p)->bc_box_err, BODY_BOX_ERR, strip);
}

static box_err
dir_box_status(parser *p, const char *arg, size_t n)
{
    int v = 0;
    if (n == 0 || n > 3)
        return perr(p, "%%box-status needs a status 0..255");
    for (size_t i = 0; i < n; i++) {
        if (arg[i] < '0' || arg[i] > '9')
            return perr(p, "%%box-status needs a status 0..255");
        v = v * 10 + (arg[i] - '0');
    }
    if (v > 255)
        return perr(p, "%%box-status needs a status 0..255");
    if (cur(p)->bc_has_box_status)
        return perr(p, "case '%s' has a second %%box-status", cur(p)->bc_name);
    cur(p)->bc_has_box_status = true;
    cur(p)->bc_box_status = v;
    return BOX_OK;
}

static box_err
dir_compare_files(parser *p, const char *arg, size_t n)
{
    (void)arg;
    if (n != 0)
        return perr(p, "%%compare-files takes no argument");
    cur(p)->bc_compare_files = true;
    return BOX_OK;
}

static const struct directive {
    const char *d_name;
    box_err (*d_fn)(parser *p, const char *arg, size_t n);
    bool d_in_case; // only after a %case
} directives[] = {
    {"case", dir_case, false},
    {"script", dir_script, true},
    {"file", dir_file, true},
    {"stdin", dir_stdin, true},
    {"compare-files", dir_compare_files, true},
    {"box-stdout", dir_box_out, true},
    {"box-stderr", dir_box_err, true},
    {"box-status", dir_box_status, true},
};

static box_err
directive(parser *p, const char *s, size_t n)
{
    size_t w = 0;
    while (w < n && s[w] != ' ')
        w++;
    const char *arg = s + w;
    size_t an = n - w;
    while (an > 0 && *arg == ' ')
        arg++, an--;
    while (an > 0 && arg[an - 1] == ' ')
        an--;
    for (size_t i = 0; i < sizeof directives / sizeof directives[0]; i++) {
        const struct directive *d = &directives[i];
        if (strlen(d->d_name) != w || memcmp(d->d_name, s, w) != 0)
            continue;
        if (d->d_in_case && p->p_case == NULL)
            return perr(p, "%%%s before the first %%case", d->d_name);
        box_err rv = body_end(p);
        return rv != BOX_OK ? rv : d->d_fn(p, arg, an);
    }
    return perr(p,
                "unknown directive '%%%.*s' (known: %%case %%script "
                "%%file %%stdin %%compare-files %%box-stdout "
                "%%box-stderr %%box-status; %%%% for a literal %%, %%# "
                "for a comment)",
                (int)w, s);
}

static box_err
body_line(parser *p, const char *s, size_t n)
{
    bool blank = true;
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            blank = false;
    if (p->p_body == NULL) {
        if (blank)
            return BOX_OK;
        return perr(p, p->p_case == NULL
                           ? "text before the first %%case"
                           : "text outside a body (after a directive that "
                             "takes none)");
    }
    if (p->p_inline) {
        if (blank)
            return BOX_OK;
        return perr(p, "a one-line %%script takes no lines below it");
    }
    if (box_buf_append(&p->p_buf, s, n) != BOX_OK ||
        box_buf_putc(&p->p_buf, '\n') != BOX_OK)
        return perr(p, "body too large (over %u bytes)", BD_BODY_MAX);
    return BOX_OK;
}

box_err
bd_cases_parse(bd_cases *cs, const char *origin, const char *text, size_t len,
               char **err)
{
    parser p = {.p_cs = cs, .p_origin = origin};
    box_err rv = BOX_OK;
    size_t i = 0;
    *err = NULL;
    while (i < len && rv == BOX_OK) {
        const char *s = text + i;
        const char *nl = memchr(s, '\n', len - i);
        size_t n = nl != NULL ? (size_t)(nl - s) : len - i;
        i += n + (nl != NULL ? 1 : 0);
        p.p_line++;
        if (n > 0 && s[0] == '%' && !(n > 1 && s[1] == '%')) {
            if (n > 1 && s[1] == '#')
                continue; // a comment, wherever it is
            rv = directive(&p, s + 1, n - 1);
        } else if (n > 1 && s[0] == '%') {
            rv = body_line(&p, s + 1, n - 1); // `%%…` is `%…`
        } else {
            rv = body_line(&p, s, n);
        }
    }
    if (rv == BOX_OK)
        rv = body_end(&p);
    if (rv == BOX_OK)
        rv = case_end(&p);
    box_buf_reset(&p.p_buf);
    if (rv != BOX_OK)
        *err = p.p_err != NULL ? p.p_err : box_strdup("out of memory");
    else
        box_free(p.p_err);
    return rv;
}

const bd_case *
bd_cases_find(const bd_cases *cs, const char *name)
{
    for (size_t i = 0; i < cs->cs_n; i++)
        if (strcmp(cs->cs_v[i].bc_name, name) == 0)
            return &cs->cs_v[i];
    return NULL;
}

void
bd_cases_free(bd_cases *cs)
{
    for (size_t i = 0; i < cs->cs_n; i++) {
        bd_case *c = &cs->cs_v[i];
        box_free(c->bc_name);
        box_free(c->bc_origin);
        box_free(c->bc_script.t_data);
        for (size_t j = 0; j < c->bc_nfiles; j++) {
            box_free(c->bc_files[j].bf_path);
            box_free(c->bc_files[j].bf_body.t_data);
        }
        box_free(c->bc_files);
        box_free(c->bc_stdin.t_data);
        box_free(c->bc_box_out.t_data);
        box_free(c->bc_box_err.t_data);
    }
    box_free(cs->cs_v);
    memset(cs, 0, sizeof *cs);
}

/* ---- known gaps ---- */

box_err
bd_gaps_parse(bd_gaps *gs, const char *origin, const char *text, size_t len,
              char **err)
{
    unsigned line = 0;
    size_t i = 0;
    *err = NULL;
    while (i < len) {
        const char *s = text + i;
        const char *nl = memchr(s, '\n', len - i);
        size_t n = nl != NULL ? (size_t)(nl - s) : len - i;
        i += n + (nl != NULL ? 1 : 0);
        line++;
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\r'))
            n--;
        if (n == 0 || s[0] == '#')
            continue;
        size_t w = 0;
        while (w < n && s[w] != ' ' && s[w] != '\t')
            w++;
        size_t r = w;
        while (r < n && (s[r] == ' ' || s[r] == '\t'))
            r++;
        const char *reason = s + r;
        size_t rn = n - r;
        const char *colon = memchr(reason, ':', rn);
        bool spec = rn > 6 && memcmp(reason, "spec \xc2\xa7", 7) == 0;
        // "issue-N ITEM": the open issue the remaining work belongs to.
        size_t d = 6;
        while (d < rn && reason[d] >= '0' && reason[d] <= '9')
            d++;
        bool issue = rn > 6 && memcmp(reason, "issue-", 6) == 0 && d > 6 &&
                     d < rn && reason[d] == ' ';
        if (!name_valid(s, w) || rn == 0 || colon == NULL ||
            (size_t)(colon - reason) + 1 >= rn || (!spec && !issue)) {
            *err = box_asprintf("%s:%u: expected 'NAME issue-N ITEM: why' "
                                "or 'NAME spec \xc2\xa7N.N: why'",
                                origin, line);
            return BOX_EPARSE;
        }
        char name[BD_NAME_MAX + 1];
        memcpy(name, s, w);
        name[w] = '\0';
        const bd_gap *old = bd_gaps_find(gs, name);
        if (old != NULL) {
            *err = box_asprintf("%s:%u: '%s' is already listed at line %u",
                                origin, line, name, old->bg_line);
            return BOX_EPARSE;
        }
        if (gs->gs_n == gs->gs_cap) {
            size_t cap = gs->gs_cap ? gs->gs_cap * 2 : 64;
            bd_gap *v = box_realloc(gs->gs_v, cap * sizeof *v);
            if (v == NULL)
                goto nomem;
            gs->gs_v = v;
            gs->gs_cap = cap;
        }
        bd_gap *g = &gs->gs_v[gs->gs_n];
        memset(g, 0, sizeof *g);
        g->bg_name = box_strdup(name);
        g->bg_reason = box_strndup(reason, rn);
        g->bg_category = box_strndup(reason, (size_t)(colon - reason));
        g->bg_spec = spec;
        g->bg_line = line;
        gs->gs_n++;
        if (g->bg_name == NULL || g->bg_reason == NULL ||
            g->bg_category == NULL)
            goto nomem;
    }
    return BOX_OK;
nomem:
    *err = box_strdup("out of memory");
    return BOX_ENOMEM;
}

const bd_gap *
bd_gaps_find(const bd_gaps *gs, const char *name)
{
    for (size_t i = 0; i < gs->gs_n; i++)
        if (strcmp(gs->gs_v[i].bg_name, name) == 0)
            return &gs->gs_v[i];
    return NULL;
}

void
bd_gaps_free(bd_gaps *gs)
{
    for (size_t i = 0; i < gs->gs_n; i++) {
        box_free(gs->gs_v[i].bg_name);
        box_free(gs->gs_v[i].bg_reason);
        box_free(gs->gs_v[i].bg_category);
    }
    box_free(gs->gs_v);
    memset(gs, 0, sizeof *gs);
}
