/* SPDX-License-Identifier: Apache-2.0 */
/* awk's interpreter: a walk over the syntax tree. Variables are cells
 * (scalar, array, or a parameter's reference to its caller's variable),
 * the record is split into fields on demand and rebuilt with OFS after a
 * field changes, and every loop, record and call checks the call's
 * deadline so a program that runs forever stops with the call. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_awk.h"

/* What a statement did: the flow the enclosing ones act on. */
enum { X_OK, X_BREAK, X_CONT, X_NEXT, X_NEXTFILE, X_EXIT, X_RET, X_STOP };

static void
vmsg(awk *a, const char *kind, const char *fmt, va_list ap)
{
    char msg[2048], at[512] = "";
    vsnprintf(msg, sizeof msg, fmt, ap);
    // gawk names the input once a record was read
    double fnr = a->a_globals != NULL ? awk_tonum(&a->a_globals[V_FNR].c_val) : 0;
    if (fnr > 0) {
        size_t fl;
        const char *fn = awk_var_str(a, V_FILENAME, &fl);
        snprintf(at, sizeof at, "(FILENAME=%s FNR=%.0f) ", fl > 0 ? fn : "-", fnr);
    }
    sh_errf(a->a_cx, "awk: %s:%d: %s%s%s", a->a_srcname ? a->a_srcname : "cmd. line",
            a->a_line > 0 ? a->a_line : 1, at, kind, msg);
}

void
awk_fatal(awk *a, const char *fmt, ...)
{
    if (a->a_fatal)
        return;
    // stdout stays buffered, as gawk's to a pipe: the message comes first
    va_list ap;
    va_start(ap, fmt);
    vmsg(a, "fatal: ", fmt, ap);
    va_end(ap);
    a->a_fatal = true;
    a->a_status = 2;
}

void
awk_warn(awk *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(a, "warning: ", fmt, ap);
    va_end(ap);
}

/* Whether the run must stop now: a fatal, or the call is over (its
 * deadline, an abort). Cheap: the clock is read once the countdown of
 * steps (loop turns, records, calls, and a step per KiB of string work,
 * awk_charge) runs out. */
static bool
stopping(awk *a)
{
    if (a->a_fatal)
        return true;
    if (a->a_ticks > 1) {
        a->a_ticks--;
        return false;
    }
    a->a_ticks = AWK_TICKS;
    if (!sh_cmd_live(&a->a_run)) {
        a->a_fatal = true;
        a->a_status = a->a_run.cr_status;
        return true;
    }
    return false;
}

void
awk_charge(awk *a, size_t bytes)
{
    unsigned long steps = (unsigned long)(bytes >> 10);
    a->a_ticks = a->a_ticks > steps ? a->a_ticks - steps : 1;
}

/* ---- cells ---- */

static awk_cell *
deref(awk_cell *c)
{
    while (c->c_kind == CK_REF)
        c = c->c_ref;
    return c;
}

awk_cell *
awk_cell_of(awk *a, awk_node *n)
{
    if (n->n_op == AN_LVAR)
        return &a->a_frame->fr_locals[n->n_idx];
    return &a->a_globals[n->n_idx];
}

static const char *
var_name(awk *a, awk_node *n)
{
    if (n->n_op == AN_VAR)
        return a->a_prog->p_globals[n->n_idx];
    return "parameter";
}

awk_arr *
awk_array_of(awk *a, awk_node *n)
{
    if (n->n_op != AN_VAR && n->n_op != AN_LVAR) {
        awk_fatal(a, "attempt to use a scalar value as array");
        return NULL;
    }
    awk_cell *c = deref(awk_cell_of(a, n));
    if (c->c_kind == CK_ARRAY)
        return c->c_arr;
    if (c->c_kind == CK_SCALAR || (n->n_op == AN_VAR && n->n_idx < V_NSPECIAL &&
                                   n->n_idx != V_ENVIRON && n->n_idx != V_ARGV)) {
        awk_fatal(a, "attempt to use scalar `%s' as an array", var_name(a, n));
        return NULL;
    }
    c->c_arr = awk_arr_new();
    if (c->c_arr == NULL) {
        awk_fatal(a, "out of memory");
        return NULL;
    }
    c->c_kind = CK_ARRAY;
    return c->c_arr;
}

