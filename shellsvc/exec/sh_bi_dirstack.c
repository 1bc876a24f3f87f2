/* SPDX-License-Identifier: Apache-2.0 */
/* pushd, popd and dirs: a stack of directories under the cwd. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * The list bash shows is the cwd followed by the stack (bs_dirs, nearest
 * first); +N counts from the left of it, -N from the right. Every change
 * of directory goes through the kernel like cd (sh_chdir). The options
 * are read here (they mix with +N/-N operands, as in bash).
 */

typedef struct dirlist {
    const char *const *dl_dirs; // the stack
    size_t dl_n;                // entries in the whole list (1 + stack)
    const char *dl_cwd;
} dirlist;

static const char *
entry(const dirlist *l, size_t i)
{
    return i == 0 ? l->dl_cwd : l->dl_dirs[i - 1];
}

/* +N / -N: the index it names in a list of n, or -1 (*is_num false when
 * arg is no such number). */
static long
index_of(const char *arg, size_t n, bool *is_num)
{
    *is_num = false;
    if ((arg[0] != '+' && arg[0] != '-') || arg[1] == '\0')
        return -1;
    char *end;
    long k = strtol(arg + 1, &end, 10);
    if (*end != '\0' || arg[1] < '0' || arg[1] > '9')
        return -1;
    *is_num = true;
    if (k < 0 || (size_t)k >= n)
        return -1;
    return arg[0] == '+' ? k : (long)n - 1 - k;
}

/* Prints the list as dirs does: ~ for HOME unless long; one a line for
 * -p, numbered for -v. */
static int
print_list(sh_ctx *cx, const dirlist *l, bool lng, bool lines, bool num,
           long only)
{
    const char *home = lng ? NULL : sh_var_get(cx->cx_st, "HOME");
    size_t hl = home != NULL ? strlen(home) : 0;
    box_buf b;
    box_buf_init(&b, SH_MAX_INPUT);
    box_err e = BOX_OK;
    for (size_t i = 0; i < l->dl_n && e == BOX_OK; i++) {
        if (only >= 0 && i != (size_t)only)
            continue;
        const char *d = entry(l, i);
        if (num)
            e = box_buf_printf(&b, "%2zu  ", i);
        else if (i > 0 && only < 0)
            e = box_buf_putc(&b, lines ? '\n' : ' ');
        if (e == BOX_OK && hl > 0 && strncmp(d, home, hl) == 0 &&
            (d[hl] == '\0' || d[hl] == '/'))
            e = box_buf_printf(&b, "~%s", d + hl);
        else if (e == BOX_OK)
            e = box_buf_puts(&b, d);
        if (num && e == BOX_OK)
            e = box_buf_putc(&b, '\n');
    }
    if (!num && e == BOX_OK)
        e = box_buf_putc(&b, '\n');
    int rc = e == BOX_OK ? sh_write(cx, 1, b.b_data, b.b_len) : SH_IO_ERR;
    box_buf_reset(&b);
    return rc == SH_IO_OK ? 0 : 1;
}

static dirlist
list_of(sh_ctx *cx)
{
    sh_bistate *bs = cx->cx_bi;
    dirlist l = {.dl_cwd = sh_cwd_logical(cx->cx_st), .dl_n = 1};
    if (bs != NULL) {
        l.dl_dirs = (const char *const *)bs->bs_dirs;
        l.dl_n += bs->bs_ndirs;
    }
    return l;
}

/* Inserts a copy of d into the stack at position at. */
static bool
stack_insert(sh_bistate *bs, size_t at, const char *d)
{
    if (bs->bs_ndirs == bs->bs_capdirs) {
        size_t cap = bs->bs_capdirs ? bs->bs_capdirs * 2 : 8;
        char **nd = box_realloc(bs->bs_dirs, cap * sizeof *nd);
        if (nd == NULL)
            return false;
        bs->bs_dirs = nd;
        bs->bs_capdirs = cap;
    }
    char *c = box_strdup(d);
    if (c == NULL)
        return false;
    memmove(bs->bs_dirs + at + 1, bs->bs_dirs + at,
            (bs->bs_ndirs - at) * sizeof *bs->bs_dirs);
    bs->bs_dirs[at] = c;
    bs->bs_ndirs++;
    return true;
}

static void
stack_remove(sh_bistate *bs, size_t at)
{
    box_free(bs->bs_dirs[at]);
    memmove(bs->bs_dirs + at, bs->bs_dirs + at + 1,
            (bs->bs_ndirs - at - 1) * sizeof *bs->bs_dirs);
    bs->bs_ndirs--;
}

static int
usage(sh_ctx *cx, const char *line)
{
    (void)sh_puts(cx, 2, line);
    return 2;
}

/*
 * Makes list entry k the cwd (pushd +N rotates the list; pushd with no
 * operand swaps the first two: k 1 of a list of 2 … as bash).
 */
