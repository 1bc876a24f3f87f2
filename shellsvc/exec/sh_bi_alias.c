/* SPDX-License-Identifier: Apache-2.0 */
/* alias and unalias, and expanding an alias where a command starts. */
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * bash expands aliases while it reads, and in a non-interactive shell
 * only with `shopt -s expand_aliases`; a definition counts from the next
 * command read (a line of `bash -c` text), never in its own line. This
 * shell reads a line at a time too, and expands when a simple command
 * starts: its first word, written as an unquoted literal, names an alias
 * defined before the top-level command now running. The alias text and
 * the command's other words (already expanded, then quoted) run as shell
 * text, so every command in it is admitted as itself (`alias safe=rm;
 * safe x` is judged as rm, spec §3.5); the alias name is never a command.
 * An alias being expanded is not expanded again inside itself.
 */

static sh_alias *
alias_find(sh_bistate *bs, const char *name, size_t len)
{
    if (bs == NULL)
        return NULL;
    for (size_t i = 0; i < bs->bs_nalias; i++)
        if (strlen(bs->bs_alias[i].al_name) == len &&
            memcmp(bs->bs_alias[i].al_name, name, len) == 0)
            return &bs->bs_alias[i];
    return NULL;
}

/* Appends s single-quoted as bash quotes ('\'' for a quote). */
static box_err
put_quoted(box_buf *b, const char *s)
{
    box_err e = box_buf_putc(b, '\'');
    for (; *s && e == BOX_OK; s++)
        e = *s == '\'' ? box_buf_puts(b, "'\\''") : box_buf_putc(b, *s);
    return e == BOX_OK ? box_buf_putc(b, '\'') : e;
}

box_err
sh_alias_line(box_buf *b, const sh_alias *a)
{
    box_err e = box_buf_printf(b, "alias %s=", a->al_name);
    if (e == BOX_OK)
        e = put_quoted(b, a->al_value);
    return e == BOX_OK ? box_buf_putc(b, '\n') : e;
}

static int
print_alias(sh_ctx *cx, const sh_alias *a)
{
    box_buf b;
    box_buf_init(&b, SH_MAX_INPUT);
    box_err e = sh_alias_line(&b, a);
    int rc = e == BOX_OK ? sh_write(cx, 1, b.b_data, b.b_len) : SH_IO_ERR;
    box_buf_reset(&b);
    return rc == SH_IO_OK ? 0 : 1;
}

static int
by_name(const void *a, const void *b)
{
    return strcmp(((const sh_alias *)a)->al_name,
                  ((const sh_alias *)b)->al_name);
}

/* bash refuses these in an alias name (they end or quote a word). */
static bool
name_ok(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (strchr("/$`='\"\\ \t\n|&;()<>", s[i]) != NULL)
            return false;
    return true;
}

static int
define(sh_ctx *cx, sh_bistate *bs, const char *arg, const char *eq)
{
    size_t n = (size_t)(eq - arg);
    if (!name_ok(arg, n))
        return sh_cmd_err(cx, "alias", 1, "`%.*s': invalid alias name", (int)n,
                          arg);
    char *value = box_strdup(eq + 1);
    if (value == NULL)
        return sh_cmd_err(cx, "alias", 1, "out of memory");
    sh_alias *a = alias_find(bs, arg, n);
    if (a == NULL) {
        if (bs->bs_nalias == bs->bs_capalias) {
            size_t cap = bs->bs_capalias ? bs->bs_capalias * 2 : 8;
            sh_alias *na = box_realloc(bs->bs_alias, cap * sizeof *na);
            if (na == NULL) {
                box_free(value);
                return sh_cmd_err(cx, "alias", 1, "out of memory");
            }
            bs->bs_alias = na;
            bs->bs_capalias = cap;
        }
        a = &bs->bs_alias[bs->bs_nalias];
        memset(a, 0, sizeof *a);
        if ((a->al_name = box_strndup(arg, n)) == NULL) {
            box_free(value);
            return sh_cmd_err(cx, "alias", 1, "out of memory");
        }
        bs->bs_nalias++;
    }
    box_free(a->al_value);
    a->al_value = value;
    a->al_serial = atomic_load(&cx->cx_ss->ss_cmdno);
    return 0;
}

