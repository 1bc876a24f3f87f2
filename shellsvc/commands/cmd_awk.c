/* SPDX-License-Identifier: Apache-2.0 */
/* awk [-F fs] [-v var=value] [-f progfile | 'prog'] [file ...]: gawk 5.2's
 * awk. The options, the program's sources (-f files read through the
 * kernel), the run's setup (the special variables, ENVIRON from the
 * shell's exported variables, ARGV) and its teardown. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_awk.h"
#include "sh_glob.h"
#include "sh_gopt.h"

enum { AWK_VERSION = SH_GOPT_LONG_ONLY };

static const sh_gopt awk_opts[] = {
    {'f', "file", SH_GARG_REQ},
    {'F', "field-separator", SH_GARG_REQ},
    {'v', "assign", SH_GARG_REQ},
    {'V', "version", SH_GARG_NONE},
    {0},
};

#define AWK_HELP \
    "Usage: awk [POSIX or GNU style options] -f progfile [--] file ...\n" \
    "Usage: awk [POSIX or GNU style options] [--] 'program' file ...\n" \
    "POSIX options:\t\tGNU long options: (standard)\n" \
    "\t-f progfile\t\t--file=progfile\n" \
    "\t-F fs\t\t\t--field-separator=fs\n" \
    "\t-v var=val\t\t--assign=var=val\n" \
    "Short options:\t\tGNU long options: (extensions)\n" \
    "\t-b\t\t\t--characters-as-bytes\n" \
    "\t-c\t\t\t--traditional\n" \
    "\t-C\t\t\t--copyright\n" \
    "\t-d[file]\t\t--dump-variables[=file]\n" \
    "\t-D[file]\t\t--debug[=file]\n" \
    "\t-e 'program-text'\t--source='program-text'\n" \
    "\t-E file\t\t\t--exec=file\n" \
    "\t-g\t\t\t--gen-pot\n" \
    "\t-h\t\t\t--help\n" \
    "\t-i includefile\t\t--include=includefile\n" \
    "\t-I\t\t\t--trace\n" \
    "\t-l library\t\t--load=library\n" \
    "\t-L[fatal|invalid|no-ext]\t--lint[=fatal|invalid|no-ext]\n" \
    "\t-M\t\t\t--bignum\n" \
    "\t-N\t\t\t--use-lc-numeric\n" \
    "\t-n\t\t\t--non-decimal-data\n" \
    "\t-o[file]\t\t--pretty-print[=file]\n" \
    "\t-O\t\t\t--optimize\n" \
    "\t-p[file]\t\t--profile[=file]\n" \
    "\t-P\t\t\t--posix\n" \
    "\t-r\t\t\t--re-interval\n" \
    "\t-s\t\t\t--no-optimize\n" \
    "\t-S\t\t\t--sandbox\n" \
    "\t-t\t\t\t--lint-old\n" \
    "\t-V\t\t\t--version\n" \
    "\n" \
    "To report bugs, use the `gawkbug' program.\n" \
    "For full instructions, see the node `Bugs' in `gawk.info'\n" \
    "which is section `Reporting Problems and Bugs' in the\n" \
    "printed version.  This same information may be found at\n" \
    "https://www.gnu.org/software/gawk/manual/html_node/Bugs.html.\n" \
    "PLEASE do NOT try to report bugs by posting in comp.lang.awk,\n" \
    "or by using a web forum such as Stack Overflow.\n" \
    "\n" \
    "gawk is a pattern scanning and processing language.\n" \
    "By default it reads standard input and writes standard output.\n" \
    "\n" \
    "Examples:\n" \
    "\tawk '{ sum += $1 }; END { print sum }' file\n" \
    "\tawk -F: '{ print $1 }' /etc/passwd\n"

static const sh_gopt_spec awk_spec = {
    .gs_cmd = "awk",
    .gs_opts = awk_opts,
    .gs_flags = SH_GOPT_F_INORDER | SH_GOPT_F_NOTRY,
    .gs_fail = 1,
    .gs_usage = AWK_HELP,
    .gs_help = AWK_HELP,
};

#define AWK_VERSION_TEXT                                                       \
    "GNU Awk 5.2.1, API 3.2, PMA Avon 8-g1, (GNU MPFR 4.2.0, GNU MP 6.2.1)\n"   \
    "Copyright (C) 1989, 1991-2022 Free Software Foundation.\n"                 \
    "\n"                                                                        \
    "This program is free software; you can redistribute it and/or modify\n"   \
    "it under the terms of the GNU General Public License as published by\n"    \
    "the Free Software Foundation; either version 3 of the License, or\n"       \
    "(at your option) any later version.\n"                                     \
    "\n"                                                                        \
    "This program is distributed in the hope that it will be useful,\n"        \
    "but WITHOUT ANY WARRANTY; without even the implied warranty of\n"          \
    "MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE. See the\n"            \
    "GNU General Public License for more details.\n"                            \
    "\n"                                                                        \
    "You should have received a copy of the GNU General Public License\n"      \
    "along with this program. If not, see http://www.gnu.org/licenses/.\n"

/* A value given on the command line (-v, -F, var=value): string escapes
 * as in a program's strings; an unknown escape keeps its backslash. */
