/* SPDX-License-Identifier: Apache-2.0 */
/* declare, typeset, local, readonly, export: attributes and -p listings. */
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_utf8.h"
#include "sh_array.h"
#include "sh_internal.h"

/*
 * The five declaration builtins are one function over a row each (STYLE
 * §10): which option letters the name takes, the attribute it always
 * sets, where its names live, and bash's usage line for a bad option.
 * `-p` and a listing print what bash 5.2 prints (`declare -a a=([0]="x")`),
 * so a script that saves `declare -p` output reads it back the same.
 */

typedef enum decl_scope {
    DS_DECLARE, // local inside a function unless -g
    DS_LOCAL,   // local; only inside a function
    DS_GLOBAL,  // readonly, export: the name where it is found
} decl_scope;

typedef struct decl_row {
    const char *dr_name;
    const char *dr_letters; // options taken (with - or +)
    unsigned dr_always;     // SH_VAR_* every name gets
    decl_scope dr_scope;
    const char *dr_usage;
} decl_row;

static const decl_row decl_rows[] = {
    {"declare", "aAfFgiIlnprtux", 0, DS_DECLARE,
     "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p "
     "[-aAfFilnrtux] [name ...]"},
    {"typeset", "aAfFgiIlnprtux", 0, DS_DECLARE,
     "typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] "
     "[name ...]"},
    {"local", "aAfFgiIlnprtux", 0, DS_LOCAL, "local [option] name[=value] ..."},
    {"readonly", "aAfp", SH_VAR_READONLY, DS_GLOBAL,
     "readonly [-aAf] [name[=value] ...] or readonly -p"},
    {"export", "fnp", SH_VAR_EXPORT, DS_GLOBAL,
     "export [-fn] [name[=value] ...] or export -p"},
};

/* ORDER: bash's var_attribute_string. */
static const struct {
    unsigned flag;
    char letter;
} attr_letters[] = {
    {SH_VAR_ARRAY, 'a'},    {SH_VAR_ASSOC, 'A'},   {SH_VAR_INTEGER, 'i'},
    {SH_VAR_NAMEREF, 'n'},  {SH_VAR_READONLY, 'r'}, {SH_VAR_EXPORT, 'x'},
    {SH_VAR_LOWER, 'l'},    {SH_VAR_UPPER, 'u'},
};

static unsigned
letter_flag(char c)
{
    for (size_t i = 0; i < sizeof attr_letters / sizeof attr_letters[0]; i++)
        if (attr_letters[i].letter == c)
            return attr_letters[i].flag;
    return 0;
}

/* ---- printing (declare -p) ---- */

/* bash's sh_contains_shell_metas: a value with one of these is printed
 * in single quotes; `~` counts at the start or after = or :, `#` at the
 * start only. */
static bool
has_metas(const char *s)
{
    for (const char *p = s; *p; p++) {
        if (strchr(" \t\n'\"\\|&;()<>!{}*[?]^$`", *p) != NULL)
            return true;
        if (*p == '~' && (p == s || p[-1] == '=' || p[-1] == ':'))
            return true;
        if (*p == '#' && p == s)
            return true;
    }
    return false;
}

/* v in single quotes, each `'` as '\'' . */
static box_err
put_single_quoted(box_buf *b, const char *v)
{
    box_err e = box_buf_putc(b, '\'');
    for (const char *p = v; *p && e == BOX_OK; p++)
        e = *p == '\'' ? box_buf_puts(b, "'\\''") : box_buf_putc(b, *p);
    return e == BOX_OK ? box_buf_putc(b, '\'') : e;
}

box_err
sh_put_word(box_buf *b, const char *v)
{
    if (sh_needs_ansic(v))
        return sh_put_ansic(b, v);
    if (!has_metas(v))
        return box_buf_puts(b, v);
    return put_single_quoted(b, v);
}

