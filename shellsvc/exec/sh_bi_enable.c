/* SPDX-License-Identifier: Apache-2.0 */
/* enable: lists the builtins, turns them off and on again. */
#include <string.h>

#include "box_buf.h"
#include "sh_internal.h"

/* POSIX's special builtins as bash 5.2 marks them (`enable -s`). */
static const char *const specials[] = {
    ".",      ":",      "break",    "continue", "eval", "exec",
    "exit",   "export", "readonly", "return",   "set",  "shift",
    "source", "times",  "trap",     "unset",
};

static bool
is_special(const char *name)
{
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
        if (strcmp(specials[i], name) == 0)
            return true;
    return false;
}

/* A row bash has as a builtin: the box's own commands (cat, ls, …) are
 * programs to bash. */
static bool
is_builtin(const sh_cmd *c)
{
    return c != NULL && !(c->c_mode & SH_CMD_PROGRAM);
}

static bool
is_off(const sh_state *st, size_t i)
{
    return (st->st_disabled[i >> 6] >> (i & 63u)) & 1u;
}

/* `enable NAME` lines, in table order, of the rows the filter keeps. */
static int
list_builtins(sh_ctx *cx, bool on, bool off, bool special)
{
    box_buf b;
    box_buf_init(&b, 1u << 16);
    box_err e = BOX_OK;
    const sh_cmd *c;
    for (size_t i = 0; (c = sh_cmd_at(i)) != NULL && e == BOX_OK; i++) {
        bool disabled = is_off(cx->cx_st, i);
        if (!is_builtin(c) || (disabled ? !off : !on) ||
            (special && !is_special(c->c_name)))
            continue;
        e = box_buf_printf(&b, "enable %s%s\n", disabled ? "-n " : "",
                           c->c_name);
    }
    int rc = 0;
    if (e != BOX_OK)
        rc = sh_cmd_err(cx, "enable", 1, "out of memory");
    else if (b.b_len > 0 && sh_write(cx, 1, b.b_data, b.b_len) != SH_IO_OK)
        rc = 1;
    box_buf_reset(&b);
    return rc;
}

/*
 * enable [-a] [-dnps] [-f filename] [name …] (bash 5.2): with no names
 * (or -p) it lists the builtins, enabled ones unless -n (disabled) or -a
 * (all), special ones only with -s; with names it turns each on, or off
 * with -n. A disabled builtin's name runs a function or host program of
 * that name, each admitted as usual (spec §3.5). The box loads no
 * builtins from files: -f fails, and -d finds nothing it loaded. The
 * list holds the box's builtins, not all of bash's.
 */
int
sh_bi_enable(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool none = o->o_ind >= argc;
    if (none || sh_opt(o, 'p'))
        return list_builtins(cx, sh_opt(o, 'a') || !sh_opt(o, 'n'),
                             sh_opt(o, 'a') || sh_opt(o, 'n'), sh_opt(o, 's'));
    if (sh_opt(o, 'f'))
        return sh_cmd_err(cx, "enable", 1,
                          "cannot open shared object %s: dynamic loading is "
                          "not supported",
                          o->o_arg['f']);
    int st = 0;
    for (int i = o->o_ind; i < argc; i++) {
        const sh_cmd *c = sh_cmd_lookup(argv[i]);
        if (sh_opt(o, 'd')) {
            st = sh_cmd_err(cx, "enable", 1, "%s: not dynamically loaded",
                            argv[i]);
            continue;
        }
        if (!is_builtin(c)) {
            st =
                sh_cmd_err(cx, "enable", 1, "%s: not a shell builtin", argv[i]);
            continue;
        }
        size_t k = sh_cmd_index(c);
        uint64_t bit = (uint64_t)1 << (k & 63u);
        if (sh_opt(o, 'n'))
            cx->cx_st->st_disabled[k >> 6] |= bit;
        else
            cx->cx_st->st_disabled[k >> 6] &= ~bit;
    }
    return st;
}