static char *
unescape(const char *s, size_t *len)
{
    size_t n = strlen(s);
    char *o = box_alloc(n + 1);
    if (o == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 >= n) {
            o[k++] = s[i];
            continue;
        }
        char c = s[++i];
        const char *from = "abfnrtv\\\"/", *to = "\a\b\f\n\r\t\v\\\"/";
        const char *f = strchr(from, c);
        if (f != NULL && c != '\0') {
            o[k++] = to[f - from];
        } else if (c >= '0' && c <= '7') {
            unsigned v = 0;
            for (int d = 0; d < 3 && i < n && s[i] >= '0' && s[i] <= '7'; d++)
                v = v * 8 + (unsigned)(s[i++] - '0');
            i--;
            o[k++] = (char)v;
        } else {
            o[k++] = '\\';
            o[k++] = c;
        }
    }
    o[k] = '\0';
    *len = k;
    return o;
}

static bool
grow_globals(awk *a, size_t n)
{
    if (n <= a->a_nglobals)
        return true;
    awk_cell *g = box_realloc(a->a_globals, n * sizeof *g);
    if (g == NULL)
        return false;
    memset(g + a->a_nglobals, 0, (n - a->a_nglobals) * sizeof *g);
    a->a_globals = g;
    a->a_nglobals = n;
    return true;
}

/* var=value (-v or an operand): false when arg is not of that form. */
bool awk_cmdline_assign(awk *a, const char *arg);
bool
awk_cmdline_assign(awk *a, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL || eq == arg || !(isalpha((unsigned char)arg[0]) || arg[0] == '_'))
        return false;
    for (const char *p = arg; p < eq; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return false;
    char name[256];
    size_t nl = (size_t)(eq - arg);
    if (nl >= sizeof name)
        return false;
    memcpy(name, arg, nl);
    name[nl] = '\0';
    int slot = awk_global_slot(a->a_prog, name);
    size_t vl;
    char *v = unescape(eq + 1, &vl);
    if (slot < 0 || v == NULL || !grow_globals(a, a->a_prog->p_nglobals)) {
        box_free(v);
        awk_fatal(a, "out of memory");
        return true;
    }
    awk_cell *c = &a->a_globals[slot];
    if (c->c_kind == CK_ARRAY) {
        box_free(v);
        awk_fatal(a, "cannot use array `%s' as a scalar", name);
        return true;
    }
    awk_val_free(&c->c_val);
    c->c_kind = CK_SCALAR;
    c->c_val = awk_str_take(v, vl);
    c->c_val.v_type = AV_INPUT;
    if (slot < V_NSPECIAL)
        awk_special_set(a, slot);
    return true;
}

static void
set_global(awk *a, int slot, awk_val v)
{
    awk_cell *c = &a->a_globals[slot];
    awk_val_free(&c->c_val);
    c->c_kind = CK_SCALAR;
    c->c_val = v;
}

static bool
arr_put(awk *a, awk_arr *r, const char *k, const char *v, bool input)
{
    awk_val *e = awk_arr_get(a, r, k, strlen(k), true);
    if (e == NULL)
        return false;
    awk_val_free(e);
    *e = input ? awk_input(a, v, strlen(v)) : awk_str(a, v, strlen(v));
    return !a->a_fatal;
}