box_err
sh_put_xtrace_word(box_buf *b, const char *v)
{
    if (v[0] == '\0')
        return box_buf_puts(b, "''");
    bool ctl = false;
    for (const char *p = v; *p != '\0' && !ctl; p++)
        ctl = (unsigned char)*p < 0x20 || *p == 0x7f;
    if (!ctl && !has_metas(v))
        return box_buf_puts(b, v);
    return put_single_quoted(b, v);
}

/* A control byte or a byte that is no UTF-8 (bash: not printable in
 * C.UTF-8) makes bash write the value as $'…'. */
bool
sh_needs_ansic(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return true;
    return !box_utf8_valid(s, strlen(s));
}

/* bash's $'…' quoting (ansic_quote) for a value with control bytes. */
box_err
sh_put_ansic(box_buf *b, const char *s)
{
    box_err e = box_buf_puts(b, "$'");
    for (const unsigned char *p = (const unsigned char *)s; *p && !e; p++) {
        if (*p >= 0x80) {
            // A whole UTF-8 character stays; a stray byte is octal.
            uint32_t cp;
            size_t n = box_utf8_decode((const char *)p, strlen((const char *)p),
                                       &cp);
            if (n == 0)
                e = box_buf_printf(b, "\\%03o", *p);
            else
                e = box_buf_append(b, (const char *)p, n);
            p += n > 0 ? n - 1 : 0;
            continue;
        }
        const char *esc = NULL;
        switch (*p) {
        case '\a': esc = "\\a"; break;
        case '\b': esc = "\\b"; break;
        case 0x1b: esc = "\\E"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\v': esc = "\\v"; break;
        case '\\': esc = "\\\\"; break;
        case '\'': esc = "\\'"; break;
        default: break;
        }
        if (esc != NULL)
            e = box_buf_puts(b, esc);
        else if (*p < 0x20 || *p == 0x7f)
            e = box_buf_printf(b, "\\%03o", *p);
        else
            e = box_buf_putc(b, (char)*p);
    }
    return e ? e : box_buf_putc(b, '\'');
}

/* A value as bash's declare -p writes it: "…" with \ " $ ` escaped. */
static box_err
put_value(box_buf *b, const char *s)
{
    if (sh_needs_ansic(s))
        return sh_put_ansic(b, s);
    box_err e = box_buf_putc(b, '"');
    for (const char *p = s; *p && !e; p++) {
        if (strchr("\\\"$`", *p) != NULL)
            e = box_buf_putc(b, '\\');
        if (!e)
            e = box_buf_putc(b, *p);
    }
    return e ? e : box_buf_putc(b, '"');
}

/* An associative key: bare unless it holds a shell metacharacter (bash's
 * sh_contains_shell_metas: `~` and `#` only at the start). */
static box_err
put_key(box_buf *b, const char *k)
{
    bool meta = k[0] == '~' || k[0] == '#' || k[0] == '\0';
    for (const char *p = k; *p && !meta; p++)
        meta = strchr(" \t\n'\"\\|&;()<>!{}*[?]^$`", *p) != NULL;
    return meta ? put_value(b, k) : box_buf_puts(b, k);
}

box_err
sh_put_array(box_buf *b, const sh_array *a)
{
    bool assoc = sh_array_assoc(a);
    box_err e = box_buf_putc(b, '(');
    for (size_t i = 0; i < sh_array_count(a) && !e; i++) {
        const char *key;
        long long index;
        const char *val = sh_array_at(a, i, &key, &index);
        if (i > 0 && !assoc)
            e = box_buf_putc(b, ' ');
        if (!e)
            e = box_buf_putc(b, '[');
        if (!e)
            e = assoc ? put_key(b, key) : box_buf_printf(b, "%lld", index);
        if (!e)
            e = box_buf_puts(b, "]=");
        if (!e)
            e = put_value(b, val);
        if (!e && assoc)
            e = box_buf_putc(b, ' ');
    }
    return e ? e : box_buf_putc(b, ')');
}

