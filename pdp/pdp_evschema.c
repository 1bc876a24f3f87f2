/* SPDX-License-Identifier: Apache-2.0 */
/* .dwschema parser (dogwood-spec §5.1, §5.2), built-ins, kind queries. */
#include "pdp_evschema.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "pdp_evschema_int.h"
#include "pdp_lex.h"

/*
 * One function per grammar rule (the rule in its comment), over the .dw
 * lexer's tokens. Every rule of §5.2 that does not need the action
 * schema is checked here, where the position is known: selector binders,
 * spreads and selector types used the way they can be, pins, names unique
 * at each level, max_window. Deriving (pdp_evschema_derive.c) then cannot
 * fail on the specs. `max_window`, `decision`, `event`, `pin` and the
 * selector names are contextual: plain identifiers compared by text.
 */

/* The embedded copies of pdp/schema/{default_events,events}.dwschema. */
extern const char pdp_evschema_default_text[];
extern const size_t pdp_evschema_default_text_len;
extern const char pdp_evschema_box_text[];
extern const size_t pdp_evschema_box_text_len;

#define ES_MAX_DEPTH 32 // nested record types in one declaration

/* ORDER ES_SEL */
static const char *const es_sel_names[] = {
    "inputs",
    "outputs",
    "principalType",
    "resourceType",
};

typedef struct eparser {
    pdp_lex ep_lx;
    box_arena *ep_a;
    pdp_str ep_binder; // of the declaration being read
    pdp_str ep_kind;
    pdp_evpin *ep_pins; // of the declaration being read
    uint32_t ep_npins, ep_pincap;
    uint32_t ep_depth;
} eparser;

#define TOK(p) (&(p)->ep_lx.lx_tok)

/* ---- small helpers ---- */

static box_err __attribute__((format(printf, 3, 4)))
serr(eparser *p, pdp_pos pos, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return pdp_lex_error(&p->ep_lx, BOX_EPARSE, pos.line, pos.col, "%s", msg);
}

static pdp_pos
tpos(const pdp_token *t)
{
    pdp_pos pos = {t->t_line, t->t_col};
    return pos;
}

static box_err
nomem(eparser *p)
{
    return pdp_lex_error(&p->ep_lx, BOX_ENOMEM, TOK(p)->t_line, TOK(p)->t_col,
                         "out of memory");
}

static box_err
expected(eparser *p, const char *what)
{
    const pdp_token *t = TOK(p);
    if (t->t_kind == PDP_TK_EOF)
        return serr(p, tpos(t), "expected %s, found end of file", what);
    return serr(p, tpos(t), "expected %s, found `%.*s`", what,
                (int)(t->t_len > 60 ? 60 : t->t_len), t->t_text);
}

static box_err
next(eparser *p)
{
    return pdp_lex_next(&p->ep_lx);
}

static box_err
expect(eparser *p, pdp_tk k)
{
    if (TOK(p)->t_kind != k)
        return expected(p, pdp_tk_name(k));
    return next(p);
}

static bool
tok_is(const pdp_token *t, const char *w)
{
    return t->t_kind == PDP_TK_IDENT && t->t_len == strlen(w) &&
           memcmp(t->t_text, w, t->t_len) == 0;
}

static bool
at_kw(eparser *p, const char *w)
{
    return tok_is(TOK(p), w);
}

/* An identifier of the grammar: the lexer's reserved words (`in`, `if`,
 * …) are identifiers in a .dwschema. */
static bool
is_word(const pdp_token *t)
{
    return t->t_kind == PDP_TK_IDENT ||
           (t->t_kind >= PDP_TK_TRUE && t->t_kind <= PDP_TK_CEDAR);
}

static pdp_str
tstr(const pdp_token *t)
{
    pdp_str s = {t->t_text, t->t_len};
    return s;
}