/* The special variables' first values, ENVIRON and ARGV. */
static bool
setup(awk *a, int nops, char **ops, int first_operand)
{
    if (!grow_globals(a, a->a_prog->p_nglobals))
        return false;
    set_global(a, V_FS, awk_str(a, " ", 1));
    set_global(a, V_OFS, awk_str(a, " ", 1));
    set_global(a, V_ORS, awk_str(a, "\n", 1));
    set_global(a, V_RS, awk_str(a, "\n", 1));
    set_global(a, V_SUBSEP, awk_str(a, "\034", 1));
    set_global(a, V_CONVFMT, awk_str(a, "%.6g", 4));
    set_global(a, V_OFMT, awk_str(a, "%.6g", 4));
    set_global(a, V_NR, awk_num(0));
    set_global(a, V_FNR, awk_num(0));
    set_global(a, V_NF, awk_num(0));
    set_global(a, V_RSTART, awk_num(0));
    set_global(a, V_RLENGTH, awk_num(-1));
    set_global(a, V_FILENAME, awk_str(a, "", 0));
    set_global(a, V_RT, awk_str(a, "", 0));
    set_global(a, V_IGNORECASE, awk_num(0));
    awk_cell *env = &a->a_globals[V_ENVIRON];
    awk_cell *argv = &a->a_globals[V_ARGV];
    env->c_kind = argv->c_kind = CK_ARRAY;
    env->c_arr = awk_arr_new();
    argv->c_arr = awk_arr_new();
    if (env->c_arr == NULL || argv->c_arr == NULL)
        return false;
    const sh_state *st = a->a_cx->cx_st;
    for (size_t i = 0; i < st->st_nvars; i++) {
        const sh_var *v = &st->st_vars[i];
        if (!(v->v_flags & SH_VAR_EXPORT) || v->v_value == NULL || v->v_arr != NULL)
            continue;
        if (!arr_put(a, env->c_arr, v->v_name, v->v_value, true))
            return false;
    }
    if (!arr_put(a, argv->c_arr, "0", "awk", false))
        return false;
    int n = 1;
    for (int i = first_operand; i < nops; i++, n++) {
        char k[32];
        snprintf(k, sizeof k, "%d", n);
        if (!arr_put(a, argv->c_arr, k, ops[i], true))
            return false;
    }
    set_global(a, V_ARGC, awk_num(n));
    a->a_argi = 1;
    a->a_seed = 0;
    a->a_prev_seed = 1; // gawk's first seed
    // srand()'s first seed is 0, as gawk's
    a->a_rand_state[0] = 0x853c49e6748fea9bul;
    a->a_rand_state[1] = 0xda3e39cb94b95bdbul;
    return !a->a_fatal;
}

static void
teardown(awk *a)
{
    for (size_t i = 0; i < a->a_nglobals; i++) {
        awk_cell *c = &a->a_globals[i];
        if (c->c_kind == CK_ARRAY)
            awk_arr_free(a, c->c_arr);
        awk_val_free(&c->c_val);
    }
    box_free(a->a_globals);
    for (size_t i = 1; i <= a->a_nf && a->a_fields != NULL; i++)
        awk_val_free(&a->a_fields[i]);
    box_free(a->a_fields);
    for (size_t i = 0; i < a->a_nre; i++) {
        awk_re_free(a->a_recache[i]);
        box_free(a->a_retext[i]);
    }
    box_free(a->a_recache);
    box_free(a->a_retext);
    awk_val_free(&a->a_ret);
    box_buf_reset(&a->a_rec);
    box_buf_reset(&a->a_out);
    box_buf_reset(&a->a_tmp);
}

/* Frees the regexes the tree compiled. */
static void
free_tree_res(awk_node *n)
{
    for (; n != NULL; n = n->n_next) {
        if (n->n_re != NULL) {
            awk_re_free(n->n_re);
            n->n_re = NULL;
        }
        free_tree_res(n->n_a);
        free_tree_res(n->n_b);
        free_tree_res(n->n_c);
        free_tree_res(n->n_d);
    }
}

static void
prog_free_res(awk_prog *g)
{
    for (size_t i = 0; i < g->p_nrules; i++) {
        free_tree_res(g->p_rules[i].r_pat);
        free_tree_res(g->p_rules[i].r_pat2);
        free_tree_res(g->p_rules[i].r_body);
    }
    for (size_t i = 0; i < g->p_nfuncs; i++)
        free_tree_res(g->p_funcs[i].f_body);
}

