/* SPDX-License-Identifier: Apache-2.0 */
/* type: what a name runs as, in bash 5.2's words. */
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_bistate.h"
#include "sh_internal.h"

/* bash's reserved words in its own order (`compgen -k` lists them so;
 * `type if` says "shell keyword"). */
const char *const sh_keywords[] = {
    "if",    "then",  "else", "elif",     "fi",   "case", "esac",
    "for",   "select", "while", "until",  "do",   "done", "in",
    "function", "time", "{",   "}",       "!",    "[[",   "]]",
    "coproc",
};
const size_t sh_nkeywords = sizeof sh_keywords / sizeof sh_keywords[0];

static bool
is_keyword(const char *name)
{
    for (size_t i = 0; i < sh_nkeywords; i++)
        if (strcmp(sh_keywords[i], name) == 0)
            return true;
    return false;
}

/* bash reports an alias only while aliases expand (shopt). */
static const sh_alias *
alias_of(const sh_ctx *cx, const char *name)
{
    const sh_bistate *bs = cx->cx_bi;
    if (!sh_shopt_on(cx->cx_st, "expand_aliases"))
        return NULL;
    for (size_t i = 0; bs != NULL && i < bs->bs_nalias; i++)
        if (strcmp(bs->bs_alias[i].al_name, name) == 0)
            return &bs->bs_alias[i];
    return NULL;
}

/* The letters type takes, as one set of switches; cmdv: `command -v`'s
 * answers (a name, a path, an alias's definition). */
typedef struct ty_opts {
    bool all, nofunc, path, force_path, word, cmdv;
} ty_opts;

/* Appends one finding; true when something was found. */
static bool
found(box_buf *b, box_err *e, const ty_opts *t, const char *name,
      const char *kind, const char *text)
{
    if (*e != BOX_OK)
        return true;
    if (t->word)
        *e = box_buf_printf(b, "%s\n", kind);
    else if (t->cmdv)
        *e = box_buf_printf(b, "%s\n", name);
    else
        *e = box_buf_printf(b, text, name);
    return true;
}

/* A file found for name: its word, its path, or "NAME is PATH". */
static void
found_file(box_buf *b, box_err *e, const ty_opts *t, const char *name,
           const char *path)
{
    if (*e != BOX_OK)
        return;
    if (t->word)
        *e = box_buf_puts(b, "file\n");
    else if (t->path || t->force_path || t->cmdv)
        *e = box_buf_printf(b, "%s\n", path);
    else
        *e = box_buf_printf(b, "%s is %s\n", name, path);
}

/* The program PATH finds for name (the box's host programs), or NULL. */
static char *
host_path(sh_ctx *cx, const char *name)
{
    sh_host_bind hb = {0};
    char *path = NULL;
    if (sh_host_locate(cx, name, true, &hb) == 0 && hb.hb_host &&
        hb.hb_unbound_err == 0 && hb.hb_found.sf_path != NULL)
        path = box_strdup(hb.hb_found.sf_path);
    sh_host_bind_clear(&hb);
    return path;
}

/* Describes name into b in the order names run (spec §3.3): alias,
 * keyword, builtin, function, then a file: one of the shell's own
 * commands, which is the file /bin/NAME (§3.1) whatever PATH says, else
 * a host program PATH finds. -a keeps going after the first. */
static bool
describe(sh_ctx *cx, box_buf *b, box_err *e, const ty_opts *t, const char *name)
{
    bool any = false;
    const sh_alias *al = alias_of(cx, name);
    const sh_cmd *c = sh_cmd_find(cx->cx_st, name);
    bool builtin = c != NULL && !(c->c_mode & SH_CMD_PROGRAM);
    const sh_func *f = t->nofunc ? NULL : sh_func_find(cx->cx_st, name);
    if (!t->path && !t->force_path) {
        if (al != NULL) {
            if (t->word)
                any = found(b, e, t, name, "alias", NULL);
            else if (*e == BOX_OK)
                *e = t->cmdv ? sh_alias_line(b, al)
                             : box_buf_printf(b, "%s is aliased to `%s'\n",
                                              name, al->al_value);
            any = true;
            if (!t->all)
                return true;
        }
        if (is_keyword(name)) {
            any = found(b, e, t, name, "keyword", "%s is a shell keyword\n");
            if (!t->all)
                return true;
        }
        // The builtin before the function: what runs (spec §3.3; bash
        // has it the other way round).
        if (builtin) {
            any = found(b, e, t, name, "builtin", "%s is a shell builtin\n");
            if (!t->all)
                return true;
        }
        if (f != NULL) {
            any = found(b, e, t, name, "function", "%s is a function\n");
            if (!t->word && !t->cmdv && *e == BOX_OK &&
                (*e = sh_print_func(b, name, f->f_body)) == BOX_OK)
                *e = box_buf_putc(b, '\n');
            if (!t->all)
                return true;
        }
    }
    // -p prints a path only when nothing else would run; -P always.
    if (t->path && !t->force_path && !t->all &&
        (al != NULL || is_keyword(name) || f != NULL || builtin))
        return true;
    if (c != NULL && (!builtin || t->all || t->force_path)) {
        char *own = box_asprintf("/bin/%s", name);
        if (own == NULL)
            *e = BOX_ENOMEM;
        found_file(b, e, t, name, own);
        box_free(own);
        any = true;
        if (!t->all)
            return true;
    }
    char *path = host_path(cx, name);
    if (path != NULL)
        found_file(b, e, t, name, path);
    any = any || path != NULL;
    box_free(path);
    return any;
}

bool
sh_type_command(sh_ctx *cx, const char *name, bool verbose)
{
    ty_opts t = {.cmdv = !verbose};
    box_buf b;
    box_buf_init(&b, 1u << 20);
    box_err e = BOX_OK;
    bool any = describe(cx, &b, &e, &t, name);
    if (e != BOX_OK)
        sh_cmd_err(cx, "command", 1, "out of memory");
    else if (b.b_len > 0)
        (void)sh_write(cx, 1, b.b_data, b.b_len);
    box_buf_reset(&b);
    return any && e == BOX_OK;
}

/*
 * type [-afptP] name…: -t prints one word (alias, keyword, function,
 * builtin, file), -p / -P the file PATH finds, -f skips functions, -a
 * lists every match. A function is printed back as bash prints it
 * (sh_print.c). Status 1 when a name is not found.
 */
int
sh_bi_type(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    ty_opts t = {
        .all = sh_opt(o, 'a'),
        .nofunc = sh_opt(o, 'f'),
        .path = sh_opt(o, 'p'),
        .force_path = sh_opt(o, 'P'),
        .word = sh_opt(o, 't'),
    };
    int st = 0;
    for (int i = o->o_ind; i < argc; i++) {
        box_buf b;
        box_buf_init(&b, 1u << 20);
        box_err e = BOX_OK;
        bool any = describe(cx, &b, &e, &t, argv[i]);
        if (e != BOX_OK)
            st = sh_cmd_err(cx, "type", 1, "out of memory");
        else if (b.b_len > 0 && sh_write(cx, 1, b.b_data, b.b_len) != SH_IO_OK)
            st = 1;
        box_buf_reset(&b);
        if (!any) {
            if (!t.word && !t.path && !t.force_path)
                sh_cmd_err(cx, "type", 1, "%s: not found", argv[i]);
            st = 1;
        }
    }
    return st;
}
