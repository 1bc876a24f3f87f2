/* SPDX-License-Identifier: Apache-2.0 */
/* Assignment to shell variables: attributes, subscripts, NAME=( … ). */
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_array.h"
#include "sh_internal.h"

/*
 * Every assignment a script writes (NAME=v, NAME[sub]=v, NAME=( … ),
 * declare NAME=v, read, for, printf -v …) comes here, so the readonly
 * check, the -i -l -u attributes and the caps (SH_ARRAY_MAX,
 * SH_VARS_MAX_BYTES) are applied in one place with bash's messages.
 */

int
sh_var_fail(sh_ctx *cx, const char *who, const char *name, box_err e)
{
    const char *w = who != NULL ? who : "";
    const char *sep = who != NULL ? ": " : "";
    switch (e) {
    case BOX_EDENIED:
        sh_errf(cx, "%s%s%s: readonly variable", w, sep, name);
        break;
    case BOX_ETOOBIG: {
        sh_var *v = sh_var_find(cx->cx_st, name);
        if (v != NULL && v->v_arr != NULL &&
            sh_array_count(v->v_arr) >= SH_ARRAY_MAX)
            sh_errf(cx, "%s%s%s: array too large (at most %u elements)", w,
                    sep, name, SH_ARRAY_MAX);
        else
            sh_errf(cx, "%s%s%s: variables too large (at most %u MiB in all)",
                    w, sep, name, SH_VARS_MAX_BYTES >> 20);
        break;
    }
    default:
        sh_errf(cx, "%s%sout of memory", w, sep);
        break;
    }
    // A cap or memory running out ends the call (issue 19's limits: a
    // clear error, the worker ends); a readonly name only fails its
    // command, as in bash.
    if (e != BOX_EDENIED && cx->cx_flow == SH_FLOW_NONE)
        sh_fatal(cx, 1);
    return 1;
}

int
sh_subscript(sh_ctx *cx, const char *name, const char *shown, const char *sub,
             long long *index, const char **key)
{
    bool arith;
    return sh_subscript_of(cx, name, shown, sub, index, key, &arith);
}

int
sh_subscript_of(sh_ctx *cx, const char *name, const char *shown,
                const char *sub, long long *index, const char **key,
                bool *arith)
{
    *arith = false;
    *key = NULL;
    *index = 0;
    const sh_var *v = sh_var_find(cx->cx_st, name);
    if (v != NULL && (v->v_flags & SH_VAR_ASSOC)) {
        if (sub[0] == '\0') {
            sh_errf(cx, "%s: bad array subscript", shown);
            return 1;
        }
        *key = sub;
        return 0;
    }
    long long i = 0;
    int rc = sh_arith(cx, sub, strlen(sub), &i);
    if (rc != 0) {
        *arith = true;
        return rc;
    }
    // The index may have assigned (a[i++]): the variables may have moved.
    v = sh_var_find(cx->cx_st, name);
    if (i < 0) {
        long long max = v != NULL && v->v_arr != NULL
                            ? sh_array_max_index(v->v_arr)
                            : (v != NULL && v->v_value != NULL ? 0 : -1);
        i += max + 1;
        if (i < 0) {
            sh_errf(cx, "%s: bad array subscript", shown);
            return 1;
        }
    }
    *index = i;
    return 0;
}

/* val with v's -i -l -u applied (old: the value += appends to, or NULL);
 * *out box_alloc'd. Returns 0 or a status after the message. */