static bool
str_eq(pdp_str a, pdp_str b)
{
    return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

/* A NUL-terminated arena copy of a, sep, b (sep only when both are
 * non-empty); NULL when out of memory. */
static char *
join(box_arena *ar, pdp_str a, const char *sep, pdp_str b, size_t *len)
{
    size_t dl = a.len > 0 && b.len > 0 ? strlen(sep) : 0;
    size_t n = a.len + dl + b.len;
    char *s = box_arena_alloc(ar, n + 1);
    if (s == NULL)
        return NULL;
    memcpy(s, a.s, a.len);
    memcpy(s + a.len, sep, dl);
    memcpy(s + a.len + dl, b.s, b.len);
    s[n] = '\0';
    *len = n;
    return s;
}

static box_err
grow(eparser *p, void **arr, uint32_t n, uint32_t *cap, size_t elsize)
{
    if (n < *cap)
        return BOX_OK;
    uint32_t nc = *cap ? *cap * 2 : 8;
    void *na = box_arena_alloc(p->ep_a, (size_t)nc * elsize);
    if (na == NULL)
        return nomem(p);
    if (n)
        memcpy(na, *arr, (size_t)n * elsize);
    *arr = na;
    *cap = nc;
    return BOX_OK;
}

/* The selector named by the current token, or -1. */
static int
at_selector(eparser *p)
{
    for (size_t i = 0; i < sizeof(es_sel_names) / sizeof(es_sel_names[0]);
         i++) {
        if (at_kw(p, es_sel_names[i]))
            return (int)i;
    }
    return -1;
}

/* ---- types ---- */

static const pdp_type es_ty_bool = {.ty_kind = PDP_TY_BOOL};
static const pdp_type es_ty_long = {.ty_kind = PDP_TY_LONG};
static const pdp_type es_ty_string = {.ty_kind = PDP_TY_STRING};

/* The Cedar type a concrete type name denotes: a primitive, an
 * extension type, else an entity type taken as written (§5.2; it is not
 * checked against the action schema, as in the reference). */
static box_err
concrete_type(eparser *p, pdp_str name, const pdp_type **out)
{
    static const struct {
        const char *ct_name;
        const pdp_type *ct_type;
    } prims[] = {
        {"Bool", &es_ty_bool},
        {"Long", &es_ty_long},
        {"String", &es_ty_string},
    };
    static const char *const exts[] = {"decimal", "datetime", "duration",
                                       "ipaddr"};
    pdp_str bare = name;
    if (bare.len > 9 && memcmp(bare.s, "__cedar::", 9) == 0) {
        bare.s += 9;
        bare.len -= 9;
    }
    for (size_t i = 0; i < sizeof(prims) / sizeof(prims[0]); i++) {
        if (bare.len == strlen(prims[i].ct_name) &&
            memcmp(bare.s, prims[i].ct_name, bare.len) == 0) {
            *out = prims[i].ct_type;
            return BOX_OK;
        }
    }
    pdp_type *t = box_arena_zalloc(p->ep_a, sizeof(*t));
    if (t == NULL)
        return nomem(p);
    t->ty_kind = PDP_TY_ENTITY;
    t->ty_name = name;
    for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
        if (bare.len == strlen(exts[i]) &&
            memcmp(bare.s, exts[i], bare.len) == 0) {
            t->ty_kind = PDP_TY_EXT;
            t->ty_name = bare;
        }
    }
    *out = t;
    return BOX_OK;
}

/* ---- rules ---- */

static box_err parse_fields(eparser *p, pdp_str prefix, const es_field **out,
                            uint32_t *nout);

/* binder_ref -> ident   (must be the declaration's binder) */
static box_err
parse_binder_ref(eparser *p, const char *where)
{
    const pdp_token *t = TOK(p);
    if (!is_word(t))
        return expected(p, "the action binder");
    if (!str_eq(tstr(t), p->ep_binder))
        return serr(p, tpos(t),
                    "in %s: selector argument `%.*s` does not name the "
                    "declared action binder `%.*s` (write `%.*s`)",
                    where, (int)t->t_len, t->t_text, (int)p->ep_binder.len,
                    p->ep_binder.s, (int)p->ep_binder.len, p->ep_binder.s);
    return next(p);
}

/* `...`: three dots with nothing between them. */
static box_err
parse_ellipsis(eparser *p)
{
    const char *first = TOK(p)->t_text;
    for (int i = 0; i < 3; i++) {
        const pdp_token *t = TOK(p);
        if (t->t_kind != PDP_TK_DOT || t->t_text != first + i)
            return i == 0 ? expected(p, "`...`")
                          : serr(p, tpos(t), "expected `...`");
        BOX_TRY(next(p));
    }
    return BOX_OK;
}