static box_err
put_decl(box_buf *b, const sh_var *v)
{
    char fl[16];
    size_t n = 0;
    for (size_t i = 0; i < sizeof attr_letters / sizeof attr_letters[0]; i++)
        if (v->v_flags & attr_letters[i].flag)
            fl[n++] = attr_letters[i].letter;
    if (n == 0)
        fl[n++] = '-';
    fl[n] = '\0';
    box_err e = box_buf_printf(b, "declare -%s %s", fl, v->v_name);
    if (e)
        return e;
    if (v->v_arr != NULL) {
        if (!(e = box_buf_putc(b, '=')))
            e = sh_put_array(b, v->v_arr);
    } else if (v->v_value != NULL) {
        if (!(e = box_buf_putc(b, '=')))
            e = put_value(b, v->v_value);
    }
    return e ? e : box_buf_putc(b, '\n');
}

static int
cmp_var(const void *a, const void *b)
{
    const sh_var *const *x = a, *const *y = b;
    return strcmp((*x)->v_name, (*y)->v_name);
}

/* The end of a listing built in b: written to stdout (e BOX_OK), else
 * out of memory; b is released. The status, rc when all went well. */
static int
emit(sh_ctx *cx, const char *who, box_buf *b, box_err e, int rc)
{
    if (e)
        rc = sh_cmd_err(cx, who, 1, "out of memory");
    else if (b->b_len > 0 && sh_write(cx, 1, b->b_data, b->b_len) != SH_IO_OK)
        rc = 1;
    box_buf_reset(b);
    return rc;
}

/* Every variable having all of the attributes in mask, sorted by name
 * as bash lists them. */
static int
print_all(sh_ctx *cx, const char *who, unsigned mask)
{
    sh_state *st = cx->cx_st;
    sh_calls_sync(st); // FUNCNAME, BASH_LINENO as they are
    const sh_var **sorted = box_calloc(st->st_nvars + 1, sizeof *sorted);
    if (sorted == NULL)
        return sh_cmd_err(cx, who, 1, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < st->st_nvars; i++)
        if ((st->st_vars[i].v_flags & mask) == mask)
            sorted[n++] = &st->st_vars[i];
    qsort(sorted, n, sizeof *sorted, cmp_var);
    box_buf b;
    box_buf_init(&b, 64u << 20);
    box_err e = BOX_OK;
    for (size_t i = 0; i < n && !e; i++)
        e = put_decl(&b, sorted[i]);
    box_free(sorted);
    return emit(cx, who, &b, e, 0);
}

static int
print_names(sh_ctx *cx, const char *who, int argc, char **argv, int first)
{
    box_buf b;
    box_buf_init(&b, 64u << 20);
    int rc = 0;
    box_err e = BOX_OK;
    for (int i = first; i < argc && !e; i++) {
        // A name reference shows itself (declare -n r="target"), as bash.
        const sh_var *v = sh_var_find_raw(cx->cx_st, argv[i]);
        if (v == NULL) {
            rc = sh_cmd_err(cx, who, 1, "%s: not found", argv[i]);
            continue;
        }
        e = put_decl(&b, v);
    }
    return emit(cx, who, &b, e, rc);
}

/* ---- declaring ---- */

typedef struct decl_req {
    const decl_row *r;
    unsigned on, off;
    bool global; // -g
    const sh_word *compound; // the next declare NAME=( … ) word to use
} decl_req;

/* The NAME=( … ) word of this simple command for name (sh_exec keeps the
 * command's words in cx_compound while a declaration builtin runs). */
static const sh_assign *
take_compound(sh_ctx *cx, decl_req *q, const char *name)
{
    for (const sh_word *w = q->compound; w != NULL; w = w->w_next) {
        if (w->w_assign != NULL && strcmp(w->w_assign->a_name, name) == 0) {
            q->compound = w->w_next;
            return w->w_assign;
        }
    }
    (void)cx;
    return NULL;
}