static int
transform(sh_ctx *cx, unsigned flags, const char *old, const char *val,
          size_t vlen, char **out, size_t *outlen)
{
    char *r;
    if (flags & SH_VAR_INTEGER) {
        long long a = 0, b = 0;
        int rc;
        if (old != NULL && (rc = sh_arith(cx, old, strlen(old), &a)) != 0)
            return rc;
        if ((rc = sh_arith(cx, val, vlen, &b)) != 0)
            return rc;
        r = box_asprintf("%lld", (long long)((unsigned long long)a +
                                             (unsigned long long)b));
    } else {
        r = box_asprintf("%s%.*s", old ? old : "", (int)vlen, val);
    }
    if (r == NULL) {
        sh_errf(cx, "out of memory");
        return 1;
    }
    for (char *p = r; *p; p++) {
        if ((flags & SH_VAR_LOWER) && *p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
        else if ((flags & SH_VAR_UPPER) && *p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    }
    *out = r;
    *outlen = strlen(r);
    return 0;
}

/* The element at index/key of v (NULL: unset). */
static const char *
elem_get(const sh_var *v, long long index, const char *key)
{
    if (v == NULL)
        return NULL;
    if (v->v_arr == NULL)
        return index == 0 && (key == NULL || strcmp(key, "0") == 0)
                   ? v->v_value
                   : NULL;
    return key != NULL ? sh_array_get_key(v->v_arr, key)
                       : sh_array_get(v->v_arr, index);
}

/* sh_assign_str; with take (*take == val, box_alloc'd), a value that
 * nothing transforms becomes the variable's as it is (*take then NULL):
 * an assignment's expansion is not copied again. */
static int
assign_str(sh_ctx *cx, const char *who, const char *name, const char *sub,
           const char *val, size_t vlen, bool append, char **take)
{
    sh_var *v = sh_var_find(cx->cx_st, name);
    if (v != NULL && (v->v_flags & SH_VAR_READONLY))
        return sh_var_fail(cx, who, name, BOX_EDENIED);
    long long index = 0;
    const char *key = NULL;
    if (sub != NULL) {
        char *shown = box_asprintf("%s[%s]", name, sub);
        bool arith = false;
        int rc =
            shown ? sh_subscript_of(cx, name, shown, sub, &index, &key, &arith)
                  : 1;
        box_free(shown);
        if (rc != 0 && arith && cx->cx_flow == SH_FLOW_NONE) {
            // An index whose arithmetic failed (NAME[expr]=v, declare,
            // read, printf -v): bash -c ends
            // the shell, a script file discards the statement, as when
            // such an index is read (sh_expand.c).
            if (cx->cx_script)
                sh_discard(cx, rc);
            else
                sh_fatal(cx, rc);
        }
        if (rc != 0)
            return rc;
        if ((v = sh_var_find(cx->cx_st, name)) != NULL &&
            (v->v_flags & SH_VAR_READONLY)) // the index made it readonly?
            return sh_var_fail(cx, who, name, BOX_EDENIED);
    } else if (v != NULL && (v->v_flags & SH_VAR_ASSOC)) {
        key = "0";
    }
    const char *old = append ? elem_get(v, index, key) : NULL;
    unsigned flags = v ? v->v_flags : 0;
    char *nv = NULL;
    size_t nl = 0;
    box_err e;
    if (old == NULL && sub == NULL &&
        (flags & (SH_VAR_INTEGER | SH_VAR_LOWER | SH_VAR_UPPER)) == 0) {
        // A plain NAME=value (most of a loop's assignments): nothing to
        // transform, so the value is copied once at most.
        e = sh_var_set_found(cx->cx_st, v, name, val, vlen, take);
        return e == BOX_OK ? 0 : sh_var_fail(cx, who, name, e);
    }
    int rc = transform(cx, flags, old, val, vlen, &nv, &nl);
    if (rc != 0)
        return rc;
    e = sub != NULL ? sh_var_set_elem(cx->cx_st, name, index, key, nv, nl)
                    : sh_var_set(cx->cx_st, name, nv, nl);
    box_free(nv);
    return e == BOX_OK ? 0 : sh_var_fail(cx, who, name, e);
}

int
sh_assign_str(sh_ctx *cx, const char *who, const char *name, const char *sub,
              const char *val, size_t vlen, bool append)
{
    return assign_str(cx, who, name, sub, val, vlen, append, NULL);
}

/* Expands one subscript word to its text (*out box_alloc'd). */
static int
sub_text(sh_ctx *cx, const sh_word *w, char **out)
{
    size_t n;
    return sh_expand_str(cx, w, out, &n);
}

/*
 * An array being built by NAME=( … ) or grown in place by NAME+=( … )
 * (in place so a loop of `files+=("$f")` costs one element each time,
 * not a copy of the array). b_room is how many bytes it may still grow
 * under SH_VARS_MAX_BYTES.
 */
typedef struct build {
    sh_ctx *b_cx;
    sh_array *b_a;
    unsigned b_flags; // the variable's -i -l -u
    const char *b_name;
    size_t b_base; // sh_array_bytes when the build began
    size_t b_room;
} build;

/* Sets a[index/key] with the attributes applied. */
static int
build_set(build *b, long long index, const char *key, const char *val,
          size_t vlen, bool append)
{
    sh_ctx *cx = b->b_cx;
    sh_array *a = b->b_a;
    const char *old = NULL;
    if (append)
        old = key ? sh_array_get_key(a, key) : sh_array_get(a, index);
    char *nv = NULL;
    size_t nl = 0;
    int rc = transform(cx, b->b_flags, old, val, vlen, &nv, &nl);
    if (rc != 0)
        return rc;
    box_err e = BOX_ETOOBIG;
    size_t grown = sh_array_bytes(a) - b->b_base;
    if (grown + nl + (key ? strlen(key) : 0) <= b->b_room)
        e = key ? sh_array_set_key(a, key, nv, nl)
                : sh_array_set(a, index, nv, nl);
    box_free(nv);
    if (e == BOX_ETOOBIG) {
        // The array being built is not the variable's yet: say which cap
        // here, and end the call as sh_var_fail does.
        if (sh_array_count(a) >= SH_ARRAY_MAX)
            sh_errf(cx, "%s: array too large (at most %u elements)", b->b_name,
                    SH_ARRAY_MAX);
        else
            sh_errf(cx, "%s: variables too large (at most %u MiB in all)",
                    b->b_name, SH_VARS_MAX_BYTES >> 20);
        if (cx->cx_flow == SH_FLOW_NONE)
            sh_fatal(cx, 1);
        return 1;
    }
    return e == BOX_OK ? 0 : sh_var_fail(cx, NULL, b->b_name, e);
}

/* One [sub]=value element of NAME=( … ). */
static int
elem_sub(build *b, const sh_aelem *el, long long *next)
{
    sh_ctx *cx = b->b_cx;
    char *sub = NULL, *val = NULL;
    size_t vl = 0;
    int rc = sub_text(cx, el->ae_sub, &sub);
    if (rc == 0)
        rc = sh_expand_str(cx, el->ae_value, &val, &vl);
    if (rc != 0)
        goto out;
    long long index = 0;
    const char *key = NULL;
    if (sh_array_assoc(b->b_a)) {
        if (sub[0] == '\0') {
            sh_errf(cx, "%s[]: bad array subscript", b->b_name);
            rc = 1;
            goto out;
        }
        key = sub;
    } else {
        if ((rc = sh_arith(cx, sub, strlen(sub), &index)) != 0)
            goto out;
        if (index < 0 && (index += sh_array_max_index(b->b_a) + 1) < 0) {
            sh_errf(cx, "%s[%s]: bad array subscript", b->b_name, sub);
            rc = 1;
            goto out;
        }
        *next = index + 1;
    }
    rc = build_set(b, index, key, val, vl, el->ae_append);
out:
    box_free(sub);
    box_free(val);
    return rc;
}

/* The elements of as into b (plain words split and globbed; for an
 * associative array they pair up as key, value). */
static int
build_elems(build *b, const sh_assign *as)
{
    sh_ctx *cx = b->b_cx;
    bool assoc = sh_array_assoc(b->b_a);
    long long next = assoc ? 0 : sh_array_max_index(b->b_a) + 1;
    char *pending_key = NULL;
    int rc = 0;
    for (const sh_aelem *el = as->a_elems; el != NULL && rc == 0;
         el = el->ae_next) {
        if (el->ae_sub != NULL) {
            rc = elem_sub(b, el, &next);
            continue;
        }
        sh_argv fields;
        sh_argv_init(&fields);
        sh_word one = *el->ae_value;
        one.w_next = NULL;
        rc = sh_expand_words(cx, &one, &fields);
        for (int i = 0; i < fields.av_n && rc == 0; i++) {
            const char *f = fields.av_v[i];
            if (!assoc) {
                rc = build_set(b, next++, NULL, f, strlen(f), false);
            } else if (pending_key == NULL) {
                if ((pending_key = box_strdup(f)) == NULL)
                    rc = sh_var_fail(cx, NULL, b->b_name, BOX_ENOMEM);
            } else {
                rc = build_set(b, 0, pending_key, f, strlen(f), false);
                box_free(pending_key);
                pending_key = NULL;
            }
        }
        sh_argv_free(&fields);
    }
    if (rc == 0 && pending_key != NULL) // bash: a key alone gets ""
        rc = build_set(b, 0, pending_key, "", 0, false);
    box_free(pending_key);
    return rc;
}

int
sh_assign_compound(sh_ctx *cx, const sh_assign *as)
{
    sh_state *st = cx->cx_st;
    const char *name = as->a_name;
    sh_var *v = sh_var_find(st, name);
    if (v != NULL && (v->v_flags & SH_VAR_READONLY))
        return sh_var_fail(cx, NULL, name, BOX_EDENIED);
    if (v != NULL && (v->v_flags & SH_VAR_NOASSIGN)) {
        // bash 5.2: a list assigned to FUNCNAME or BASH_LINENO (=, +=,
        // declare) ends the shell with status 1, saying nothing.
        sh_fatal(cx, 1);
        return 1;
    }
    if (v == NULL && (v = sh_var_add(st, name)) == NULL)
        return sh_var_fail(cx, NULL, name, BOX_ENOMEM);
    size_t used = st->st_varbytes < SH_VARS_MAX_BYTES ? st->st_varbytes
                                                      : SH_VARS_MAX_BYTES;
    build b = {.b_cx = cx, .b_flags = v->v_flags, .b_name = name,
               .b_room = SH_VARS_MAX_BYTES - used};
    if (as->a_append && v->v_arr != NULL) {
        // In place: what is added counts as it goes in.
        b.b_a = v->v_arr;
        b.b_base = sh_array_bytes(v->v_arr);
        int rc = build_elems(&b, as);
        // Expanding the elements may have moved the variables (v), never
        // this array.
        st->st_varbytes += sh_array_bytes(b.b_a) - b.b_base;
        return rc;
    }
    bool assoc = (v->v_flags & SH_VAR_ASSOC) != 0;
    if ((b.b_a = sh_array_new(assoc)) == NULL)
        return sh_var_fail(cx, NULL, name, BOX_ENOMEM);
    // The old value goes when the new array is in: its bytes are room.
    size_t old = (v->v_value ? strlen(v->v_value) : 0) +
                 (v->v_arr ? sh_array_bytes(v->v_arr) : 0);
    b.b_room = b.b_room + old > SH_VARS_MAX_BYTES ? SH_VARS_MAX_BYTES
                                                  : b.b_room + old;
    int rc = 0;
    if (as->a_append && v->v_value != NULL) // a scalar becomes element 0
        rc = build_set(&b, 0, assoc ? "0" : NULL, v->v_value,
                       strlen(v->v_value), false);
    if (rc == 0)
        rc = build_elems(&b, as);
    if (rc != 0) {
        sh_array_free(b.b_a);
        return rc;
    }
    // The flags may have changed (a -i transform): find v again.
    if ((v = sh_var_find(st, name)) == NULL) {
        sh_array_free(b.b_a);
        return sh_var_fail(cx, NULL, name, BOX_ENOMEM);
    }
    box_err e = sh_var_set_array(st, v, b.b_a);
    return e == BOX_OK ? 0 : sh_var_fail(cx, NULL, name, e);
}

int
sh_assign_node(sh_ctx *cx, const sh_assign *a)
{
    if (a->a_compound)
        return sh_assign_compound(cx, a);
    char *v = NULL, *sub = NULL;
    size_t vl = 0;
    int rc = 0;
    if (a->a_sub != NULL && (rc = sub_text(cx, a->a_sub, &sub)) != 0)
        return rc;
    const sh_wpart *p = a->a_value != NULL ? a->a_value->w_parts : NULL;
    if (sub == NULL && p != NULL && p->wp_next == NULL &&
        p->wp_kind == SH_WP_ARITH) {
        // NAME=$((…)), a loop's counter: the number itself is the value,
        // with no expansion buffers (the failure as expand_parts has it).
        long long n = 0;
        if ((rc = sh_expand_arith(cx, NULL, p, &n)) != 0) {
            sh_discard(cx, rc);
            return rc;
        }
        char num[SH_DEC_MAX];
        size_t nl = sh_fmt_dec(num, n);
        return sh_assign_str(cx, NULL, a->a_name, NULL, num, nl, a->a_append);
    }
    if ((rc = sh_expand_str(cx, a->a_value, &v, &vl)) == 0)
        rc = assign_str(cx, NULL, a->a_name, sub, v, vl, a->a_append, &v);
    box_free(v);
    box_free(sub);
    return rc;
}

bool
sh_target_valid(const char *t)
{
    size_t len = strlen(t), n = 0;
    while (n < len && t[n] != '[')
        n++;
    if (!sh_name_valid(t, n) || n > 255)
        return false;
    return n == len || (t[len - 1] == ']' &&
                        sh_lex_bracket_end(t + n, len - n) == len - n - 1);
}

int
sh_assign_target(sh_ctx *cx, const char *who, const char *t, const char *val,
                 size_t vlen)
{
    size_t len = strlen(t), n = 0;
    while (n < len && t[n] != '[')
        n++;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)n, t);
    char *sub = NULL;
    if (n < len && (sub = box_strndup(t + n + 1, len - n - 2)) == NULL)
        return sh_var_fail(cx, who, name, BOX_ENOMEM);
    int rc = sh_assign_str(cx, who, name, sub, val, vlen, false);
    box_free(sub);
    return rc;
}

bool
sh_elem_isset(sh_ctx *cx, const char *t)
{
    const char *br = strchr(t, '[');
    if (br == NULL)
        return sh_var_get(cx->cx_st, t) != NULL;
    size_t n = (size_t)(br - t), len = strlen(t);
    if (!sh_target_valid(t) || n == len)
        return false;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)n, t);
    const sh_var *v = sh_var_find(cx->cx_st, name);
    if (v == NULL)
        return false;
    char *sub = box_strndup(br + 1, len - n - 2);
    if (sub == NULL)
        return false;
    bool set = false;
    long long index;
    const char *key;
    if (strcmp(sub, "@") == 0 || strcmp(sub, "*") == 0)
        set = sh_var_isset(v);
    else if (sh_subscript(cx, name, name, sub, &index, &key) == 0 &&
             (v = sh_var_find(cx->cx_st, name)) != NULL)
        set = v->v_arr != NULL
                  ? (key ? sh_array_get_key(v->v_arr, key)
                         : sh_array_get(v->v_arr, index)) != NULL
                  : v->v_value != NULL && index == 0 &&
                        (key == NULL || strcmp(key, "0") == 0);
    box_free(sub);
    return set;
}
