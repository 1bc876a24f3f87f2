/* SPDX-License-Identifier: Apache-2.0 */
/* The builtins' per-context state: made on use, copied for subshells. */
#include <string.h>

#include "box_alloc.h"
#include "sh_bistate.h"

#define SH_UMASK_DEFAULT 022u

sh_bistate *
sh_bistate_get(sh_ctx *cx)
{
    if (cx->cx_bi == NULL) {
        cx->cx_bi = box_calloc(1, sizeof *cx->cx_bi);
        if (cx->cx_bi == NULL) {
            sh_errf(cx, "out of memory");
            return NULL;
        }
        cx->cx_bi->bs_umask = SH_UMASK_DEFAULT;
        cx->cx_bi->bs_optind = 1;
    }
    return cx->cx_bi;
}

unsigned
sh_umask_get(const sh_ctx *cx)
{
    return cx->cx_bi != NULL ? cx->cx_bi->bs_umask : SH_UMASK_DEFAULT;
}

unsigned
sh_umask_apply(const sh_ctx *cx, unsigned mode)
{
    // The mask `umask` prints applies from the start, in the in-memory
    // tree as on a bind, so a new file is what bash would make (0644).
    return mode & ~sh_umask_get(cx);
}

sh_bistate *
sh_bistate_fork(const sh_bistate *bs, bool *err)
{
    *err = false;
    if (bs == NULL)
        return NULL;
    sh_bistate *n = box_calloc(1, sizeof *n);
    if (n == NULL)
        goto fail;
    n->bs_umask = bs->bs_umask;
    n->bs_umask_set = bs->bs_umask_set;
    n->bs_optchar = bs->bs_optchar;
    n->bs_optind = bs->bs_optind;
    // bash: a subshell lists its parent's traps but runs none of them.
    n->bs_inherited = true;
    n->bs_return_funcs = bs->bs_return_funcs;
    for (int i = 0; i < SH_TRAP_N; i++)
        if (bs->bs_trap[i] != NULL &&
            (n->bs_trap[i] = box_strdup(bs->bs_trap[i])) == NULL)
            goto fail;
    if (bs->bs_nalias > 0) {
        n->bs_alias = box_calloc(bs->bs_nalias, sizeof *n->bs_alias);
        if (n->bs_alias == NULL)
            goto fail;
        n->bs_capalias = bs->bs_nalias;
        for (size_t i = 0; i < bs->bs_nalias; i++) {
            sh_alias *a = &n->bs_alias[n->bs_nalias];
            a->al_serial = bs->bs_alias[i].al_serial;
            a->al_busy = bs->bs_alias[i].al_busy;
            a->al_name = box_strdup(bs->bs_alias[i].al_name);
            a->al_value = box_strdup(bs->bs_alias[i].al_value);
            n->bs_nalias++;
            if (a->al_name == NULL || a->al_value == NULL)
                goto fail;
        }
    }
    if (bs->bs_ndirs > 0) {
        n->bs_dirs = box_calloc(bs->bs_ndirs, sizeof *n->bs_dirs);
        if (n->bs_dirs == NULL)
            goto fail;
        n->bs_capdirs = bs->bs_ndirs;
        for (size_t i = 0; i < bs->bs_ndirs; i++)
            if ((n->bs_dirs[n->bs_ndirs++] = box_strdup(bs->bs_dirs[i])) ==
                NULL)
                goto fail;
    }
    return n;
fail:
    sh_bistate_free(n);
    *err = true;
    return NULL;
}

void
sh_bistate_free(sh_bistate *bs)
{
    if (bs == NULL)
        return;
    for (int i = 0; i < SH_TRAP_N; i++)
        box_free(bs->bs_trap[i]);
    for (size_t i = 0; i < bs->bs_nalias; i++) {
        box_free(bs->bs_alias[i].al_name);
        box_free(bs->bs_alias[i].al_value);
    }
    box_free(bs->bs_alias);
    for (size_t i = 0; i < bs->bs_ndirs; i++)
        box_free(bs->bs_dirs[i]);
    box_free(bs->bs_dirs);
    box_free(bs);
}