/* The attributes of v change by q; 0 or 1 after bash's message. */
static int
apply_attrs(sh_ctx *cx, const decl_req *q, sh_var *v)
{
    const char *who = q->r->dr_name;
    unsigned on = q->on | q->r->dr_always, off = q->off;
    if (strcmp(who, "export") == 0 && (on & SH_VAR_NAMEREF)) {
        on &= ~(SH_VAR_NAMEREF | SH_VAR_EXPORT); // export -n: unexport
        off |= SH_VAR_EXPORT;
    }
    // A readonly keeps its value, but may gain attributes (bash).
    if ((v->v_flags & SH_VAR_READONLY) && (off & SH_VAR_READONLY))
        return sh_var_fail(cx, who, v->v_name, BOX_EDENIED);
    if ((on & SH_VAR_ASSOC) && (v->v_flags & SH_VAR_ARRAY)) {
        sh_errf(cx, "%s: %s: cannot convert indexed to associative array",
                who, v->v_name);
        return 1;
    }
    if ((on & SH_VAR_ARRAY) && (v->v_flags & SH_VAR_ASSOC)) {
        sh_errf(cx, "%s: %s: cannot convert associative to indexed array",
                who, v->v_name);
        return 1;
    }
    if ((on & (SH_VAR_ARRAY | SH_VAR_ASSOC)) && v->v_arr == NULL &&
        v->v_value != NULL) {
        // A scalar becomes element 0 (key "0").
        bool assoc = (on & SH_VAR_ASSOC) != 0;
        sh_array *a = sh_array_new(assoc);
        box_err e = a == NULL ? BOX_ENOMEM
                    : assoc   ? sh_array_set_key(a, "0", v->v_value,
                                                 strlen(v->v_value))
                              : sh_array_set(a, 0, v->v_value,
                                             strlen(v->v_value));
        unsigned ro = v->v_flags & SH_VAR_READONLY; // same value, new shape
        v->v_flags &= ~SH_VAR_READONLY;
        if (e == BOX_OK)
            e = sh_var_set_array(cx->cx_st, v, a);
        else
            sh_array_free(a);
        v->v_flags |= ro;
        if (e != BOX_OK)
            return sh_var_fail(cx, who, v->v_name, e);
    }
    // -l and -u exclude each other; both at once leave neither (bash).
    if ((on & SH_VAR_LOWER) && (on & SH_VAR_UPPER))
        on &= ~(SH_VAR_LOWER | SH_VAR_UPPER);
    else if (on & SH_VAR_LOWER)
        v->v_flags &= ~SH_VAR_UPPER;
    else if (on & SH_VAR_UPPER)
        v->v_flags &= ~SH_VAR_LOWER;
    v->v_flags |= on & ~SH_VAR_READONLY; // readonly once the value is in
    v->v_flags &= ~(off & ~(SH_VAR_ARRAY | SH_VAR_ASSOC));
    return 0;
}