/* spread -> "..." selector "(" binder_ref ")" */
static box_err
parse_spread(eparser *p, es_field *f)
{
    BOX_TRY(parse_ellipsis(p));
    int sel = at_selector(p);
    if (sel < 0)
        return expected(p, "`inputs`, `outputs`, `principalType` or "
                           "`resourceType`");
    pdp_pos pos = tpos(TOK(p));
    BOX_TRY(next(p));
    BOX_TRY(expect(p, PDP_TK_LPAREN));
    BOX_TRY(parse_binder_ref(p, "spread"));
    BOX_TRY(expect(p, PDP_TK_RPAREN));
    if (sel == ES_SEL_PRINCIPAL || sel == ES_SEL_RESOURCE)
        return serr(p, pos,
                    "selector `%s` cannot be spread (it yields entity "
                    "types, not a field record); use it as a field type "
                    "instead",
                    es_sel_names[sel]);
    f->f_kind = ES_F_SPREAD;
    f->f_sel = (es_sel)sel;
    return BOX_OK;
}

/*
 * type_expr     -> selector_call | record_type | concrete_type
 * selector_call -> selector "(" binder_ref ")"
 * record_type   -> "{" [ field_list ] "}"
 * concrete_type -> ident { "::" ident }
 * path is the field's dotted path (for the pins of a record's members).
 */
static box_err
parse_type(eparser *p, pdp_str path, es_field *f)
{
    int sel = at_selector(p);
    const pdp_token *ahead = NULL;
    if (sel >= 0)
        BOX_TRY(pdp_lex_peek(&p->ep_lx, &ahead));
    if (sel >= 0 && ahead->t_kind == PDP_TK_LPAREN) {
        pdp_pos pos = tpos(TOK(p));
        BOX_TRY(next(p));
        BOX_TRY(next(p));
        BOX_TRY(parse_binder_ref(p, "field type"));
        BOX_TRY(expect(p, PDP_TK_RPAREN));
        if (sel == ES_SEL_INPUTS || sel == ES_SEL_OUTPUTS)
            return serr(p, pos,
                        "selector `%s` cannot be used as a field type (it "
                        "yields a field record, not a type); spread it with "
                        "`...` instead",
                        es_sel_names[sel]);
        f->f_kind = ES_F_SELECTOR;
        f->f_sel = (es_sel)sel;
        return BOX_OK;
    }
    if (TOK(p)->t_kind == PDP_TK_LBRACE) {
        if (p->ep_depth >= ES_MAX_DEPTH)
            return serr(p, tpos(TOK(p)),
                        "record types nest too deeply (more than %d levels)",
                        ES_MAX_DEPTH);
        BOX_TRY(next(p));
        p->ep_depth++;
        box_err rv = parse_fields(p, path, &f->f_members, &f->f_nmembers);
        p->ep_depth--;
        BOX_TRY(rv);
        f->f_kind = ES_F_RECORD;
        return BOX_OK;
    }
    if (!is_word(TOK(p)))
        return expected(p, "a type (`String`, `Long`, an entity type, a "
                           "record `{ … }`, `principalType(A)` or "
                           "`resourceType(A)`)");
    pdp_str name = {"", 0};
    for (;;) {
        size_t n;
        char *s = join(p->ep_a, name, "::", tstr(TOK(p)), &n);
        if (s == NULL)
            return nomem(p);
        name.s = s;
        name.len = n;
        BOX_TRY(next(p));
        if (TOK(p)->t_kind != PDP_TK_DCOLON)
            break;
        BOX_TRY(next(p));
        if (!is_word(TOK(p)))
            return expected(p, "a type name after `::`");
    }
    f->f_kind = ES_F_CONCRETE;
    return concrete_type(p, name, &f->f_type);
}

/*
 * pin_rhs     -> "=" ( pin_scope | pin_context )
 * pin_scope   -> ( "principal" | "resource" ) { "." ident }
 * pin_context -> "context" ( "." ident )+
 */
