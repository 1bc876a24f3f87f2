/* SPDX-License-Identifier: Apache-2.0 */
/* A growing NULL-terminated vector of owned strings. */
#include "box_argv.h"

#include <stdarg.h>
#include <string.h>

#include "box_alloc.h"

box_err
box_argv_push(box_argv *av, const char *s)
{
    if (av->av_n + 2 > av->av_cap) {
        size_t cap = av->av_cap ? av->av_cap * 2 : 16;
        char **nv = box_realloc(av->av_v, cap * sizeof *nv);
        if (nv == NULL)
            return BOX_ENOMEM;
        av->av_v = nv;
        av->av_cap = cap;
    }
    if ((av->av_v[av->av_n] = box_strdup(s)) == NULL)
        return BOX_ENOMEM;
    av->av_v[++av->av_n] = NULL;
    return BOX_OK;
}

box_err
box_argv_pushf(box_argv *av, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = box_vasprintf(fmt, ap);
    va_end(ap);
    if (s == NULL)
        return BOX_ENOMEM;
    box_err rv = box_argv_push(av, s);
    box_free(s);
    return rv;
}

void
box_argv_free(box_argv *av)
{
    for (size_t i = 0; i < av->av_n; i++)
        box_free(av->av_v[i]);
    box_free(av->av_v);
    memset(av, 0, sizeof *av);
}