/* The scalar value of a variable node for reading, or NULL for an
 * uninitialised one. */
static awk_val *
scalar_read(awk *a, awk_node *n)
{
    awk_cell *c = awk_cell_of(a, n);
    if (n->n_op == AN_VAR && n->n_idx == V_NF && !a->a_split)
        awk_split_record(a);
    if (c->c_kind == CK_SCALAR)
        return &c->c_val;
    c = deref(c);
    if (c->c_kind == CK_ARRAY) {
        awk_fatal(a, "attempt to use array `%s' in a scalar context",
                  var_name(a, n));
        return NULL;
    }
    return c->c_kind == CK_SCALAR ? &c->c_val : NULL;
}

/* The scalar slot of a variable node for writing. */
static awk_val *
scalar_write(awk *a, awk_node *n)
{
    awk_cell *c = awk_cell_of(a, n);
    if (c->c_kind == CK_REF) {
        awk_cell *t = deref(c);
        if (t->c_kind == CK_ARRAY) {
            awk_fatal(a, "attempt to use array `%s' in a scalar context",
                      var_name(a, n));
            return NULL;
        }
        // an untyped argument used as a scalar: the parameter's own
        c->c_kind = CK_SCALAR;
        c->c_ref = NULL;
        memset(&c->c_val, 0, sizeof c->c_val);
    }
    if (c->c_kind == CK_ARRAY) {
        awk_fatal(a, "attempt to use array `%s' in a scalar context",
                  var_name(a, n));
        return NULL;
    }
    c->c_kind = CK_SCALAR;
    return &c->c_val;
}

const char *
awk_var_str(awk *a, int slot, size_t *len)
{
    awk_cell *c = &a->a_globals[slot];
    return awk_tostr(a, &c->c_val, len);
}

void
awk_special_set(awk *a, int slot)
{
    if (slot == V_NF) {
        double d = awk_tonum(&a->a_globals[V_NF].c_val);
        awk_set_nf(a, isnan(d) || d < 0 ? -1 : d > 1e9 ? 1000000000L : (long)d);
    }
}

/* ---- subscripts ---- */

/* The key of a subscript list (joined by SUBSEP) into b. */
static bool
subscript(awk *a, awk_node *subs, box_buf *b)
{
    box_buf_truncate(b, 0);
    char tmp[64];
    for (awk_node *s = subs; s != NULL; s = s->n_next) {
        if (s != subs) {
            size_t sl;
            const char *sep = awk_var_str(a, V_SUBSEP, &sl);
            if (box_buf_append(b, sep, sl) != BOX_OK)
                goto oom;
        }
        awk_val v = awk_eval(a, s);
        size_t l;
        const char *p;
        if (v.v_type == AV_NUM && v.v_num == (double)(long long)v.v_num) {
            l = (size_t)snprintf(tmp, sizeof tmp, "%lld", (long long)v.v_num);
            p = tmp;
        } else {
            p = awk_tostr(a, &v, &l);
        }
        bool ok = l == 0 || box_buf_append(b, p, l) == BOX_OK;
        awk_val_free(&v);
        if (!ok)
            goto oom;
    }
    if (box_buf_putc(b, '\0') != BOX_OK)
        goto oom;
    b->b_len--;
    return !a->a_fatal;
oom:
    awk_fatal(a, "out of memory");
    return false;
}

/* The element an AN_INDEX node names (created). */
static awk_val *
element(awk *a, awk_node *n, bool create)
{
    awk_arr *r = awk_array_of(a, n->n_a);
    if (r == NULL)
        return NULL;
    box_buf k;
    box_buf_init(&k, AWK_STR_MAX);
    awk_val *v = NULL;
    if (subscript(a, n->n_b, &k))
        v = awk_arr_get(a, r, k.b_data ? k.b_data : "", k.b_len, create);
    box_buf_reset(&k);
    return v;
}

/* ---- assignment ---- */

