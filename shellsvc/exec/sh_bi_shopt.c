/* SPDX-License-Identifier: Apache-2.0 */
/* The `shopt` builtin: bash's shell options, as far as this shell has them. */
#include <stdio.h>
#include <string.h>

#include "sh_glob.h"
#include "sh_internal.h"

/*
 * Every name bash 5.2 knows is a row, in bash's order, with its default
 * under `bash -c`. A row is one of:
 *   SO_GLOB  acted on: its bit in st_shopt (sh_glob.h) drives globbing
 *            or pattern matching;
 *   SO_STORE accepted and remembered (interactive-only or harmless here);
 *   SO_FIXED this shell behaves only as the default says: asking for the
 *            other value is refused, never silently ignored.
 * Rows after the 64th could not be stored: the table has fewer.
 */
enum { SO_GLOB, SO_STORE, SO_FIXED };

typedef struct so_row {
    const char *so_name;
    bool so_default;
    int so_mode;
    unsigned so_bit; // SO_GLOB rows: SH_SHOPT_*
} so_row;

static const so_row so_tab[] = {
    {"autocd", false, SO_STORE, 0},
    {"assoc_expand_once", false, SO_STORE, 0},
    {"cdable_vars", false, SO_FIXED, 0},
    {"cdspell", false, SO_STORE, 0},
    {"checkhash", false, SO_STORE, 0},
    {"checkjobs", false, SO_STORE, 0},
    {"checkwinsize", true, SO_STORE, 0},
    {"cmdhist", true, SO_STORE, 0},
    {"compat31", false, SO_FIXED, 0},
    {"compat32", false, SO_FIXED, 0},
    {"compat40", false, SO_FIXED, 0},
    {"compat41", false, SO_FIXED, 0},
    {"compat42", false, SO_FIXED, 0},
    {"compat43", false, SO_FIXED, 0},
    {"compat44", false, SO_FIXED, 0},
    {"complete_fullquote", true, SO_STORE, 0},
    {"direxpand", false, SO_STORE, 0},
    {"dirspell", false, SO_STORE, 0},
    {"dotglob", false, SO_GLOB, SH_SHOPT_DOTGLOB},
    {"execfail", false, SO_FIXED, 0},
    {"expand_aliases", false, SO_STORE, 0},
    {"extdebug", false, SO_FIXED, 0},
    {"extglob", false, SO_GLOB, SH_SHOPT_EXTGLOB},
    {"extquote", true, SO_STORE, 0},
    {"failglob", false, SO_GLOB, SH_SHOPT_FAILGLOB},
    {"force_fignore", true, SO_STORE, 0},
    {"globasciiranges", true, SO_FIXED, 0},
    {"globskipdots", true, SO_FIXED, 0},
    {"globstar", false, SO_GLOB, SH_SHOPT_GLOBSTAR},
    {"gnu_errfmt", false, SO_STORE, 0},
    {"histappend", false, SO_STORE, 0},
    {"histreedit", false, SO_STORE, 0},
    {"histverify", false, SO_STORE, 0},
    {"hostcomplete", true, SO_STORE, 0},
    {"huponexit", false, SO_STORE, 0},
    {"inherit_errexit", false, SO_FIXED, 0},
    {"interactive_comments", true, SO_FIXED, 0},
    {"lastpipe", false, SO_FIXED, 0},
    {"lithist", false, SO_STORE, 0},
    {"localvar_inherit", false, SO_FIXED, 0},
    {"localvar_unset", false, SO_FIXED, 0},
    {"login_shell", false, SO_FIXED, 0},
    {"mailwarn", false, SO_STORE, 0},
    {"no_empty_cmd_completion", false, SO_STORE, 0},
    {"nocaseglob", false, SO_GLOB, SH_SHOPT_NOCASEGLOB},
    {"nocasematch", false, SO_GLOB, SH_SHOPT_NOCASEMATCH},
    {"noexpand_translation", false, SO_STORE, 0},
    {"nullglob", false, SO_GLOB, SH_SHOPT_NULLGLOB},
    {"patsub_replacement", true, SO_STORE, 0},
    {"progcomp", true, SO_STORE, 0},
    {"progcomp_alias", false, SO_STORE, 0},
    {"promptvars", true, SO_STORE, 0},
    {"restricted_shell", false, SO_FIXED, 0},
    {"shift_verbose", false, SO_FIXED, 0},
    {"sourcepath", true, SO_FIXED, 0},
    {"varredir_close", false, SO_STORE, 0},
    {"xpg_echo", false, SO_FIXED, 0},
};
#define SO_N (sizeof so_tab / sizeof so_tab[0])
_Static_assert(SO_N <= 64, "st_shopt_other has one bit per row");