/* One NAME[=value] / NAME[sub]=value / NAME+=value operand. */
static int
declare_one(sh_ctx *cx, decl_req *q, const char *arg)
{
    const char *who = q->r->dr_name;
    size_t n = 0;
    while (arg[n] != '\0' && arg[n] != '=' && arg[n] != '[' &&
           !(arg[n] == '+' && arg[n + 1] == '='))
        n++;
    const char *sub_start = NULL;
    size_t sub_len = 0, rest = n;
    if (arg[n] == '[') {
        size_t e = sh_lex_bracket_end(arg + n, strlen(arg + n));
        if (arg[n + e] == ']') {
            sub_start = arg + n + 1;
            sub_len = e - 1;
            rest = n + e + 1;
        }
    }
    bool append = arg[rest] == '+' && arg[rest + 1] == '=';
    const char *value = NULL;
    if (append)
        value = arg + rest + 2;
    else if (arg[rest] == '=')
        value = arg + rest + 1;
    if (!sh_name_valid(arg, n) || n > 255 ||
        (arg[rest] != '\0' && value == NULL) ||
        (sub_start != NULL && value == NULL)) {
        sh_errf(cx, "%s: `%s': not a valid identifier", who, arg);
        return 1;
    }
    char name[256];
    memcpy(name, arg, n);
    name[n] = '\0';
    bool make_local = q->r->dr_scope == DS_LOCAL ||
                      (q->r->dr_scope == DS_DECLARE && cx->cx_funcs > 0 &&
                       !q->global);
    // -n and +n act on the reference itself; any other declaration of a
    // reference on the variable it names (bash).
    bool ref_op =
        ((q->on | q->off) & SH_VAR_NAMEREF) != 0 && strcmp(who, "export") != 0;
    if (ref_op && (q->on & SH_VAR_NAMEREF) && value != NULL && !append) {
        if (strcmp(value, name) == 0) {
            sh_errf(cx, "%s: %s: nameref variable self references not allowed",
                    who, name);
            return 1;
        }
        if (value[0] != '\0' && !sh_name_valid(value, strlen(value))) {
            sh_errf(cx, "%s: `%s': invalid variable name for name reference",
                    who, value);
            return 1;
        }
    }
    const sh_var *cur = sh_var_find(cx->cx_st, name);
    if (cur != NULL && (cur->v_flags & SH_VAR_NOASSIGN) &&
        (make_local || value != NULL)) {
        sh_errf(cx, "%s: %s: variable may not be assigned value", who, name);
        return 1;
    }
    if (make_local) {
        bool fresh;
        if (sh_local_save(cx, name, &fresh) != BOX_OK)
            return sh_var_fail(cx, who, name, BOX_ENOMEM);
        sh_var *old = sh_var_find_raw(cx->cx_st, name);
        if (fresh && old != NULL) {
            if (old->v_flags & SH_VAR_READONLY)
                return sh_var_fail(cx, who, name, BOX_EDENIED);
            // A new local starts unset, without the outer attributes.
            sh_var_unset_raw(cx->cx_st, name);
        }
    }
    sh_var *v = ref_op || make_local ? sh_var_add_raw(cx->cx_st, name)
                                     : sh_var_add(cx->cx_st, name);
    if (v == NULL)
        return sh_var_fail(cx, who, name, BOX_ENOMEM);
    int rc = apply_attrs(cx, q, v);
    if (rc != 0)
        return rc;
    if (value != NULL && (v->v_flags & SH_VAR_NAMEREF) && ref_op) {
        // The reference's own value: the name it refers to.
        box_err e =
            sh_var_set_found(cx->cx_st, v, name, value, strlen(value), NULL);
        if (e != BOX_OK)
            return sh_var_fail(cx, who, name, e);
    } else if (value != NULL) {
        char *sub = sub_start ? box_strndup(sub_start, sub_len) : NULL;
        if (sub_start != NULL && sub == NULL)
            return sh_var_fail(cx, who, name, BOX_ENOMEM);
        rc = sh_assign_str(cx, who, name, sub, value, strlen(value), append);
        box_free(sub);
    } else {
        const sh_assign *ca = take_compound(cx, q, name);
        if (ca != NULL)
            rc = sh_assign_compound(cx, ca);
    }
    if (rc == 0 && ((q->on | q->r->dr_always) & SH_VAR_READONLY) &&
        (v = ref_op ? sh_var_find_raw(cx->cx_st, name)
                    : sh_var_find(cx->cx_st, name)) != NULL)
        v->v_flags |= SH_VAR_READONLY;
    return rc;
}

static int
cmp_func(const void *a, const void *b)
{
    const sh_func *const *x = a, *const *y = b;
    return strcmp((*x)->f_name, (*y)->f_name);
}

/* One function: its name (-F) or, with bodies (-f), its text as bash
 * prints it back (sh_print.c). */
static box_err
put_func(box_buf *b, const sh_func *f, bool bodies, const char *prefix)
{
    if (!bodies)
        return box_buf_printf(b, "%s%s\n", prefix, f->f_name);
    box_err e = sh_print_func(b, f->f_name, f->f_body);
    return e ? e : box_buf_putc(b, '\n');
}