void
awk_assign(awk *a, awk_node *lv, awk_val v)
{
    if (a->a_fatal) {
        awk_val_free(&v);
        return;
    }
    switch (lv->n_op) {
    case AN_VAR:
    case AN_LVAR: {
        // a new FS splits the next record: this one by the FS it came with
        if (lv->n_op == AN_VAR && lv->n_idx == V_FS && !a->a_split)
            awk_split_record(a);
        awk_val *s = scalar_write(a, lv);
        if (s == NULL)
            break;
        awk_val_free(s);
        *s = v;
        if (lv->n_op == AN_VAR && lv->n_idx < V_NSPECIAL)
            awk_special_set(a, lv->n_idx);
        return;
    }
    case AN_INDEX: {
        awk_val *s = element(a, lv, true);
        if (s == NULL)
            break;
        awk_val_free(s);
        *s = v;
        return;
    }
    case AN_FIELD: {
        awk_val iv = awk_eval(a, lv->n_a);
        double d = awk_tonum(&iv);
        awk_val_free(&iv);
        if (d < 0 || isnan(d)) {
            awk_fatal(a, "attempt to access field %ld", d < -1e9 ? -1000000000L : (long)d);
            break;
        }
        if (d > 1e9)
            d = 1e9; // awk_field_ref refuses it
        if (d == 0) {
            size_t l;
            const char *p = awk_tostr(a, &v, &l);
            awk_set_record(a, p, l);
            break;
        }
        awk_val *f = awk_field_ref(a, (long)d, true);
        if (f == NULL)
            break;
        awk_val_free(f);
        *f = v;
        a->a_rec_dirty = true;
        return;
    }
    default:
        awk_fatal(a, "assignment to a value that is not a variable");
        break;
    }
    awk_val_free(&v);
}

/* ---- expressions ---- */

static awk_val
arith(awk *a, int op, double x, double y)
{
    switch (op) {
    case '+': return awk_num(x + y);
    case '-': return awk_num(x - y);
    case '*': return awk_num(x * y);
    case '/':
        if (y == 0) {
            awk_fatal(a, "division by zero attempted");
            return awk_num(0);
        }
        return awk_num(x / y);
    case '%':
        if (y == 0) {
            awk_fatal(a, "division by zero attempted in `%%'");
            return awk_num(0);
        }
        return awk_num(fmod(x, y));
    case '^': {
        // integer powers as repeated products, as gawk does
        if (y == (double)(long)y && fabs(y) < 1024) {
            long k = (long)y;
            bool neg = k < 0;
            double r = 1, b = x;
            for (unsigned long u = (unsigned long)(neg ? -k : k); u; u >>= 1) {
                if (u & 1)
                    r *= b;
                b *= b;
            }
            return awk_num(neg ? 1 / r : r);
        }
        return awk_num(pow(x, y));
    }
    default:
        return awk_num(0);
    }
}

/* Reads an lvalue's current value (a copy). */
static awk_val
lvalue_get(awk *a, awk_node *lv)
{
    switch (lv->n_op) {
    case AN_VAR:
    case AN_LVAR: {
        awk_val *s = scalar_read(a, lv);
        return s != NULL ? awk_val_dup(a, s) : awk_num(0);
    }
    default:
        return awk_eval(a, lv);
    }
}

static awk_val
eval_incdec(awk *a, awk_node *n)
{
    awk_val cur = lvalue_get(a, n->n_a);
    double d = awk_tonum(&cur);
    awk_val_free(&cur);
    double nv = (n->n_idx & 1) ? d + 1 : d - 1;
    awk_assign(a, n->n_a, awk_num(nv));
    return awk_num((n->n_idx & 2) ? nv : d);
}

static awk_val
eval_assign(awk *a, awk_node *n)
{
    awk_val r = awk_eval(a, n->n_b);
    if (n->n_idx != '=') {
        awk_val cur = lvalue_get(a, n->n_a);
        double x = awk_tonum(&cur), y = awk_tonum(&r);
        awk_val_free(&cur);
        awk_val_free(&r);
        r = arith(a, n->n_idx, x, y);
    } else if (r.v_type == AV_UNINIT) {
        r.v_type = AV_UNINIT;
    }
    if (a->a_fatal) {
        awk_val_free(&r);
        return awk_num(0);
    }
    awk_val copy = awk_val_dup(a, &r);
    awk_assign(a, n->n_a, r);
    return copy;
}