static int
rotate_to(sh_ctx *cx, sh_bistate *bs, size_t k, bool swap)
{
    dirlist l = list_of(cx);
    size_t n = l.dl_n;
    char **all = box_calloc(n, sizeof *all);
    if (all == NULL)
        return sh_cmd_err(cx, "pushd", 1, "out of memory");
    int st = 0;
    for (size_t i = 0; i < n; i++)
        if ((all[i] = box_strdup(entry(&l, i))) == NULL)
            st = sh_cmd_err(cx, "pushd", 1, "out of memory");
    if (st == 0 && (st = sh_chdir(cx, "pushd", all[k], false)) == 0) {
        for (size_t i = 0; i < bs->bs_ndirs; i++)
            box_free(bs->bs_dirs[i]);
        // the new order: entry k first, then the rest as the list wraps
        // (a swap keeps the entries after the first two in place)
        for (size_t i = 1; i < n; i++) {
            size_t from = swap ? (i == 1 ? 0 : i) : (k + i) % n;
            bs->bs_dirs[i - 1] = all[from];
            all[from] = NULL;
        }
    }
    for (size_t i = 0; i < n; i++)
        box_free(all[i]);
    box_free(all);
    return st;
}

int
sh_bi_pushd(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool nocd = false;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "-n") == 0; i++)
        nocd = true;
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    sh_bistate *bs = sh_bistate_get(cx);
    if (bs == NULL)
        return 1;
    int st;
    if (i >= argc) {
        if (bs->bs_ndirs == 0)
            return sh_cmd_err(cx, "pushd", 1, "no other directory");
        if (!nocd && (st = rotate_to(cx, bs, 1, true)) != 0)
            return st;
    } else {
        bool is_num;
        long k = index_of(argv[i], 1 + bs->bs_ndirs, &is_num);
        if (is_num) {
            if (k < 0)
                return sh_cmd_err(cx, "pushd", 1,
                                  "%s: directory stack index out of range",
                                  argv[i]);
            if (k > 0 && (st = rotate_to(cx, bs, (size_t)k, false)) != 0)
                return st;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            sh_cmd_err(cx, "pushd", 2, "%s: invalid number", argv[i]);
            return usage(cx, "pushd: usage: pushd [-n] [+N | -N | dir]\n");
        } else if (nocd) {
            if (!stack_insert(bs, 0, argv[i]))
                return sh_cmd_err(cx, "pushd", 1, "out of memory");
        } else {
            char *old = box_strdup(sh_cwd_logical(cx->cx_st));
            if (old == NULL)
                return sh_cmd_err(cx, "pushd", 1, "out of memory");
            if ((st = sh_chdir(cx, "pushd", argv[i], false)) != 0) {
                box_free(old);
                return st;
            }
            bool ok = stack_insert(bs, 0, old);
            box_free(old);
            if (!ok)
                return sh_cmd_err(cx, "pushd", 1, "out of memory");
        }
    }
    dirlist l = list_of(cx);
    return print_list(cx, &l, false, false, false, -1);
}

int
sh_bi_popd(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool nocd = false;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "-n") == 0; i++)
        nocd = true;
    sh_bistate *bs = cx->cx_bi;
    if (bs == NULL || bs->bs_ndirs == 0)
        return sh_cmd_err(cx, "popd", 1, "directory stack empty");
    long k = 0;
    if (i < argc) {
        bool is_num;
        k = index_of(argv[i], 1 + bs->bs_ndirs, &is_num);
        if (!is_num) {
            sh_cmd_err(cx, "popd", 2, "%s: invalid argument", argv[i]);
            return usage(cx, "popd: usage: popd [-n] [+N | -N]\n");
        }
        if (k < 0)
            return sh_cmd_err(cx, "popd", 1,
                              "%s: directory stack index out of range",
                              argv[i]);
    }
    if (k == 0 && !nocd) {
        int st = sh_chdir(cx, "popd", bs->bs_dirs[0], false);
        if (st != 0)
            return st;
        stack_remove(bs, 0);
    } else {
        stack_remove(bs, k == 0 ? 0 : (size_t)k - 1);
    }
    dirlist l = list_of(cx);
    return print_list(cx, &l, false, false, false, -1);
}

int
sh_bi_dirs(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool lng = false, lines = false, num = false;
    long only = -1;
    dirlist l = list_of(cx);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool is_num;
        long k = index_of(a, l.dl_n, &is_num);
        if (is_num) {
            if (k < 0 && l.dl_n == 1)
                return sh_cmd_err(cx, "dirs", 1, "directory stack empty");
            if (k < 0)
                return sh_cmd_err(cx, "dirs", 1,
                                  "%s: directory stack index out of range", a);
            only = k;
            continue;
        }
        if (a[0] != '-' || a[1] == '\0') {
            sh_cmd_err(cx, "dirs", 2, "%s: invalid option", a);
            return usage(cx, "dirs: usage: dirs [-clpv] [+N] [-N]\n");
        }
        for (const char *p = a + 1; *p; p++) {
            if (*p == 'c') {
                sh_bistate *bs = cx->cx_bi;
                while (bs != NULL && bs->bs_ndirs > 0)
                    stack_remove(bs, bs->bs_ndirs - 1);
                return 0;
            }
            if (*p == 'l')
                lng = true;
            else if (*p == 'p')
                lines = true;
            else if (*p == 'v')
                num = lines = true;
            else {
                sh_cmd_err(cx, "dirs", 2, "%s: invalid option", a);
                return usage(cx, "dirs: usage: dirs [-clpv] [+N] [-N]\n");
            }
        }
    }
    return print_list(cx, &l, lng, lines, num, only);
}