int
sh_cmd_awk(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &awk_spec, argc, argv);
    const char *fs = NULL;
    const char **assigns = NULL, **files = NULL;
    size_t nassigns = 0, nfiles = 0;
    box_buf *texts = NULL;
    awk_src *srcs = NULL;
    awk_prog prog;
    memset(&prog, 0, sizeof prog);
    awk a;
    memset(&a, 0, sizeof a);
    int status = 0, id;
    const char *arg;
    while ((id = sh_gopt_next(&it, &arg, &status)) != SH_GOPT_END) {
        if (id == SH_GOPT_EXIT)
            goto out;
        if (id == 'F') {
            fs = arg;
        } else if (id == 'V') {
            status = sh_puts(cx, 1, AWK_VERSION_TEXT) == SH_IO_OK ? 0 : 1;
            goto out;
        } else {
            const char ***v = id == 'v' ? &assigns : &files;
            size_t *cnt = id == 'v' ? &nassigns : &nfiles;
            const char **g = box_realloc(*v, (*cnt + 1) * sizeof *g);
            if (g == NULL) {
                status = sh_cmd_err(cx, "awk", 2, "out of memory");
                goto out;
            }
            g[(*cnt)++] = arg;
            *v = g;
        }
    }
    int first = 0;
    size_t nsrcs = nfiles > 0 ? nfiles : 1;
    srcs = box_calloc(nsrcs, sizeof *srcs);
    texts = box_calloc(nsrcs, sizeof *texts);
    if (srcs == NULL || texts == NULL) {
        status = sh_cmd_err(cx, "awk", 2, "out of memory");
        goto out;
    }
    if (nfiles == 0) {
        if (it.gi_nops == 0) {
            (void)sh_puts(cx, 2, AWK_HELP);
            status = 1;
            goto out;
        }
        srcs[0].s_text = it.gi_ops[0];
        srcs[0].s_len = strlen(it.gi_ops[0]);
        first = 1;
    } else {
        for (size_t i = 0; i < nfiles; i++) {
            box_buf_init(&texts[i], 64u << 20);
            int oserr = 0;
            int st = sh_source_read(cx, "awk", files[i], &texts[i], &oserr);
            if (st != 0) {
                status = st == BOX_STATUS_FAULT ? st : 2;
                goto out;
            }
            srcs[i].s_text = texts[i].b_data ? texts[i].b_data : "";
            srcs[i].s_len = texts[i].b_len;
            srcs[i].s_name = files[i];
        }
    }
    int pst = awk_parse(cx, srcs, nsrcs, &prog);
    if (pst != 0) {
        status = pst;
        goto out;
    }
    a.a_cx = cx;
    a.a_run.cr_cx = cx;
    a.a_run.cr_cmd = "awk";
    a.a_prog = &prog;
    a.a_srcname = nfiles > 0 ? files[0] : NULL;
    box_buf_init(&a.a_rec, AWK_STR_MAX);
    box_buf_init(&a.a_out, AWK_STR_MAX);
    box_buf_init(&a.a_tmp, AWK_STR_MAX);
    a.a_recache = box_calloc(64, sizeof *a.a_recache);
    a.a_retext = box_calloc(64, sizeof *a.a_retext);
    if (a.a_recache == NULL || a.a_retext == NULL ||
        !setup(&a, it.gi_nops, it.gi_ops, first)) {
        status = sh_cmd_err(cx, "awk", 2, "out of memory");
        goto out_run;
    }
    locale_t u8 = sh_glob_locale();
    a.a_oldloc = u8 != (locale_t)0 ? uselocale(u8) : (locale_t)0;
    if (fs != NULL) {
        size_t l;
        char *v = unescape(fs, &l);
        if (v == NULL)
            awk_fatal(&a, "out of memory");
        else
            set_global(&a, V_FS, awk_str_take(v, strlen(v)));
    }
    for (size_t i = 0; i < nassigns && !a.a_fatal; i++) {
        if (!awk_cmdline_assign(&a, assigns[i])) {
            const char *eq = strchr(assigns[i], '=');
            sh_errf(cx, "awk: fatal: `%.*s' is not a legal variable name",
                    (int)(eq != NULL ? eq - assigns[i] : (long)strlen(assigns[i])),
                    assigns[i]);
            a.a_fatal = true;
            a.a_status = 2;
        }
    }
    if (!a.a_fatal)
        (void)awk_run(&a);
    awk_io_end(&a);
    if (a.a_oldloc != (locale_t)0)
        uselocale(a.a_oldloc);
    status = a.a_status;
out_run:
    teardown(&a);
out:
    prog_free_res(&prog);
    awk_prog_free(&prog);
    for (size_t i = 0; texts != NULL && i < nsrcs; i++)
        box_buf_reset(&texts[i]);
    box_free(texts);
    box_free(srcs);
    box_free(assigns);
    box_free(files);
    sh_gopt_free(&it);
    return status;
}