awk_re *
awk_re_of(awk *a, awk_node *n)
{
    if (n->n_op == AN_REGEX &&
        awk_val_true(&a->a_globals[V_IGNORECASE].c_val))
        return awk_re_dynamic(a, n->n_str, n->n_len);
    if (n->n_op == AN_REGEX) {
        if (n->n_re == NULL)
            n->n_re = awk_re_new(a, n->n_str, n->n_len, false);
        return n->n_re;
    }
    awk_val v = awk_eval(a, n);
    size_t l;
    const char *s = awk_tostr(a, &v, &l);
    awk_re *re = a->a_fatal ? NULL : awk_re_dynamic(a, s, l);
    awk_val_free(&v);
    return re;
}

static awk_val
eval_match(awk *a, awk_node *n)
{
    awk_val l = awk_eval(a, n->n_a);
    awk_re *re = awk_re_of(a, n->n_b);
    bool m = false;
    if (re != NULL) {
        size_t len, so, eo;
        const char *s = awk_tostr(a, &l, &len);
        m = awk_re_exec(re, s, len, 0, false, &so, &eo);
    }
    awk_val_free(&l);
    return awk_num(m != (n->n_idx != 0));
}

static awk_val
eval_concat(awk *a, awk_node *n)
{
    // a chain of concatenations, left to right, into one buffer
    awk_node *parts[64];
    int k = 0;
    awk_node *x = n;
    while (x->n_op == AN_CONCAT && k < 63) {
        parts[k++] = x->n_b;
        x = x->n_a;
    }
    parts[k++] = x;
    box_buf b;
    box_buf_init(&b, AWK_STR_MAX);
    for (int i = k - 1; i >= 0 && !a->a_fatal; i--) {
        awk_val v = awk_eval(a, parts[i]);
        size_t l;
        const char *s = awk_tostr(a, &v, &l);
        if (l > 0 && box_buf_append(&b, s, l) != BOX_OK)
            awk_fatal(a, "string too long (limit %u MiB)", AWK_STR_MAX >> 20);
        awk_val_free(&v);
    }
    if (!a->a_fatal && box_buf_putc(&b, '\0') != BOX_OK)
        awk_fatal(a, "string too long (limit %u MiB)", AWK_STR_MAX >> 20);
    if (a->a_fatal) {
        box_buf_reset(&b);
        return awk_num(0);
    }
    awk_charge(a, b.b_len);
    size_t len = b.b_len - 1;
    return awk_str_take(box_buf_take(&b), len);
}

static awk_val call(awk *a, awk_node *n);
static int exec(awk *a, awk_node *n);

