/* SPDX-License-Identifier: Apache-2.0 */
/* Shell state: variables, functions, positional parameters, options. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_hash.h"
#include "sh_array.h"
#include "sh_internal.h"


/*
 * One sh_state per thread of execution: subshells, pipeline stages and
 * `&` jobs get a deep copy (sh_state_dup), so no lock is ever needed.
 * Variables are found through a hash index (st_vidx); functions by a
 * linear lookup: scripts define a few, not hundreds.
 */

sh_state *
sh_state_new(void)
{
    sh_state *st = box_calloc(1, sizeof *st);
    if (st == NULL)
        return NULL;
    st->st_cwd = box_strdup("/");
    st->st_arg0 = box_strdup("strands-shell");
    if (st->st_cwd == NULL || st->st_arg0 == NULL) {
        sh_state_free(st);
        return NULL;
    }
    // The call stack's two names exist from the start, as bash's do
    // (declare -p shows them outside every function); shaped when first
    // read or listed (sh_calls_sync).
    sh_var *fn = sh_var_add(st, "FUNCNAME");
    if (fn != NULL)
        fn->v_flags |= SH_VAR_NOASSIGN;
    sh_var *ln = fn != NULL ? sh_var_add(st, "BASH_LINENO") : NULL;
    if (ln != NULL)
        ln->v_flags |= SH_VAR_NOASSIGN | SH_VAR_NOUNSET;
    sh_var *src = ln != NULL ? sh_var_add(st, "BASH_SOURCE") : NULL;
    if (src == NULL) {
        sh_state_free(st);
        return NULL;
    }
    src->v_flags |= SH_VAR_NOASSIGN | SH_VAR_NOUNSET;
    st->st_calls_stale = true;
    // IFS is set from the start, as bash's is, to its default (an IFS in
    // the environment only makes it exported: sh_var_import).
    if (sh_var_set(st, "IFS", SH_IFS_DEFAULT, strlen(SH_IFS_DEFAULT)) !=
        BOX_OK) {
        sh_state_free(st);
        return NULL;
    }
    return st;
}

void
sh_state_free(sh_state *st)
{
    if (st == NULL)
        return;
    for (size_t i = 0; i < st->st_nvars; i++) {
        box_free(st->st_vars[i].v_name);
        box_free(st->st_vars[i].v_value);
        sh_array_free(st->st_vars[i].v_arr);
    }
    box_free(st->st_vars);
    box_free(st->st_vidx);
    for (size_t i = 0; i < st->st_nfuncs; i++)
        box_free(st->st_funcs[i].f_name);
    box_free(st->st_funcs);
    for (int i = 0; i < st->st_npos; i++)
        box_free(st->st_pos[i]);
    box_free(st->st_pos);
    for (size_t i = 0; i < st->st_ncalls; i++)
        box_free(st->st_calls[i].sc_name);
    box_free(st->st_calls);
    box_free(st->st_arg0);
    box_free(st->st_cwd);
    box_free(st->st_lcwd);
    box_free(st);
}

