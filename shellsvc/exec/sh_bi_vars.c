/* SPDX-License-Identifier: Apache-2.0 */
/* Builtins on shell state: unset set shift. */
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_internal.h"

/* unset NAME[sub]: one element (the subscript is arithmetic for an
 * indexed array, a key for an associative one). */
static int
unset_elem(sh_ctx *cx, const char *arg, size_t n)
{
    char name[256];
    size_t len = strlen(arg);
    if (n > 255 || arg[len - 1] != ']' ||
        sh_lex_bracket_end(arg + n, len - n) != len - n - 1)
        return sh_cmd_err(cx, "unset", 1, "`%s': not a valid identifier", arg);
    memcpy(name, arg, n);
    name[n] = '\0';
    sh_var *v = sh_var_find(cx->cx_st, name);
    if (v == NULL)
        return 0;
    if (v->v_flags & SH_VAR_READONLY)
        return sh_cmd_err(cx, "unset", 1, "%s: cannot unset: readonly variable",
                          name);
    char *sub = box_strndup(arg + n + 1, len - n - 2);
    if (sub == NULL)
        return sh_cmd_err(cx, "unset", 1, "out of memory");
    char *shown = box_asprintf("unset: [%s]", sub);
    long long index;
    const char *key;
    int rc = shown ? sh_subscript(cx, name, shown, sub, &index, &key) : 1;
    if (rc == 0 && (v = sh_var_find(cx->cx_st, name)) != NULL)
        sh_var_unset_elem(cx->cx_st, v, index, key);
    box_free(shown);
    box_free(sub);
    return rc;
}

int
sh_bi_unset(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    int st = 0;
    for (int i = o->o_ind; i < argc; i++) {
        const char *br = strchr(argv[i], '[');
        size_t n = br ? (size_t)(br - argv[i]) : strlen(argv[i]);
        if (!sh_name_valid(argv[i], n) || (br != NULL && sh_opt(o, 'f'))) {
            st = sh_cmd_err(cx, "unset", 1, "`%s': not a valid identifier",
                            argv[i]);
            continue;
        }
        if (sh_opt(o, 'f')) {
            sh_func_unset(cx->cx_st, argv[i]);
            continue;
        }
        if (br != NULL) {
            int rc = unset_elem(cx, argv[i], n);
            if (rc != 0)
                st = rc;
            continue;
        }
        // -n: a name reference itself, not the variable it names.
        bool raw = sh_opt(o, 'n');
        sh_var *v = raw ? sh_var_find_raw(cx->cx_st, argv[i])
                        : sh_var_find(cx->cx_st, argv[i]);
        if (v != NULL && (v->v_flags & SH_VAR_READONLY)) {
            st = sh_cmd_err(cx, "unset", 1,
                            "%s: cannot unset: readonly variable", argv[i]);
            continue;
        }
        if (v != NULL && (v->v_flags & SH_VAR_NOUNSET)) {
            st = sh_cmd_err(cx, "unset", 1, "%s: cannot unset", argv[i]);
            continue;
        }
        // bash: unset on a name with no variable removes the function.
        if (v == NULL && !sh_opt(o, 'v') && !raw &&
            sh_func_find(cx->cx_st, argv[i]))
            sh_func_unset(cx->cx_st, argv[i]);
        else if (raw)
            sh_var_unset_raw(cx->cx_st, argv[i]);
        else
            sh_var_unset(cx->cx_st, argv[i]);
    }
    return st;
}

/* set -o / set +o with no name: every row, as bash prints them. */
static int
print_options(sh_ctx *cx, bool as_commands)
{
    box_buf b;
    box_buf_init(&b, 1u << 16);
    box_err e = BOX_OK;
    for (size_t i = 0; i < sh_noptions && e == BOX_OK; i++) {
        const sh_option *o = &sh_options[i];
        bool on = sh_option_get(cx->cx_st, o);
        if (as_commands)
            e = box_buf_printf(&b, "set %co %s\n", on ? '-' : '+', o->so_name);
        else
            e = box_buf_printf(&b, "%-15s\t%s\n", o->so_name,
                               on ? "on" : "off");
    }
    int rc = 0;
    if (e != BOX_OK)
        rc = sh_cmd_err(cx, "set", 1, "out of memory");
    else if (sh_write(cx, 1, b.b_data, b.b_len) != SH_IO_OK)
        rc = 1;
    box_buf_reset(&b);
    return rc;
}

/* Sets one row; 2 after the message when it is unknown or fixed. */
static int
set_option(sh_ctx *cx, const sh_option *o, const char *name, bool on)
{
    if (o == NULL)
        return sh_cmd_err(cx, "set", 2, "%s: invalid option name", name);
    if (!sh_option_set(cx->cx_st, o, on))
        return sh_cmd_err(cx, "set", 2, "%co %s: unsupported option",
                          on ? '-' : '+', name);
    return 0;
}

/*
 * set [-efnuxC] [+efnuxC] [-o NAME] [+o NAME] [--] [arg…] (issue 19, as
 * bash 5.2): the letters and names of sh_options. `-o` takes the next
 * argument as its name, also in a bundle (`set -euo pipefail`); with none
 * it prints the list. Any other letter is "set: -<c>: unsupported option"
 * (2, spec §3.2).
 */
int
sh_bi_set(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    sh_state *st = cx->cx_st;
    if (argc == 1)
        return sh_set_list(cx);
    int i = 1;
    bool setpos = false;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            setpos = true;
            break;
        }
        if ((a[0] != '-' && a[0] != '+') || a[1] == '\0')
            break;
        bool on = a[0] == '-';
        for (const char *p = a + 1; *p; p++) {
            int rc;
            if (*p == 'o') {
                if (i + 1 >= argc)
                    rc = print_options(cx, !on);
                else {
                    i++;
                    rc = set_option(cx, sh_option_find(argv[i], 0), argv[i],
                                    on);
                }
                if (rc != 0)
                    return rc;
                continue;
            }
            const sh_option *opt = sh_option_find(NULL, *p);
            if (opt == NULL)
                return sh_cmd_err(cx, "set", 2, "%c%c: unsupported option",
                                  a[0], *p);
            (void)sh_option_set(st, opt, on);
        }
    }
    if (i < argc || setpos) {
        if (sh_pos_set(st, argc - i, argv + i) != BOX_OK)
            return sh_cmd_err(cx, "set", 1, "out of memory");
    }
    return 0;
}

int
sh_bi_shift(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    sh_state *st = cx->cx_st;
    long n = 1;
    // bash ends the whole shell here (get_numeric_arg jumps to top level).
    if (argc > 2) {
        sh_cmd_err(cx, "shift", 1, "too many arguments");
        sh_fatal(cx, 1);
        return 1;
    }
    if (argc > 1) {
        char *end;
        n = strtol(argv[1], &end, 10);
        if (argv[1][0] == '\0' || *end != '\0')
            return sh_cmd_err(cx, "shift", 1,
                              "%s: numeric argument "
                              "required",
                              argv[1]);
        if (n < 0)
            return sh_cmd_err(cx, "shift", 1, "%s: shift count out of range",
                              argv[1]);
    }
    // bash says nothing here (only with shopt shift_verbose).
    if (n > st->st_npos)
        return 1;
    for (long i = 0; i < n; i++)
        box_free(st->st_pos[i]);
    memmove(st->st_pos, st->st_pos + n,
            (size_t)(st->st_npos - n + 1) * sizeof *st->st_pos);
    st->st_npos -= (int)n;
    return 0;
}
