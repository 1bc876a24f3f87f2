/* SPDX-License-Identifier: Apache-2.0 */
/* bash's ${x:off:len}, ${x/p/r} and ${x@C} on one value (sh_expand.c
 * applies them to a scalar, or to each positional parameter). */
#ifndef SH_PARAM_OPS_H
#define SH_PARAM_OPS_H

#include <stddef.h>

#include "sh_internal.h"

/* The replacement word of ${x/p/r} as one string: quoted `\` and `&`
 * escaped with a backslash, so that `&` stands for the match only where
 * it was unquoted (sh_expand.c). */
int sh_expand_replacement(sh_ctx *cx, const sh_word *w, char **out);

/*
 * ${x:off:len} over n units (characters of a value, or $0 $1 … for
 * $@): evaluates off and len (p->u.param.arg, arg2) as arithmetic and
 * sets [*from, *from + *count). Out-of-range offsets give *count 0, as
 * in bash. list: len must not be negative (bash refuses it for $@).
 * Returns 0, or a status after printing the error.
 */
int sh_param_slice(sh_ctx *cx, const sh_wpart *p, size_t n, bool list,
                   size_t *from, size_t *count);

/* ${x:off:len} of the value v: *out box_alloc'd. 0 or a status. */
int sh_param_substr(sh_ctx *cx, const sh_wpart *p, const char *v, char **out);

/* ${x/p/r} ${x//p/r} ${x/#p/r} ${x/%p/r} of v: *out box_alloc'd. */
int sh_param_replace(sh_ctx *cx, const sh_wpart *p, const char *v, char **out);

/*
 * v with the case of its first character (all: of every character)
 * changed to upper or lower as C.UTF-8 maps it, when the character
 * matches pat (every one for NULL or ""): ${x^p} ${x^^p} ${x,p} ${x,,p}
 * ${x@U} ${x@u} ${x@L}. Returns a box_alloc'd string, NULL when out of
 * memory.
 */
char *sh_param_case(const char *v, const char *pat, bool upper, bool all);

/* ${x@C} of v, the value of the parameter name (for @A and @a).
 * *out box_alloc'd. */
int sh_param_xform(sh_ctx *cx, const sh_wpart *p, const char *name,
                   size_t namelen, const char *v, char **out);

#endif