static box_err
parse_pin_rhs(eparser *p, pdp_evpin *pin)
{
    BOX_TRY(next(p)); // =
    const pdp_token *t = TOK(p);
    if (tok_is(t, "principal"))
        pin->pn_root = PDP_EVPIN_PRINCIPAL;
    else if (tok_is(t, "resource"))
        pin->pn_root = PDP_EVPIN_RESOURCE;
    else if (tok_is(t, "context"))
        pin->pn_root = PDP_EVPIN_CONTEXT;
    else
        return expected(p, "`principal`, `resource` or `context.<path>` "
                           "after `=`");
    pdp_str text = tstr(t), path = {"", 0};
    BOX_TRY(next(p));
    if (pin->pn_root == PDP_EVPIN_CONTEXT && TOK(p)->t_kind != PDP_TK_DOT)
        return expected(p, "`.` and a field of the context");
    while (TOK(p)->t_kind == PDP_TK_DOT) {
        BOX_TRY(next(p));
        if (!is_word(TOK(p)))
            return expected(p, "a name after `.`");
        size_t n;
        char *s = join(p->ep_a, path, ".", tstr(TOK(p)), &n);
        if (s == NULL)
            return nomem(p);
        path.s = s;
        path.len = n;
        BOX_TRY(next(p));
    }
    pin->pn_text.s = join(p->ep_a, text, ".", path, &pin->pn_text.len);
    if (pin->pn_text.s == NULL)
        return nomem(p);
    pin->pn_path.s = pin->pn_text.s + pin->pn_text.len - path.len;
    pin->pn_path.len = path.len;
    return BOX_OK;
}

/*
 * field       -> spread | named_field
 * named_field -> [ "pin" ] ident ":" type_expr [ pin_rhs ]
 * `pin` is the pin prefix only when a field name follows it (`pin: T`
 * names a field `pin`).
 */
static box_err
parse_field(eparser *p, pdp_str prefix, es_field *f)
{
    memset(f, 0, sizeof(*f));
    if (TOK(p)->t_kind == PDP_TK_DOT)
        return parse_spread(p, f);
    pdp_pos pos = tpos(TOK(p));
    bool pinned = false;
    if (at_kw(p, "pin")) {
        const pdp_token *ahead;
        BOX_TRY(pdp_lex_peek(&p->ep_lx, &ahead));
        if (is_word(ahead)) {
            pinned = true;
            BOX_TRY(next(p));
        }
    }
    if (!is_word(TOK(p)))
        return expected(p, "a field name or `...`");
    const pdp_token *nt = TOK(p);
    f->f_name.s = box_arena_strndup(p->ep_a, nt->t_text, nt->t_len);
    f->f_name.len = nt->t_len;
    if (f->f_name.s == NULL)
        return nomem(p);
    pdp_str path;
    path.s = join(p->ep_a, prefix, ".", f->f_name, &path.len);
    if (path.s == NULL)
        return nomem(p);
    BOX_TRY(next(p));
    BOX_TRY(expect(p, PDP_TK_COLON));
    BOX_TRY(parse_type(p, path, f));
    int nl = (int)f->f_name.len;
    const char *nm = f->f_name.s;
    if (TOK(p)->t_kind != PDP_TK_ASSIGN) {
        if (pinned)
            return serr(p, pos,
                        "pinned field `%.*s` is missing its pin value; write "
                        "`pin %.*s: <type> = context.<...>`",
                        nl, nm, nl, nm);
        return BOX_OK;
    }
    if (!pinned)
        return serr(p, tpos(TOK(p)),
                    "field `%.*s` has a `= context.<...>` value but is not "
                    "marked `pin`; write `pin %.*s: <type> = …`",
                    nl, nm, nl, nm);
    if (f->f_kind == ES_F_RECORD)
        return serr(p, pos,
                    "field `%.*s` is a record group and cannot be pinned; "
                    "pin a leaf field inside it instead",
                    nl, nm);
    BOX_TRY(grow(p, (void **)&p->ep_pins, p->ep_npins, &p->ep_pincap,
                 sizeof(*p->ep_pins)));
    pdp_evpin *pin = &p->ep_pins[p->ep_npins];
    memset(pin, 0, sizeof(*pin));
    pin->pn_field = path;
    pin->pn_pos = pos;
    BOX_TRY(parse_pin_rhs(p, pin));
    p->ep_npins++;
    return BOX_OK;
}