awk_val
awk_eval(awk *a, awk_node *n)
{
    if (a->a_fatal)
        return awk_num(0);
    switch (n->n_op) {
    case AN_NUM:
        return awk_num(n->n_num);
    case AN_STR:
        return awk_str(a, n->n_str, n->n_len);
    case AN_REGEX: {
        awk_re *re = awk_re_of(a, n);
        size_t len, so, eo;
        const char *s = awk_record(a, &len);
        return awk_num(re != NULL && awk_re_exec(re, s, len, 0, false, &so, &eo));
    }
    case AN_VAR:
    case AN_LVAR: {
        awk_val *s = scalar_read(a, n);
        if (s == NULL)
            return (awk_val){.v_type = AV_UNINIT};
        return awk_val_dup(a, s);
    }
    case AN_FIELD: {
        awk_val iv = awk_eval(a, n->n_a);
        double d = awk_tonum(&iv);
        awk_val_free(&iv);
        if (d < 0 || isnan(d)) {
            awk_fatal(a, "attempt to access field %ld", d < -1e9 ? -1000000000L : (long)d);
            return awk_num(0);
        }
        if (d > 1e9)
            return (awk_val){.v_type = AV_UNINIT}; // past any record
        if (d == 0) {
            size_t len;
            const char *s = awk_record(a, &len);
            return awk_input(a, s, len);
        }
        awk_val *f = awk_field_ref(a, (long)d, false);
        return f != NULL ? awk_val_dup(a, f) : (awk_val){.v_type = AV_UNINIT};
    }
    case AN_INDEX: {
        awk_val *v = element(a, n, true);
        return v != NULL ? awk_val_dup(a, v) : awk_num(0);
    }
    case AN_ASSIGN:
        return eval_assign(a, n);
    case AN_COND: {
        awk_val c = awk_eval(a, n->n_a);
        bool t = awk_val_true(&c);
        awk_val_free(&c);
        return awk_eval(a, t ? n->n_b : n->n_c);
    }
    case AN_OR:
    case AN_AND: {
        awk_val c = awk_eval(a, n->n_a);
        bool t = awk_val_true(&c);
        awk_val_free(&c);
        if (t == (n->n_op == AN_OR))
            return awk_num(t);
        c = awk_eval(a, n->n_b);
        t = awk_val_true(&c);
        awk_val_free(&c);
        return awk_num(t);
    }
    case AN_IN: {
        awk_arr *r = awk_array_of(a, n->n_b);
        if (r == NULL)
            return awk_num(0);
        box_buf k;
        box_buf_init(&k, AWK_STR_MAX);
        bool in = subscript(a, n->n_a, &k) &&
                  awk_arr_get(a, r, k.b_data ? k.b_data : "", k.b_len, false) != NULL;
        box_buf_reset(&k);
        return awk_num(in);
    }
    case AN_MATCH:
        return eval_match(a, n);
    case AN_CMP: {
        awk_val x = awk_eval(a, n->n_a);
        awk_val y = awk_eval(a, n->n_b);
        int c = awk_compare(a, &x, &y);
        awk_val_free(&x);
        awk_val_free(&y);
        bool r;
        switch (n->n_idx) {
        case '<': r = c < 0; break;
        case 'l': r = c <= 0; break;
        case '>': r = c > 0; break;
        case 'g': r = c >= 0; break;
        case '=': r = c == 0; break;
        default: r = c != 0; break;
        }
        return awk_num(r);
    }
    case AN_CONCAT:
        return eval_concat(a, n);
    case AN_ARITH: {
        awk_val x = awk_eval(a, n->n_a);
        awk_val y = awk_eval(a, n->n_b);
        double p = awk_tonum(&x), q = awk_tonum(&y);
        awk_val_free(&x);
        awk_val_free(&y);
        return arith(a, n->n_idx, p, q);
    }
    case AN_NEG:
    case AN_PLUS:
    case AN_NOT: {
        awk_val x = awk_eval(a, n->n_a);
        awk_val r;
        if (n->n_op == AN_NOT)
            r = awk_num(!awk_val_true(&x));
        else
            r = awk_num(n->n_op == AN_NEG ? -awk_tonum(&x) : awk_tonum(&x));
        awk_val_free(&x);
        return r;
    }
    case AN_INCDEC:
        return eval_incdec(a, n);
    case AN_CALL:
        return call(a, n);
    case AN_BUILTIN:
        return awk_builtin(a, n);
    case AN_GETLINE:
        return awk_getline(a, n);
    case AN_GROUP: {
        if (n->n_idx > 1) {
            awk_fatal(a, "a list in parentheses is only a print's or `in`'s");
            return awk_num(0);
        }
        return awk_eval(a, n->n_a);
    }
    default:
        awk_fatal(a, "internal error: node %d", n->n_op);
        return awk_num(0);
    }
}

/* ---- functions ---- */

