/* SPDX-License-Identifier: Apache-2.0 */
/* `set` with no arguments: every variable, then every function. */
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_internal.h"

static int
cmp_var(const void *a, const void *b)
{
    const sh_var *const *x = a, *const *y = b;
    return strcmp((*x)->v_name, (*y)->v_name);
}

static int
cmp_func(const void *a, const void *b)
{
    const sh_func *const *x = a, *const *y = b;
    return strcmp((*x)->f_name, (*y)->f_name);
}

static box_err
put_vars(sh_state *st, box_buf *b)
{
    sh_calls_sync(st); // FUNCNAME, BASH_LINENO as they are
    const sh_var **v = box_calloc(st->st_nvars + 1, sizeof *v);
    if (v == NULL)
        return BOX_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < st->st_nvars; i++)
        if (st->st_vars[i].v_value != NULL || st->st_vars[i].v_arr != NULL)
            v[n++] = &st->st_vars[i]; // declared but unset: not listed
    qsort(v, n, sizeof *v, cmp_var);
    box_err e = BOX_OK;
    for (size_t i = 0; i < n && e == BOX_OK; i++) {
        e = box_buf_printf(b, "%s=", v[i]->v_name);
        if (e == BOX_OK)
            e = v[i]->v_arr != NULL ? sh_put_array(b, v[i]->v_arr)
                                    : sh_put_word(b, v[i]->v_value);
        if (e == BOX_OK)
            e = box_buf_putc(b, '\n');
    }
    box_free(v);
    return e;
}

static box_err
put_funcs(sh_state *st, box_buf *b)
{
    const sh_func **f = box_calloc(st->st_nfuncs + 1, sizeof *f);
    if (f == NULL)
        return BOX_ENOMEM;
    for (size_t i = 0; i < st->st_nfuncs; i++)
        f[i] = &st->st_funcs[i];
    qsort(f, st->st_nfuncs, sizeof *f, cmp_func);
    box_err e = BOX_OK;
    for (size_t i = 0; i < st->st_nfuncs && e == BOX_OK; i++)
        if ((e = sh_print_func(b, f[i]->f_name, f[i]->f_body)) == BOX_OK)
            e = box_buf_putc(b, '\n');
    box_free(f);
    return e;
}

/*
 * The listing bash 5.2 prints: variables sorted by name (scalars quoted
 * as print_var_value does, arrays as declare -p writes them), then the
 * functions sorted, each printed back (sh_print.c). bash's own variables
 * (BASH_VERSINFO, SHELLOPTS, …) appear only as far as the box has them.
 */
int
sh_set_list(sh_ctx *cx)
{
    box_buf b;
    box_buf_init(&b, 16u << 20); // the variables' own cap (SH_VARS_MAX_BYTES)
    box_err e = put_vars(cx->cx_st, &b);
    if (e == BOX_OK)
        e = put_funcs(cx->cx_st, &b);
    int rc = 0;
    if (e != BOX_OK)
        rc = sh_cmd_err(cx, "set", 1, "out of memory");
    else if (b.b_len > 0 && sh_write(cx, 1, b.b_data, b.b_len) != SH_IO_OK)
        rc = 1;
    box_buf_reset(&b);
    return rc;
}