/* The name f takes at its level: its own, or its spread's group. */
static pdp_str
level_name(const es_field *f)
{
    pdp_str s = {f->f_name.s, f->f_name.len};
    if (f->f_kind == ES_F_SPREAD) {
        s.s = es_spread_group(f->f_sel);
        s.len = strlen(s.s);
    }
    return s;
}

/* §5.2: names are unique at every level; a spread's group counts. */
static box_err
check_unique(eparser *p, const es_field *fs, uint32_t n, const es_field *f,
             pdp_pos pos)
{
    pdp_str name = level_name(f);
    int bl = (int)p->ep_binder.len, kl = (int)p->ep_kind.len, nl;
    const char *b = p->ep_binder.s, *k = p->ep_kind.s;
    nl = (int)name.len;
    for (uint32_t i = 0; i < n; i++) {
        if (!str_eq(level_name(&fs[i]), name))
            continue;
        if (f->f_kind == ES_F_SPREAD)
            return serr(p, pos,
                        "the `%.*s` field group produced by `...%s(%.*s)` (on "
                        "`%.*s::%.*s`) collides with another field named "
                        "`%.*s`; a spread group and a named field may not "
                        "share a name",
                        nl, name.s, es_sel_names[f->f_sel], bl, b, bl, b, kl, k,
                        nl, name.s);
        if (fs[i].f_kind == ES_F_SPREAD)
            return serr(p, pos,
                        "event-schema field `%.*s` (injected on `%.*s::%.*s`) "
                        "collides with the `%.*s` field group produced by a "
                        "spread; a named field may not shadow a spread group",
                        nl, name.s, bl, b, kl, k, nl, name.s);
        return serr(p, pos,
                    "event-schema field `%.*s` is defined more than once on "
                    "`%.*s::%.*s`; field names must be unique at each level",
                    nl, name.s, bl, b, kl, k);
    }
    return BOX_OK;
}

/* field_list -> field { "," field } [ "," ]   then the closing "}" */
static box_err
parse_fields(eparser *p, pdp_str prefix, const es_field **out, uint32_t *nout)
{
    es_field *fs = NULL;
    uint32_t n = 0, cap = 0;
    while (TOK(p)->t_kind != PDP_TK_RBRACE) {
        pdp_pos pos = tpos(TOK(p));
        es_field f;
        BOX_TRY(parse_field(p, prefix, &f));
        BOX_TRY(check_unique(p, fs, n, &f, pos));
        BOX_TRY(grow(p, (void **)&fs, n, &cap, sizeof(*fs)));
        fs[n++] = f;
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
    }
    if (TOK(p)->t_kind != PDP_TK_RBRACE)
        return expected(p, "`,` or `}`");
    *out = fs;
    *nout = n;
    return next(p);
}

/*
 * max_window_decl -> "max_window" "=" interval
 * interval        -> integer time_unit      (integer > 0)
 * time_unit       -> "s" | "m" | "h" | "d"
 */
static box_err
parse_max_window(eparser *p, pdp_evschema *es)
{
    static const struct {
        char u_name;
        int64_t u_secs;
    } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
    BOX_TRY(next(p));
    BOX_TRY(expect(p, PDP_TK_ASSIGN));
    const pdp_token num = *TOK(p);
    if (num.t_kind != PDP_TK_INT)
        return expected(p, "the window (an integer and a unit, e.g. `24h`)");
    uint64_t amount = 0;
    bool big = false;
    for (size_t i = 0; i < num.t_len && !big; i++) {
        uint64_t d = (uint64_t)(num.t_text[i] - '0');
        if (amount > ((uint64_t)INT64_MAX - d) / 10)
            big = true;
        else
            amount = amount * 10 + d;
    }
    BOX_TRY(next(p));
    const pdp_token *u = TOK(p);
    int64_t mult = 0;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (u->t_kind == PDP_TK_IDENT && u->t_len == 1 &&
            u->t_text[0] == units[i].u_name)
            mult = units[i].u_secs;
    }
    if (mult == 0)
        return expected(p, "a time unit (`s`, `m`, `h` or `d`) after the "
                           "window's amount");
    char unit = u->t_text[0];
    BOX_TRY(next(p));
    if (big || amount > (uint64_t)(INT64_MAX / mult))
        return serr(p, tpos(&num), "max_window amount `%.*s` is out of range",
                    (int)num.t_len, num.t_text);
    if (amount == 0)
        return serr(p, tpos(&num),
                    "max_window must be greater than zero; a zero window "
                    "would forbid every temporal `within` clause. Omit "
                    "`max_window` to use the default cap, or set a positive "
                    "interval like `max_window = 24h`");
    es->es_max_window = (int64_t)amount * mult;
    es->es_window_amount = (int64_t)amount;
    es->es_window_unit = unit;
    return BOX_OK;
}