static awk_val
call(awk *a, awk_node *n)
{
    awk_func *f = &a->a_prog->p_funcs[n->n_idx];
    int nargs = (int)n->n_num;
    if (nargs > f->f_nparams && !f->f_warned) {
        f->f_warned = true;
        awk_warn(a, "function `%s' called with more arguments than declared",
                 f->f_name);
    }
    if (a->a_depth >= AWK_CALL_MAX) {
        awk_fatal(a, "function call nesting too deep (limit %d)", AWK_CALL_MAX);
        return awk_num(0);
    }
    if (stopping(a))
        return awk_num(0);
    awk_cell *loc = box_calloc((size_t)(f->f_nparams > 0 ? f->f_nparams : 1),
                               sizeof *loc);
    if (loc == NULL) {
        awk_fatal(a, "out of memory");
        return awk_num(0);
    }
    int i = 0;
    for (awk_node *arg = n->n_a; arg != NULL && !a->a_fatal; arg = arg->n_next, i++) {
        if (i >= f->f_nparams) { // an extra argument: evaluated, dropped
            awk_val v = awk_eval(a, arg);
            awk_val_free(&v);
            continue;
        }
        if (arg->n_op == AN_VAR || arg->n_op == AN_LVAR) {
            awk_cell *c = awk_cell_of(a, arg);
            awk_cell *t = deref(c);
            if (t->c_kind == CK_ARRAY || t->c_kind == CK_UNTYPED) {
                if (arg->n_op == AN_VAR && arg->n_idx < V_NSPECIAL &&
                    t->c_kind == CK_UNTYPED) {
                    loc[i].c_kind = CK_SCALAR;
                    loc[i].c_val = awk_eval(a, arg);
                    continue;
                }
                loc[i].c_kind = CK_REF;
                loc[i].c_ref = t;
                continue;
            }
        }
        loc[i].c_kind = CK_SCALAR;
        loc[i].c_val = awk_eval(a, arg);
    }
    awk_frame fr = {.fr_locals = loc, .fr_n = f->f_nparams};
    awk_frame *saved = a->a_frame;
    int line = a->a_line;
    a->a_frame = &fr;
    a->a_depth++;
    awk_val_free(&a->a_ret);
    int x = a->a_fatal ? X_STOP : exec(a, f->f_body);
    a->a_depth--;
    a->a_frame = saved;
    a->a_line = line;
    awk_val r = {.v_type = AV_UNINIT};
    if (x == X_RET) {
        r = a->a_ret;
        memset(&a->a_ret, 0, sizeof a->a_ret);
    } else if (x == X_EXIT || x == X_NEXT || x == X_NEXTFILE) {
        a->a_pending = x;
    }
    for (int k = 0; k < f->f_nparams; k++) {
        if (loc[k].c_kind == CK_ARRAY)
            awk_arr_free(a, loc[k].c_arr);
        else if (loc[k].c_kind == CK_SCALAR)
            awk_val_free(&loc[k].c_val);
    }
    box_free(loc);
    return r;
}

/* ---- statements ---- */

static bool
truth(awk *a, awk_node *n)
{
    awk_val v = awk_eval(a, n);
    bool t = awk_val_true(&v);
    awk_val_free(&v);
    return t;
}

/* After a statement's expression: an exit, next or nextfile that ran
 * inside a function call unwinds the rule too. */
static int
pending(awk *a)
{
    if (a->a_fatal)
        return X_STOP;
    int x = a->a_pending;
    a->a_pending = X_OK;
    return x;
}

static int
exec_print(awk *a, awk_node *n)
{
    box_buf *b = n->n_idx == RD_NONE ? &a->a_out : &a->a_tmp;
    if (n->n_idx != RD_NONE)
        box_buf_truncate(b, 0);
    size_t len0 = b->b_len; // a fatal error prints none of the line
    bool ok = true;
    if (n->n_op == AN_PRINTF) {
        awk_val fv = awk_eval(a, n->n_a);
        size_t fl;
        const char *fmt = awk_tostr(a, &fv, &fl);
        ok = awk_format(a, fmt, fl, n->n_a->n_next, b);
        awk_val_free(&fv);
    } else if (n->n_a == NULL) {
        size_t l;
        const char *s = awk_record(a, &l);
        ok = l == 0 || box_buf_append(b, s, l) == BOX_OK;
    } else {
        char tmp[512];
        for (awk_node *e = n->n_a; e != NULL && ok; e = e->n_next) {
            if (e != n->n_a) {
                size_t l;
                const char *s = awk_var_str(a, V_OFS, &l);
                ok = l == 0 || box_buf_append(b, s, l) == BOX_OK;
            }
            awk_val v = awk_eval(a, e);
            size_t l;
            const char *s = awk_outstr(a, &v, tmp, sizeof tmp, &l);
            ok = ok && (l == 0 || box_buf_append(b, s, l) == BOX_OK);
            awk_val_free(&v);
        }
    }
    if (ok && n->n_op == AN_PRINT) {
        size_t l;
        const char *s = awk_var_str(a, V_ORS, &l);
        ok = l == 0 || box_buf_append(b, s, l) == BOX_OK;
    }
    if (!ok) {
        box_buf_truncate(b, len0);
        awk_fatal(a, "output line too long");
        return X_STOP;
    }
    if (a->a_fatal) {
        box_buf_truncate(b, len0);
        return X_STOP;
    }
    if (n->n_idx == RD_NONE) {
        if (a->a_out.b_len >= AWK_OUT_CHUNK && !awk_flush_stdout(a))
            return X_STOP;
    } else if (!awk_output(a, n->n_idx, n->n_b, b->b_data ? b->b_data : "",
                           b->b_len)) {
        return X_STOP;
    }
    return pending(a);
}