/* declare -F / -f [name…]: each function named (status 1 when one is
 * missing); none: every function, by name (-F: `declare -f NAME`). */
static int
print_funcs(sh_ctx *cx, const char *who, int argc, char **argv, int first,
            bool bodies)
{
    sh_state *st = cx->cx_st;
    box_buf b;
    box_buf_init(&b, 1u << 20);
    box_err e = BOX_OK;
    int rc = 0;
    if (first < argc) {
        for (int i = first; i < argc && !e; i++) {
            const sh_func *f = sh_func_find(st, argv[i]);
            if (f == NULL)
                rc = 1;
            else
                e = put_func(&b, f, bodies, "");
        }
    } else {
        const sh_func **v = box_calloc(st->st_nfuncs + 1, sizeof *v);
        if (v == NULL) {
            e = BOX_ENOMEM;
        } else {
            for (size_t i = 0; i < st->st_nfuncs; i++)
                v[i] = &st->st_funcs[i];
            qsort(v, st->st_nfuncs, sizeof *v, cmp_func);
            for (size_t i = 0; i < st->st_nfuncs && !e; i++)
                e = put_func(&b, v[i], bodies, "declare -f ");
            box_free(v);
        }
    }
    return emit(cx, who, &b, e, rc);
}

static int
decl_usage(sh_ctx *cx, const decl_row *r, const char *opt)
{
    sh_errf(cx, "%s: %s: invalid option", r->dr_name, opt);
    sh_errf(cx, "%s: usage: %s", r->dr_name, r->dr_usage);
    return 2;
}

static int
declare_run(sh_ctx *cx, const decl_row *r, int argc, char **argv)
{
    decl_req q = {.r = r, .compound = cx->cx_compound};
    bool print = false, funcs = false, names_only = false;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if ((a[0] != '-' && a[0] != '+') || a[1] == '\0')
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        for (const char *p = a + 1; *p; p++) {
            if (strchr(r->dr_letters, *p) == NULL) {
                char opt[3] = {a[0], *p, '\0'};
                return decl_usage(cx, r, opt);
            }
            if (*p == 'p')
                print = true;
            else if (*p == 'g')
                q.global = true;
            else if (*p == 'f' || *p == 'F')
                funcs = true, names_only |= *p == 'F';
            else if (a[0] == '-')
                q.on |= *p == 'n' ? SH_VAR_NAMEREF : letter_flag(*p);
            else
                q.off |= letter_flag(*p);
        }
    }
    if (r->dr_scope == DS_LOCAL && cx->cx_funcs == 0)
        return sh_cmd_err(cx, r->dr_name, 1, "can only be used in a function");
    if (funcs && names_only && r->dr_scope == DS_DECLARE)
        return print_funcs(cx, r->dr_name, argc, argv, i, false);
    if (funcs && r->dr_scope == DS_DECLARE)
        return print_funcs(cx, r->dr_name, argc, argv, i, true);
    if (funcs)
        return sh_cmd_err(cx, r->dr_name, 2,
                          "-f: function definitions are not supported");
    if (i >= argc)
        return print_all(cx, r->dr_name,
                         (q.on | r->dr_always) & ~SH_VAR_NAMEREF);
    if (print)
        return print_names(cx, r->dr_name, argc, argv, i);
    int rc = 0;
    for (; i < argc; i++) {
        int one = declare_one(cx, &q, argv[i]);
        if (one != 0)
            rc = one;
        if (cx->cx_flow != SH_FLOW_NONE)
            break;
    }
    return rc;
}

static const decl_row *
row_of(const char *name)
{
    for (size_t i = 0; i < sizeof decl_rows / sizeof decl_rows[0]; i++)
        if (strcmp(decl_rows[i].dr_name, name) == 0)
            return &decl_rows[i];
    return &decl_rows[0];
}

int
sh_bi_declare(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    return declare_run(cx, row_of(argv[0]), argc, argv);
}