/* event_decl -> [ "decision" ] "event" "<" binder ">" "::" event_kind
 *               "{" [ field_list ] "}" */
static box_err
parse_event(eparser *p, es_decl *d)
{
    memset(d, 0, sizeof(*d));
    if (at_kw(p, "decision")) {
        d->d_decision = true;
        BOX_TRY(next(p));
        if (!at_kw(p, "event"))
            return expected(p, "`event`");
    }
    if (!at_kw(p, "event"))
        return expected(p, "`event`, `decision event` or `max_window`");
    BOX_TRY(next(p));
    BOX_TRY(expect(p, PDP_TK_LT));
    if (!is_word(TOK(p)))
        return expected(p, "the action binder (`<A>`)");
    p->ep_binder = tstr(TOK(p));
    BOX_TRY(next(p));
    BOX_TRY(expect(p, PDP_TK_GT));
    BOX_TRY(expect(p, PDP_TK_DCOLON));
    if (!is_word(TOK(p)))
        return expected(p, "the event kind");
    p->ep_kind = tstr(TOK(p));
    char *k = box_arena_strndup(p->ep_a, p->ep_kind.s, p->ep_kind.len);
    if (k == NULL)
        return nomem(p);
    d->d_kind.s = k;
    d->d_kind.len = p->ep_kind.len;
    BOX_TRY(next(p));
    BOX_TRY(expect(p, PDP_TK_LBRACE));
    p->ep_pins = NULL;
    p->ep_npins = p->ep_pincap = 0;
    pdp_str none = {"", 0};
    BOX_TRY(parse_fields(p, none, &d->d_fields, &d->d_nfields));
    d->d_pins = p->ep_pins;
    d->d_npins = p->ep_npins;
    return BOX_OK;
}

/* schema_entry -> [ max_window_decl ] { event_decl } EOF */
static box_err
parse_schema(eparser *p, pdp_evschema *es)
{
    es_decl *ds = NULL;
    uint32_t n = 0, cap = 0;
    bool window = false;
    pdp_pos *where = NULL; // of each declaration, for duplicate kinds
    uint32_t wcap = 0;
    es->es_max_window = PDP_EVSCHEMA_DEFAULT_MAX_WINDOW;
    es->es_window_amount = 24;
    es->es_window_unit = 'h';
    while (TOK(p)->t_kind != PDP_TK_EOF) {
        pdp_pos pos = tpos(TOK(p));
        if (at_kw(p, "max_window")) {
            if (n > 0)
                return serr(p, pos,
                            "`max_window` must come first, before "
                            "any event declaration");
            if (window)
                return serr(p, pos, "`max_window` may appear only once");
            BOX_TRY(parse_max_window(p, es));
            window = true;
            continue;
        }
        es_decl d;
        BOX_TRY(parse_event(p, &d));
        for (uint32_t i = 0; i < n; i++) {
            if (str_eq(ds[i].d_kind, d.d_kind))
                return serr(p, pos,
                            "event kind `%s` is declared more than once "
                            "(first at line %u)",
                            d.d_kind.s, where[i].line);
        }
        BOX_TRY(grow(p, (void **)&ds, n, &cap, sizeof(*ds)));
        BOX_TRY(grow(p, (void **)&where, n, &wcap, sizeof(*where)));
        where[n] = pos;
        ds[n++] = d;
    }
    if (n == 0) {
        pdp_pos start = {1, 1};
        return serr(p, start,
                    "the event schema declares no event; omit it to use the "
                    "default event schema");
    }
    es->es_decls = ds;
    es->es_ndecls = n;
    return BOX_OK;
}