static const so_row *
so_find(const char *name)
{
    for (size_t i = 0; i < SO_N; i++)
        if (strcmp(so_tab[i].so_name, name) == 0)
            return &so_tab[i];
    return NULL;
}

static bool
so_get(const sh_state *st, const so_row *r)
{
    if (r->so_mode == SO_GLOB)
        return (st->st_shopt & r->so_bit) != 0;
    unsigned i = (unsigned)(r - so_tab);
    return r->so_default != (((st->st_shopt_other >> i) & 1u) != 0);
}

bool
sh_shopt_on(const sh_state *st, const char *name)
{
    const so_row *r = so_find(name);
    return r != NULL && so_get(st, r);
}

/* 0, or 2 after refusing a value this shell does not implement. */
static int
so_set(sh_ctx *cx, const so_row *r, bool on)
{
    sh_state *st = cx->cx_st;
    unsigned i = (unsigned)(r - so_tab);
    switch (r->so_mode) {
    case SO_GLOB:
        st->st_shopt =
            on ? st->st_shopt | r->so_bit : st->st_shopt & ~r->so_bit;
        return 0;
    case SO_STORE:
        if (on != r->so_default)
            st->st_shopt_other |= (uint64_t)1 << i;
        else
            st->st_shopt_other &= ~((uint64_t)1 << i);
        return 0;
    default:
        if (on == r->so_default)
            return 0;
        return sh_cmd_err(cx, "shopt", 2,
                          "%s: cannot be %s in this shell (not implemented)",
                          r->so_name, on ? "set" : "unset");
    }
}

/* One row as bash prints it: "name<pad>\ton" or "shopt -s name". */
static void
so_print(sh_ctx *cx, const so_row *r, bool on, bool reusable)
{
    char line[96];
    if (reusable)
        snprintf(line, sizeof line, "shopt %s %s\n", on ? "-s" : "-u",
                 r->so_name);
    else
        snprintf(line, sizeof line, "%-15s\t%s\n", r->so_name,
                 on ? "on" : "off");
    sh_puts(cx, 1, line);
}

/*
 * shopt [-pqsu] [optname ...] (bash): -s / -u set or unset each name;
 * with no name they list the options that are on / off. Without either,
 * each name (or every option) is printed, -p in reusable form, -q not
 * at all; the status is then 1 when one of them is off. An unknown name
 * is an error (status 1) and the others are still handled. -o (the
 * `set -o` names) is not supported here.
 */
int
sh_bi_shopt(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    bool s = false, u = false, p = false, q = false;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        for (const char *c = argv[i] + 1; *c != '\0'; c++) {
            switch (*c) {
            case 's':
                s = true;
                break;
            case 'u':
                u = true;
                break;
            case 'p':
                p = true;
                break;
            case 'q':
                q = true;
                break;
            case 'o':
                return sh_cmd_err(cx, "shopt", 2,
                                  "-o: unsupported option (use set)");
            default:
                sh_cmd_err(cx, "shopt", 2, "-%c: invalid option", *c);
                sh_puts(cx, 2,
                        "shopt: usage: shopt [-pqsu] [-o] [optname "
                        "...]\n");
                return 2;
            }
        }
    }
    if (s && u)
        return sh_cmd_err(cx, "shopt", 1,
                          "cannot set and unset shell options simultaneously");
    int status = 0;
    if (i == argc) { // list all (or those on with -s, off with -u)
        for (size_t k = 0; k < SO_N; k++) {
            bool on = so_get(cx->cx_st, &so_tab[k]);
            if ((s && !on) || (u && on))
                continue;
            if (!q)
                so_print(cx, &so_tab[k], on, p);
        }
        return 0;
    }
    for (; i < argc; i++) {
        const so_row *r = so_find(argv[i]);
        if (r == NULL) {
            status = sh_cmd_err(cx, "shopt", 1, "%s: invalid shell option name",
                                argv[i]);
            continue;
        }
        if (s || u) {
            int rc = so_set(cx, r, s);
            if (rc != 0)
                status = rc;
            continue;
        }
        bool on = so_get(cx->cx_st, r);
        if (!on && status == 0)
            status = 1;
        if (!q)
            so_print(cx, r, on, p);
    }
    return status;
}