sh_state *
sh_state_dup(const sh_state *st)
{
    sh_state *d = box_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    d->st_opt_e = st->st_opt_e;
    d->st_opt_u = st->st_opt_u;
    d->st_opt_x = st->st_opt_x;
    d->st_opt_f = st->st_opt_f;
    d->st_bgpid = st->st_bgpid;
    d->st_opt_pipefail = st->st_opt_pipefail;
    d->st_opt_C = st->st_opt_C;
    d->st_opt_E = st->st_opt_E;
    d->st_opt_T = st->st_opt_T;
    d->st_opt_c = st->st_opt_c;
    d->st_opt_n = st->st_opt_n;
    d->st_shopt = st->st_shopt;
    d->st_shopt_other = st->st_shopt_other;
    memcpy(d->st_disabled, st->st_disabled, sizeof d->st_disabled);
    d->st_cwd = box_strdup(st->st_cwd);
    d->st_arg0 = box_strdup(st->st_arg0);
    if (d->st_cwd == NULL || d->st_arg0 == NULL ||
        (st->st_lcwd != NULL && (d->st_lcwd = box_strdup(st->st_lcwd)) == NULL))
        goto fail;
    if (st->st_nvars > 0) {
        d->st_vars = box_calloc(st->st_nvars, sizeof *d->st_vars);
        if (d->st_vars == NULL)
            goto fail;
        d->st_capvars = st->st_nvars;
        for (size_t i = 0; i < st->st_nvars; i++) {
            sh_var *v = &d->st_vars[i];
            v->v_flags = st->st_vars[i].v_flags;
            v->v_name = box_strdup(st->st_vars[i].v_name);
            d->st_nvars = i + 1;
            if (v->v_name == NULL)
                goto fail;
            if (st->st_vars[i].v_value != NULL &&
                (v->v_value = box_strdup(st->st_vars[i].v_value)) == NULL)
                goto fail;
            if (st->st_vars[i].v_arr != NULL &&
                (v->v_arr = sh_array_dup(st->st_vars[i].v_arr)) == NULL)
                goto fail;
        }
    }
    if (st->st_nfuncs > 0) {
        d->st_funcs = box_calloc(st->st_nfuncs, sizeof *d->st_funcs);
        if (d->st_funcs == NULL)
            goto fail;
        d->st_capfuncs = st->st_nfuncs;
        for (size_t i = 0; i < st->st_nfuncs; i++) {
            d->st_funcs[i].f_body = st->st_funcs[i].f_body;
            d->st_funcs[i].f_source = st->st_funcs[i].f_source;
            d->st_funcs[i].f_name = box_strdup(st->st_funcs[i].f_name);
            d->st_nfuncs = i + 1;
            if (d->st_funcs[i].f_name == NULL)
                goto fail;
        }
    }
    if (st->st_ncalls > 0) {
        // A `&` job or stage inside a function: its own calls go on top.
        d->st_calls = box_calloc(st->st_ncalls, sizeof *d->st_calls);
        if (d->st_calls == NULL)
            goto fail;
        d->st_capcalls = st->st_ncalls;
        for (size_t i = 0; i < st->st_ncalls; i++) {
            d->st_calls[i].sc_line = st->st_calls[i].sc_line;
            d->st_calls[i].sc_source = st->st_calls[i].sc_source;
            d->st_calls[i].sc_kind = st->st_calls[i].sc_kind;
            d->st_calls[i].sc_name = box_strdup(st->st_calls[i].sc_name);
            d->st_ncalls = i + 1;
            if (d->st_calls[i].sc_name == NULL)
                goto fail;
        }
    }
    d->st_nfunc_calls = st->st_nfunc_calls;
    d->st_calls_stale = st->st_calls_stale;
    memcpy(d->st_ps, st->st_ps, sizeof d->st_ps);
    d->st_ps_n = st->st_ps_n;
    d->st_ps_stale = st->st_ps_stale;
    d->st_varbytes = st->st_varbytes;
    if (sh_pos_set(d, st->st_npos, st->st_pos) != BOX_OK)
        goto fail;
    return d;
fail:
    sh_state_free(d);
    return NULL;
}