static int
exec_forin(awk *a, awk_node *n)
{
    awk_arr *r = awk_array_of(a, n->n_b);
    if (r == NULL)
        return X_STOP;
    size_t cnt, *lens;
    char **keys = awk_arr_keys(r, &lens, &cnt);
    if (keys == NULL) {
        awk_fatal(a, "out of memory");
        return X_STOP;
    }
    int x = X_OK;
    for (size_t i = 0; i < cnt; i++) {
        if (stopping(a)) {
            x = X_STOP;
            break;
        }
        awk_val k = awk_input(a, keys[i], lens[i]);
        awk_assign(a, n->n_a, k);
        x = exec(a, n->n_c);
        if (x == X_BREAK) {
            x = X_OK;
            break;
        }
        if (x == X_CONT)
            x = X_OK;
        if (x != X_OK)
            break;
    }
    for (size_t i = 0; i < cnt; i++)
        box_free(keys[i]);
    box_free(keys);
    box_free(lens);
    return x;
}

/* A loop body's flow: true to leave the loop with *x. */
static bool
loop_flow(awk *a, int *x)
{
    if (*x == X_BREAK) {
        *x = X_OK;
        return true;
    }
    if (*x == X_CONT)
        *x = X_OK;
    if (*x != X_OK)
        return true;
    if (stopping(a)) {
        *x = X_STOP;
        return true;
    }
    return false;
}

static int
exec(awk *a, awk_node *n)
{
    if (a->a_fatal)
        return X_STOP;
    a->a_line = n->n_line;
    int x = X_OK;
    switch (n->n_op) {
    case AN_BLOCK:
        for (awk_node *s = n->n_a; s != NULL && x == X_OK; s = s->n_next)
            x = exec(a, s);
        return x;
    case AN_EXPR: {
        awk_val v = awk_eval(a, n->n_a);
        awk_val_free(&v);
        return pending(a);
    }
    case AN_PRINT:
    case AN_PRINTF:
        return exec_print(a, n);
    case AN_IF:
        if (truth(a, n->n_a))
            x = exec(a, n->n_b);
        else if (n->n_c != NULL)
            x = a->a_fatal ? X_STOP : exec(a, n->n_c);
        return a->a_fatal ? X_STOP : x;
    case AN_WHILE:
        while (x == X_OK && truth(a, n->n_a) && !a->a_fatal) {
            x = exec(a, n->n_b);
            if (loop_flow(a, &x))
                break;
        }
        return a->a_fatal ? X_STOP : x;
    case AN_DO:
        do {
            x = exec(a, n->n_b);
            if (loop_flow(a, &x))
                break;
        } while (truth(a, n->n_a) && !a->a_fatal);
        return a->a_fatal ? X_STOP : x;
    case AN_FOR:
        if (n->n_a != NULL && (x = exec(a, n->n_a)) != X_OK)
            return x;
        while (n->n_b == NULL || truth(a, n->n_b)) {
            if (a->a_fatal)
                return X_STOP;
            x = exec(a, n->n_d);
            if (loop_flow(a, &x))
                break;
            if (n->n_c != NULL && (x = exec(a, n->n_c)) != X_OK)
                break;
        }
        return a->a_fatal ? X_STOP : x;
    case AN_FORIN:
        return exec_forin(a, n);
    case AN_NEXT:
        return X_NEXT;
    case AN_NEXTFILE:
        return X_NEXTFILE;
    case AN_BREAK:
        return X_BREAK;
    case AN_CONTINUE:
        return X_CONT;
    case AN_EXIT:
        if (n->n_a != NULL) {
            awk_val v = awk_eval(a, n->n_a);
            a->a_status = (int)((long long)awk_tonum(&v) & 255);
            awk_val_free(&v);
        }
        a->a_exiting = true;
        return a->a_fatal ? X_STOP : X_EXIT;
    case AN_RETURN:
        awk_val_free(&a->a_ret);
        if (n->n_a != NULL)
            a->a_ret = awk_eval(a, n->n_a);
        return a->a_fatal ? X_STOP : X_RET;
    case AN_DELETE: {
        awk_arr *r = awk_array_of(a, n->n_a);
        if (r == NULL)
            return X_STOP;
        if (n->n_b == NULL) {
            awk_arr_clear(a, r);
            return X_OK;
        }
        box_buf k;
        box_buf_init(&k, AWK_STR_MAX);
        if (subscript(a, n->n_b, &k))
            (void)awk_arr_del(a, r, k.b_data ? k.b_data : "", k.b_len);
        box_buf_reset(&k);
        return a->a_fatal ? X_STOP : X_OK;
    }
    default: {
        awk_val v = awk_eval(a, n);
        awk_val_free(&v);
        return pending(a);
    }
    }
}