box_err
pdp_evschema_parse(const char *text, size_t len, const char *file,
                   pdp_evschema **out, box_buf *err)
{
    *out = NULL;
    eparser p;
    memset(&p, 0, sizeof(p));
    p.ep_lx.lx_file = file != NULL ? file : "<event schema>";
    p.ep_lx.lx_err = err;
    if (len > PDP_EVSCHEMA_MAX_BYTES)
        return pdp_lex_error(&p.ep_lx, BOX_ETOOBIG, 1, 1,
                             "event schema is larger than %u bytes",
                             PDP_EVSCHEMA_MAX_BYTES);
    pdp_evschema *es = box_calloc(1, sizeof(*es));
    if (es == NULL ||
        (es->es_arena = box_arena_new(PDP_EVSCHEMA_MAX_MEMORY)) == NULL) {
        box_free(es);
        return pdp_lex_error(&p.ep_lx, BOX_ENOMEM, 1, 1, "out of memory");
    }
    p.ep_a = es->es_arena;
    box_err rv = pdp_lex_init(&p.ep_lx, text, len, p.ep_lx.lx_file, err);
    if (rv == BOX_OK)
        rv = parse_schema(&p, es);
    if (rv != BOX_OK) {
        pdp_evschema_free(es);
        return rv;
    }
    *out = es;
    return BOX_OK;
}

/* ORDER PDP_EVSCHEMA_BUILTIN */
static const struct {
    const char *bi_text;
    const size_t *bi_len;
    const char *bi_file;
} es_builtins[] = {
    {pdp_evschema_default_text, &pdp_evschema_default_text_len,
     "default_events.dwschema"},
    {pdp_evschema_box_text, &pdp_evschema_box_text_len, "events.dwschema"},
};

const char *
pdp_evschema_builtin_text(pdp_evschema_builtin which, size_t *len)
{
    *len = *es_builtins[which].bi_len;
    return es_builtins[which].bi_text;
}

box_err
pdp_evschema_load_builtin(pdp_evschema_builtin which, pdp_evschema **out,
                          box_buf *err)
{
    return pdp_evschema_parse(es_builtins[which].bi_text,
                              *es_builtins[which].bi_len,
                              es_builtins[which].bi_file, out, err);
}

void
pdp_evschema_free(pdp_evschema *es)
{
    if (es == NULL)
        return;
    box_arena_free(es->es_arena);
    box_free(es);
}

/* ---- queries ---- */

static const es_decl *
find_decl(const pdp_evschema *es, const char *kind, size_t len)
{
    for (uint32_t i = 0; i < es->es_ndecls; i++) {
        const es_decl *d = &es->es_decls[i];
        if (d->d_kind.len == len && memcmp(d->d_kind.s, kind, len) == 0)
            return d;
    }
    return NULL;
}

bool
pdp_evschema_has_kind(const pdp_evschema *es, const char *kind, size_t len)
{
    return find_decl(es, kind, len) != NULL;
}

bool
pdp_evschema_is_decision_kind(const pdp_evschema *es, const char *kind,
                              size_t len)
{
    const es_decl *d = find_decl(es, kind, len);
    return d != NULL && d->d_decision;
}

size_t
pdp_evschema_kind_count(const pdp_evschema *es)
{
    return es->es_ndecls;
}

const char *
pdp_evschema_kind_at(const pdp_evschema *es, size_t i, size_t *len)
{
    *len = es->es_decls[i].d_kind.len;
    return es->es_decls[i].d_kind.s;
}

int64_t
pdp_evschema_max_window(const pdp_evschema *es)
{
    return es->es_max_window;
}

void
pdp_evschema_max_window_written(const pdp_evschema *es, int64_t *amount,
                                char *unit)
{
    *amount = es->es_window_amount;
    *unit = es->es_window_unit;
}

const pdp_evpin *
pdp_evschema_pins(const pdp_evschema *es, const char *kind, size_t len,
                  size_t *n)
{
    const es_decl *d = find_decl(es, kind, len);
    *n = d != NULL ? d->d_npins : 0;
    return d != NULL ? d->d_pins : NULL;
}