bool
sh_name_valid(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') ||
                    (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    return true;
}

#define VIDX_LINEAR 8     // fewer variables: a scan is as quick
#define VIDX_MIN_SLOTS 64

static size_t
vidx_slot(const sh_state *st, const char *name)
{
    return (size_t)box_fnv1a(BOX_FNV1A_INIT, name, strlen(name)) &
           st->st_vidx_mask;
}

/* Puts variable i in the index (it has room: at most half full). */
static void
vidx_put(sh_state *st, size_t i)
{
    size_t s = vidx_slot(st, st->st_vars[i].v_name);
    while (st->st_vidx[s] != 0)
        s = (s + 1) & st->st_vidx_mask;
    st->st_vidx[s] = (uint32_t)(i + 1);
}

/* Indexes every variable anew, in a table with room for twice as many.
 * False when out of memory (lookups then scan). */
static bool
vidx_rebuild(sh_state *st)
{
    size_t slots = VIDX_MIN_SLOTS;
    while (slots < 4 * st->st_nvars)
        slots <<= 1;
    if (st->st_vidx == NULL || st->st_vidx_mask + 1 != slots) {
        uint32_t *t = box_calloc(slots, sizeof *t);
        if (t == NULL)
            return false;
        box_free(st->st_vidx);
        st->st_vidx = t;
        st->st_vidx_mask = slots - 1;
    } else {
        memset(st->st_vidx, 0, slots * sizeof *st->st_vidx);
    }
    for (size_t i = 0; i < st->st_nvars; i++)
        vidx_put(st, i);
    st->st_vidx_stale = false;
    return true;
}

/* Takes the last variable (index st_nvars - 1, about to go) out of the
 * index: its slot emptied, the run of slots after it put back, so every
 * probe still finds its name. Nothing else moves in st_vars. */
static void
vidx_drop_last(sh_state *st)
{
    if (st->st_vidx == NULL || st->st_vidx_stale || st->st_nvars == 0)
        return;
    uint32_t gone = (uint32_t)st->st_nvars;
    size_t s = vidx_slot(st, st->st_vars[gone - 1].v_name);
    while (st->st_vidx[s] != 0 && st->st_vidx[s] != gone)
        s = (s + 1) & st->st_vidx_mask;
    if (st->st_vidx[s] == 0) {
        st->st_vidx_stale = true; // not indexed: never so, but safe
        return;
    }
    st->st_vidx[s] = 0;
    for (size_t j = (s + 1) & st->st_vidx_mask; st->st_vidx[j] != 0;
         j = (j + 1) & st->st_vidx_mask) {
        uint32_t e = st->st_vidx[j];
        st->st_vidx[j] = 0;
        vidx_put(st, e - 1);
    }
}

/* The hint slot of a name: its first two bytes. (Not the address of the
 * name asked with: a command's words are made anew each time.) */
static size_t
vhint_slot(const char *name)
{
    unsigned a = (unsigned char)name[0];
    unsigned b = a != 0 ? (unsigned char)name[1] : 0;
    return (a * 7u + b) & (SH_VAR_HINTS - 1);
}

static sh_var *find_slow(sh_state *st, const char *name);
static void pipestatus_show(sh_state *st);

/* strcmp(a, b) == 0 for names, compared in line: they are a few bytes,
 * and the call was most of a hinted lookup. */
static inline bool
name_eq(const char *a, const char *b)
{
    for (; *a == *b; a++, b++)
        if (*a == '\0')
            return true;
    return false;
}

sh_var *
sh_var_find_raw(sh_state *st, const char *name)
{
    if (st->st_calls_stale && (name[0] == 'F' || name[0] == 'B') &&
        (strcmp(name, "FUNCNAME") == 0 || strcmp(name, "BASH_LINENO") == 0 ||
         strcmp(name, "BASH_SOURCE") == 0))
        sh_calls_sync(st);
    if (st->st_ps_stale && name[0] == 'P' && strcmp(name, "PIPESTATUS") == 0)
        pipestatus_show(st);
    size_t h = vhint_slot(name);
    size_t i = st->st_vhint[h];
    // Names are unique in st_vars: the one that has the name is it.
    if (i < st->st_nvars && name_eq(st->st_vars[i].v_name, name))
        return &st->st_vars[i];
    sh_var *v = find_slow(st, name);
    if (v != NULL)
        st->st_vhint[h] = (size_t)(v - st->st_vars);
    return v;
}

/* The name a name reference holds when it names a variable: a valid
 * name (a subscript or nothing names none). */
static const char *
ref_target(const sh_var *v)
{
    const char *t = v->v_value;
    return t != NULL && t[0] != '\0' && sh_name_valid(t, strlen(t)) ? t : NULL;
}

const char *
sh_var_deref(sh_state *st, const char *name)
{
    for (int hop = 0; hop < SH_NAMEREF_HOPS; hop++) {
        const sh_var *v = sh_var_find_raw(st, name);
        const char *t;
        if (v == NULL || !(v->v_flags & SH_VAR_NAMEREF) ||
            (t = ref_target(v)) == NULL)
            break;
        name = t;
    }
    return name;
}

sh_var *
sh_var_find(sh_state *st, const char *name)
{
    sh_var *v = sh_var_find_raw(st, name);
    if (v == NULL || !(v->v_flags & SH_VAR_NAMEREF) || ref_target(v) == NULL)
        return v;
    return sh_var_find_raw(st, sh_var_deref(st, name));
}

static sh_var *
find_slow(sh_state *st, const char *name)
{
    if (st->st_nvars >= VIDX_LINEAR &&
        ((st->st_vidx != NULL && !st->st_vidx_stale) || vidx_rebuild(st))) {
        for (size_t s = vidx_slot(st, name); st->st_vidx[s] != 0;
             s = (s + 1) & st->st_vidx_mask) {
            sh_var *v = &st->st_vars[st->st_vidx[s] - 1];
            if (strcmp(v->v_name, name) == 0)
                return v;
        }
        return NULL;
    }
    // Compared in line: most names differ at their first byte, and a
    // strcmp call per variable was most of a lookup.
    for (size_t i = 0; i < st->st_nvars; i++)
        if (name_eq(st->st_vars[i].v_name, name))
            return &st->st_vars[i];
    return NULL;
}

/* Bytes a variable holds, for st_varbytes. */
static size_t
var_bytes(const sh_var *v)
{
    return strlen(v->v_name) + (v->v_value ? strlen(v->v_value) : 0) +
           (v->v_arr ? sh_array_bytes(v->v_arr) : 0);
}

bool
sh_var_isset(const sh_var *v)
{
    return v->v_value != NULL ||
           (v->v_arr != NULL && sh_array_count(v->v_arr) > 0);
}

const char *
sh_var_get(const sh_state *st, const char *name)
{
    sh_var *v = sh_var_find((sh_state *)st, name);
    if (v == NULL)
        return NULL;
    if (v->v_arr != NULL)
        return sh_array_assoc(v->v_arr) ? sh_array_get_key(v->v_arr, "0")
                                        : sh_array_get(v->v_arr, 0);
    return v->v_value;
}

sh_var *
sh_var_add(sh_state *st, const char *name)
{
    return sh_var_add_raw(st, sh_var_deref(st, name));
}

sh_var *
sh_var_add_raw(sh_state *st, const char *name)
{
    sh_var *v = sh_var_find_raw(st, name);
    if (v != NULL)
        return v;
    if (st->st_nvars == st->st_capvars) {
        size_t cap = st->st_capvars ? st->st_capvars * 2 : 16;
        sh_var *nv = box_realloc(st->st_vars, cap * sizeof *nv);
        if (nv == NULL)
            return NULL;
        st->st_vars = nv;
        st->st_capvars = cap;
    }
    v = &st->st_vars[st->st_nvars];
    memset(v, 0, sizeof *v);
    if ((v->v_name = box_strdup(name)) == NULL)
        return NULL;
    st->st_nvars++;
    // Kept in step while it has room; past half full, rebuilt larger at
    // the next lookup.
    if (st->st_vidx != NULL && !st->st_vidx_stale) {
        if (2 * st->st_nvars <= st->st_vidx_mask + 1)
            vidx_put(st, st->st_nvars - 1);
        else
            st->st_vidx_stale = true;
    }
    st->st_varbytes += strlen(name);
    return v;
}

/* Whether replacing old bytes with add bytes stays under the cap. */
static bool
bytes_fit(const sh_state *st, size_t old, size_t add)
{
    return st->st_varbytes - old + add <= SH_VARS_MAX_BYTES;
}

/* sh_var_set's body: value is copied, or with take (*take == value)
 * adopted, and *take then set to NULL. */
static box_err
set_scalar(sh_state *st, sh_var *v, const char *name, const char *value,
           size_t vlen, char **take)
{
    if (v != NULL && (v->v_flags & SH_VAR_READONLY))
        return BOX_EDENIED;
    if (v != NULL && (v->v_flags & SH_VAR_NOASSIGN))
        return BOX_OK; // bash: the assignment is let be
    if (v != NULL && v->v_arr != NULL)
        return sh_var_set_elem(st, v->v_name, 0, "0", value, vlen);
    size_t old = v != NULL && v->v_value ? strlen(v->v_value) : 0;
    if (!bytes_fit(st, old, vlen))
        return BOX_ETOOBIG;
    if (take == NULL && v != NULL && v->v_value != NULL && vlen < v->v_cap) {
        // A loop's `n=$((n+1))` or `read line`: the block it has takes
        // the new value, with no allocation (value may lie inside it).
        memmove(v->v_value, value, vlen);
        v->v_value[vlen] = '\0';
        st->st_varbytes = st->st_varbytes - old + strlen(v->v_value);
        return BOX_OK;
    }
    // Some room to grow into: the next value is often a little longer.
    size_t cap = take != NULL ? vlen + 1 : (vlen + 16) & ~(size_t)15;
    char *copy = take != NULL ? *take : box_alloc(cap);
    if (copy == NULL)
        return BOX_ENOMEM;
    if (take == NULL) {
        memcpy(copy, value, vlen);
        copy[vlen] = '\0';
    }
    // No variable yet: the one name names (through its references).
    if (v == NULL && (v = sh_var_add(st, name)) == NULL) {
        if (take == NULL)
            box_free(copy);
        return BOX_ENOMEM;
    }
    if (take != NULL)
        *take = NULL; // the variable's now
    box_free(v->v_value);
    v->v_value = copy;
    v->v_cap = cap;
    st->st_varbytes = st->st_varbytes - old + strlen(copy);
    return BOX_OK;
}

box_err
sh_var_set(sh_state *st, const char *name, const char *value, size_t vlen)
{
    return set_scalar(st, sh_var_find(st, name), name, value, vlen, NULL);
}

box_err
sh_var_set_take(sh_state *st, const char *name, char **value, size_t vlen)
{
    return set_scalar(st, sh_var_find(st, name), name, *value, vlen, value);
}

box_err
sh_var_import(sh_state *st, const char *name, const char *value, size_t vlen)
{
    box_err e =
        strcmp(name, "IFS") == 0 ? BOX_OK : sh_var_set(st, name, value, vlen);
    return e == BOX_OK ? sh_var_export(st, name) : e;
}

box_err
sh_var_set_found(sh_state *st, sh_var *v, const char *name, const char *value,
                 size_t vlen, char **take)
{
    return set_scalar(st, v, name, take != NULL ? *take : value, vlen, take);
}

box_err
sh_var_set_elem(sh_state *st, const char *name, long long index,
                const char *key, const char *value, size_t vlen)
{
    sh_var *v = sh_var_find(st, name);
    if (v != NULL && (v->v_flags & SH_VAR_READONLY))
        return BOX_EDENIED;
    if (v != NULL && (v->v_flags & SH_VAR_NOASSIGN))
        return BOX_OK;
    if (!bytes_fit(st, 0, vlen + (key ? strlen(key) : 0)))
        return BOX_ETOOBIG;
    if (v == NULL && (v = sh_var_add(st, name)) == NULL)
        return BOX_ENOMEM;
    if (v->v_arr == NULL) {
        bool assoc = (v->v_flags & SH_VAR_ASSOC) != 0;
        sh_array *a = sh_array_new(assoc);
        if (a == NULL)
            return BOX_ENOMEM;
        if (v->v_value != NULL) {
            // A scalar becomes element 0 of the new array, as in bash.
            box_err e = assoc ? sh_array_set_key(a, "0", v->v_value,
                                                 strlen(v->v_value))
                              : sh_array_set(a, 0, v->v_value,
                                             strlen(v->v_value));
            if (e != BOX_OK) {
                sh_array_free(a);
                return e;
            }
        }
        box_err e = sh_var_set_array(st, v, a);
        if (e != BOX_OK)
            return e;
    }
    size_t before = sh_array_bytes(v->v_arr);
    box_err e = sh_array_assoc(v->v_arr)
                    ? sh_array_set_key(v->v_arr, key ? key : "0", value, vlen)
                    : sh_array_set(v->v_arr, index, value, vlen);
    st->st_varbytes = st->st_varbytes - before + sh_array_bytes(v->v_arr);
    return e;
}

void
sh_var_unset_elem(sh_state *st, sh_var *v, long long index, const char *key)
{
    if (v->v_arr == NULL) {
        if (index == 0 && (key == NULL || strcmp(key, "0") == 0))
            sh_var_unset(st, v->v_name);
        return;
    }
    size_t before = sh_array_bytes(v->v_arr);
    if (sh_array_assoc(v->v_arr))
        sh_array_unset_key(v->v_arr, key ? key : "0");
    else
        sh_array_unset(v->v_arr, index);
    st->st_varbytes = st->st_varbytes - before + sh_array_bytes(v->v_arr);
}

box_err
sh_var_set_array(sh_state *st, sh_var *v, sh_array *a)
{
    size_t add = a ? sh_array_bytes(a) : 0;
    size_t old = var_bytes(v) - strlen(v->v_name);
    if (v->v_flags & (SH_VAR_READONLY | SH_VAR_NOASSIGN)) {
        sh_array_free(a);
        return v->v_flags & SH_VAR_READONLY ? BOX_EDENIED : BOX_OK;
    }
    if (!bytes_fit(st, old, add)) {
        sh_array_free(a);
        return BOX_ETOOBIG;
    }
    box_free(v->v_value);
    v->v_value = NULL;
    v->v_cap = 0;
    sh_array_free(v->v_arr);
    v->v_arr = a;
    if (a != NULL)
        v->v_flags |= sh_array_assoc(a) ? SH_VAR_ASSOC : SH_VAR_ARRAY;
    st->st_varbytes = st->st_varbytes - old + add;
    return BOX_OK;
}

box_err
sh_var_export(sh_state *st, const char *name)
{
    sh_var *v = sh_var_add(st, name);
    if (v == NULL)
        return BOX_ENOMEM;
    v->v_flags |= SH_VAR_EXPORT;
    return BOX_OK;
}

void
sh_var_unset(sh_state *st, const char *name)
{
    sh_var_unset_raw(st, sh_var_deref(st, name));
}

void
sh_var_unset_raw(sh_state *st, const char *name)
{
    sh_var *v = sh_var_find_raw(st, name);
    if (v == NULL)
        return;
    size_t b = var_bytes(v);
    st->st_varbytes = st->st_varbytes > b ? st->st_varbytes - b : 0;
    size_t i = (size_t)(v - st->st_vars);
    if (i + 1 == st->st_nvars)
        vidx_drop_last(st); // a function's local, as a rule
    else
        st->st_vidx_stale = true; // the entries after it move
    box_free(v->v_name);
    box_free(v->v_value);
    sh_array_free(v->v_arr);
    memmove(v, v + 1, (st->st_nvars - i - 1) * sizeof *v);
    st->st_nvars--;
}

const sh_func *
sh_func_find(const sh_state *st, const char *name)
{
    for (size_t i = 0; i < st->st_nfuncs; i++)
        if (strcmp(st->st_funcs[i].f_name, name) == 0)
            return &st->st_funcs[i];
    return NULL;
}

box_err
sh_func_set(sh_state *st, const char *name, const char *source,
            const sh_node *body)
{
    sh_func *f = (sh_func *)sh_func_find(st, name);
    if (f != NULL) {
        f->f_body = body;
        f->f_source = source;
        return BOX_OK;
    }
    if (st->st_nfuncs == st->st_capfuncs) {
        size_t cap = st->st_capfuncs ? st->st_capfuncs * 2 : 8;
        sh_func *nf = box_realloc(st->st_funcs, cap * sizeof *nf);
        if (nf == NULL)
            return BOX_ENOMEM;
        st->st_funcs = nf;
        st->st_capfuncs = cap;
    }
    f = &st->st_funcs[st->st_nfuncs];
    if ((f->f_name = box_strdup(name)) == NULL)
        return BOX_ENOMEM;
    f->f_body = body;
    f->f_source = source;
    st->st_nfuncs++;
    return BOX_OK;
}

void
sh_func_unset(sh_state *st, const char *name)
{
    sh_func *f = (sh_func *)sh_func_find(st, name);
    if (f == NULL)
        return;
    box_free(f->f_name);
    size_t i = (size_t)(f - st->st_funcs);
    memmove(f, f + 1, (st->st_nfuncs - i - 1) * sizeof *f);
    st->st_nfuncs--;
}

box_err
sh_pos_set(sh_state *st, int n, char *const *argv)
{
    char **v = box_calloc((size_t)n + 1, sizeof *v);
    if (v == NULL)
        return BOX_ENOMEM;
    for (int i = 0; i < n; i++) {
        if ((v[i] = box_strdup(argv[i])) == NULL) {
            for (int j = 0; j < i; j++)
                box_free(v[j]);
            box_free(v);
            return BOX_ENOMEM;
        }
    }
    for (int i = 0; i < st->st_npos; i++)
        box_free(st->st_pos[i]);
    box_free(st->st_pos);
    st->st_pos = v;
    st->st_npos = n;
    return BOX_OK;
}

/* var takes the elements a (taken), even when a script made it
 * readonly, or it is one a script may not assign. */
static box_err
special_set(sh_state *st, sh_var *var, sh_array *a)
{
    unsigned keep = var->v_flags & (SH_VAR_READONLY | SH_VAR_NOASSIGN);
    var->v_flags &= ~(SH_VAR_READONLY | SH_VAR_NOASSIGN);
    box_err e = sh_var_set_array(st, var, a);
    var->v_flags |= keep;
    return e;
}

/* name becomes the indexed array v[0..n): bash's own arrays
 * (BASH_REMATCH, PIPESTATUS), set even when a script made them
 * readonly. */
static box_err
special_array(sh_state *st, const char *name, int n, char *const *v)
{
    // Set again and again, mostly to what they hold (PIPESTATUS after
    // every command, one 0 after another): then no array is made and
    // freed.
    const sh_var *cur = sh_var_find(st, name);
    bool same = cur != NULL && cur->v_arr != NULL &&
                !sh_array_assoc(cur->v_arr) &&
                sh_array_count(cur->v_arr) == (size_t)n;
    for (int i = 0; same && i < n; i++) {
        const char *e = sh_array_get(cur->v_arr, i);
        same = e != NULL && strcmp(e, v[i]) == 0;
    }
    if (same)
        return BOX_OK;
    sh_array *a = sh_array_new(false);
    sh_var *var = sh_var_add(st, name);
    if (a == NULL || var == NULL) {
        sh_array_free(a);
        return BOX_ENOMEM;
    }
    for (int i = 0; i < n; i++) {
        box_err e = sh_array_set(a, i, v[i], strlen(v[i]));
        if (e != BOX_OK) {
            sh_array_free(a);
            return e;
        }
    }
    return special_set(st, var, a);
}

box_err
sh_rematch_set(sh_state *st, int n, char *const *argv)
{
    return special_array(st, "BASH_REMATCH", n, argv);
}

box_err
sh_pipestatus_set(sh_state *st, int n, const int *status)
{
    if (n < 1 || n > (int)SH_MAX_PIPELINE)
        return BOX_EINVAL;
    memcpy(st->st_ps, status, (size_t)n * sizeof *status);
    st->st_ps_n = n;
    st->st_ps_stale = true;
    return BOX_OK;
}

/* PIPESTATUS made from st_ps. Out of memory, it keeps what it held. */
static void
pipestatus_show(sh_state *st)
{
    char num[SH_MAX_PIPELINE][SH_DEC_MAX];
    char *v[SH_MAX_PIPELINE];
    st->st_ps_stale = false; // first: special_array looks the name up
    for (int i = 0; i < st->st_ps_n; i++) {
        sh_fmt_dec(num[i], st->st_ps[i]);
        v[i] = num[i];
    }
    (void)special_array(st, "PIPESTATUS", st->st_ps_n, v);
}

#define OPT(name, letter, field)                                               \
    {name, letter, offsetof(sh_state, field), true, false}
#define FIXED(name, value) {name, 0, 0, false, value}

/* bash 5.2's `set -o` list, in its order. */
const sh_option sh_options[] = {
    FIXED("allexport", false),
    FIXED("braceexpand", true),
    FIXED("emacs", false),
    OPT("errexit", 'e', st_opt_e),
    OPT("errtrace", 'E', st_opt_E),
    OPT("functrace", 'T', st_opt_T),
    FIXED("hashall", true),
    FIXED("histexpand", false),
    FIXED("history", false),
    FIXED("ignoreeof", false),
    FIXED("interactive-comments", true),
    FIXED("keyword", false),
    FIXED("monitor", false),
    OPT("noclobber", 'C', st_opt_C),
    OPT("noexec", 'n', st_opt_n),
    OPT("noglob", 'f', st_opt_f),
    FIXED("nolog", false),
    FIXED("notify", false),
    OPT("nounset", 'u', st_opt_u),
    FIXED("onecmd", false),
    FIXED("physical", false),
    OPT("pipefail", 0, st_opt_pipefail),
    FIXED("posix", false),
    FIXED("privileged", false),
    FIXED("verbose", false),
    FIXED("vi", false),
    OPT("xtrace", 'x', st_opt_x),
};
const size_t sh_noptions = sizeof sh_options / sizeof sh_options[0];

const sh_option *
sh_option_find(const char *name, char c)
{
    for (size_t i = 0; i < sh_noptions; i++) {
        const sh_option *o = &sh_options[i];
        if (name != NULL ? strcmp(o->so_name, name) == 0
                         : (c != 0 && o->so_letter == c))
            return o;
    }
    return NULL;
}

bool
sh_option_get(const sh_state *st, const sh_option *o)
{
    if (!o->so_has)
        return o->so_fixed;
    return *(const bool *)((const char *)st + o->so_off);
}

bool
sh_option_set(sh_state *st, const sh_option *o, bool on)
{
    if (!o->so_has)
        return on == o->so_fixed;
    *(bool *)((char *)st + o->so_off) = on;
    return true;
}

box_err
sh_calls_push(sh_state *st, sh_call_kind kind, const char *name, uint32_t line,
              const char *source)
{
    if (st->st_ncalls == st->st_capcalls) {
        size_t cap = st->st_capcalls ? st->st_capcalls * 2 : 16;
        sh_call *c = box_realloc(st->st_calls, cap * sizeof *c);
        if (c == NULL)
            return BOX_ENOMEM;
        st->st_calls = c;
        st->st_capcalls = cap;
    }
    char *copy = box_strdup(name);
    if (copy == NULL)
        return BOX_ENOMEM;
    st->st_calls[st->st_ncalls++] = (sh_call){
        .sc_name = copy, .sc_line = line, .sc_source = source, .sc_kind = kind};
    if (kind == SH_CALL_FUNC)
        st->st_nfunc_calls++;
    st->st_calls_stale = true;
    return BOX_OK;
}

const sh_call *
sh_calls_at(const sh_state *st, size_t i)
{
    return i < st->st_ncalls ? &st->st_calls[st->st_ncalls - 1 - i] : NULL;
}

void
sh_calls_pop(sh_state *st)
{
    if (st->st_ncalls == 0)
        return;
    sh_call *c = &st->st_calls[--st->st_ncalls];
    if (c->sc_kind == SH_CALL_FUNC)
        st->st_nfunc_calls--;
    box_free(c->sc_name);
    st->st_calls_stale = true;
}

/* What calls_show makes of each frame. */
typedef enum calls_part { CALLS_NAME, CALLS_LINE, CALLS_SOURCE } calls_part;

/* var becomes the frames' names, lines or sources, innermost first: an
 * array with no elements outside every frame; FUNCNAME declared with no
 * value while no function runs. */
static void
calls_show(sh_state *st, const char *var, calls_part part)
{
    sh_var *v = sh_var_find(st, var);
    if (v == NULL)
        return; // unset by the script: it stays so (bash's rule)
    sh_array *a = NULL;
    if (part != CALLS_NAME || st->st_nfunc_calls > 0) {
        if ((a = sh_array_new(false)) == NULL)
            return; // out of memory: the arrays show an older stack
        for (size_t i = 0; i < st->st_ncalls; i++) {
            const sh_call *c = &st->st_calls[st->st_ncalls - 1 - i];
            char num[SH_DEC_MAX];
            const char *text = c->sc_name;
            if (part == CALLS_LINE) {
                sh_fmt_dec(num, (long long)c->sc_line);
                text = num;
            } else if (part == CALLS_SOURCE) {
                text = c->sc_source != NULL ? c->sc_source : "environment";
            }
            if (sh_array_set(a, (long long)i, text, strlen(text)) != BOX_OK) {
                sh_array_free(a);
                return;
            }
        }
    }
    v->v_flags |= SH_VAR_ARRAY;
    (void)special_set(st, v, a);
}

void
sh_calls_sync(sh_state *st)
{
    if (st->st_ps_stale)
        pipestatus_show(st);
    if (!st->st_calls_stale)
        return;
    st->st_calls_stale = false; // first: calls_show looks names up
    calls_show(st, "FUNCNAME", CALLS_NAME);
    calls_show(st, "BASH_LINENO", CALLS_LINE);
    calls_show(st, "BASH_SOURCE", CALLS_SOURCE);
}