/* ---- rules ---- */

static bool
pattern_true(awk *a, awk_rule *r)
{
    if (r->r_pat == NULL)
        return true;
    if (r->r_pat2 == NULL)
        return truth(a, r->r_pat);
    if (!r->r_inrange) {
        if (!truth(a, r->r_pat))
            return false;
        r->r_inrange = !truth(a, r->r_pat2);
        return true;
    }
    if (truth(a, r->r_pat2))
        r->r_inrange = false;
    return true;
}

static int
run_body(awk *a, awk_rule *r)
{
    if (r->r_body != NULL)
        return exec(a, r->r_body);
    size_t l;
    const char *s = awk_record(a, &l);
    bool ok = (l == 0 || box_buf_append(&a->a_out, s, l) == BOX_OK);
    const char *ors = awk_var_str(a, V_ORS, &l);
    ok = ok && (l == 0 || box_buf_append(&a->a_out, ors, l) == BOX_OK);
    if (!ok) {
        awk_fatal(a, "output line too long");
        return X_STOP;
    }
    if (a->a_out.b_len >= AWK_OUT_CHUNK && !awk_flush_stdout(a))
        return X_STOP;
    return X_OK;
}

static int
run_kind(awk *a, int kind)
{
    for (size_t i = 0; i < a->a_prog->p_nrules; i++) {
        awk_rule *r = &a->a_prog->p_rules[i];
        if (r->r_kind != kind)
            continue;
        int x = exec(a, r->r_body);
        if (x == X_EXIT || x == X_STOP)
            return x;
    }
    return X_OK;
}

int
awk_run(awk *a)
{
    int x = run_kind(a, RULE_BEGIN);
    if (x == X_OK && a->a_prog->p_has_main) {
        for (;;) {
            if (stopping(a)) {
                x = X_STOP;
                break;
            }
            int got = awk_next_main(a);
            if (got <= 0) {
                if (got < 0)
                    x = X_STOP;
                break;
            }
            x = X_OK;
            for (size_t i = 0; i < a->a_prog->p_nrules && x == X_OK; i++) {
                awk_rule *r = &a->a_prog->p_rules[i];
                if (r->r_kind != RULE_MAIN)
                    continue;
                bool m = pattern_true(a, r);
                if (a->a_fatal) {
                    x = X_STOP;
                    break;
                }
                if (m)
                    x = run_body(a, r);
            }
            if (x == X_NEXTFILE)
                awk_nextfile(a);
            if (x == X_EXIT || x == X_STOP)
                break;
            x = X_OK;
        }
    }
    if (x != X_STOP && !a->a_fatal) {
        a->a_in_end = true;
        // END sees the last record (and its fields) as gawk keeps it
        (void)run_kind(a, RULE_END);
    }
    return a->a_status;
}