int
sh_bi_alias(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    sh_bistate *bs = cx->cx_bi;
    if (o->o_ind >= argc) { // alias, alias -p: every alias, sorted
        if (bs == NULL || bs->bs_nalias == 0)
            return 0;
        qsort(bs->bs_alias, bs->bs_nalias, sizeof *bs->bs_alias, by_name);
        int st = 0;
        for (size_t i = 0; i < bs->bs_nalias; i++)
            st |= print_alias(cx, &bs->bs_alias[i]);
        return st;
    }
    int st = 0;
    for (int i = o->o_ind; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        if (eq == NULL) {
            sh_alias *a = alias_find(bs, argv[i], strlen(argv[i]));
            if (a == NULL)
                st = sh_cmd_err(cx, "alias", 1, "%s: not found", argv[i]);
            else
                st |= print_alias(cx, a);
            continue;
        }
        if ((bs = sh_bistate_get(cx)) == NULL)
            return 1;
        int rc = define(cx, bs, argv[i], eq);
        if (rc != 0)
            st = rc;
    }
    return st;
}

static void
alias_drop(sh_bistate *bs, size_t i)
{
    box_free(bs->bs_alias[i].al_name);
    box_free(bs->bs_alias[i].al_value);
    bs->bs_alias[i] = bs->bs_alias[--bs->bs_nalias];
}

int
sh_bi_unalias(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    sh_bistate *bs = cx->cx_bi;
    if (sh_opt(o, 'a')) {
        while (bs != NULL && bs->bs_nalias > 0)
            alias_drop(bs, bs->bs_nalias - 1);
        return 0;
    }
    if (o->o_ind >= argc) {
        (void)sh_puts(cx, 2, "unalias: usage: unalias [-a] name [name ...]\n");
        return 2;
    }
    int st = 0;
    for (int i = o->o_ind; i < argc; i++) {
        sh_alias *a = alias_find(bs, argv[i], strlen(argv[i]));
        if (a == NULL) {
            st = sh_cmd_err(cx, "unalias", 1, "%s: not found", argv[i]);
            continue;
        }
        alias_drop(bs, (size_t)(a - bs->bs_alias));
    }
    return st;
}

/* The alias n's first word names, if it is to be expanded here. */
static sh_alias *
alias_at(const sh_ctx *cx, const sh_node *n)
{
    sh_bistate *bs = cx->cx_bi;
    if (bs == NULL || bs->bs_nalias == 0 || n->n_kind != SH_N_SIMPLE)
        return NULL;
    const sh_word *w = n->u.simple.words;
    const sh_wpart *p = w != NULL ? w->w_parts : NULL;
    if (p == NULL || p->wp_kind != SH_WP_LIT || p->wp_next != NULL ||
        !sh_shopt_on(cx->cx_st, "expand_aliases"))
        return NULL;
    sh_alias *a = alias_find(bs, p->u.text.s, p->u.text.len);
    if (a == NULL || a->al_busy ||
        a->al_serial >= atomic_load(&cx->cx_ss->ss_cmdno))
        return NULL;
    return a;
}

bool
sh_alias_applies(const sh_ctx *cx, const sh_node *n)
{
    return alias_at(cx, n) != NULL;
}

int
sh_alias_run(sh_ctx *cx, const sh_argv *av)
{
    sh_bistate *bs = cx->cx_bi;
    sh_alias *a =
        bs != NULL ? alias_find(bs, av->av_v[0], strlen(av->av_v[0])) : NULL;
    if (a == NULL) // the command's own expansion unset it: as bash, ran
        return sh_exec_argv(cx, av->av_n, av->av_v, av->av_exp, false);
    box_buf b;
    box_buf_init(&b, SH_MAX_INPUT);
    box_err e = box_buf_puts(&b, a->al_value);
    for (int i = 1; i < av->av_n && e == BOX_OK; i++) {
        e = box_buf_putc(&b, ' ');
        if (e == BOX_OK)
            e = put_quoted(&b, av->av_v[i]);
    }
    if (e != BOX_OK) {
        box_buf_reset(&b);
        sh_errf(cx, "%s: out of memory", av->av_v[0]);
        return 1;
    }
    char *name = box_strdup(a->al_name);
    if (name == NULL) {
        box_buf_reset(&b);
        sh_errf(cx, "%s: out of memory", av->av_v[0]);
        return 1;
    }
    a->al_busy = true;
    int st = b.b_len > 0 ? sh_exec_text(cx, b.b_data, b.b_len, "alias") : 0;
    // The text may have redefined or removed the alias: find it again.
    if (cx->cx_bi != NULL &&
        (a = alias_find(cx->cx_bi, name, strlen(name))) != NULL)
        a->al_busy = false;
    box_free(name);
    box_buf_reset(&b);
    return st;
}
