/* SPDX-License-Identifier: Apache-2.0 */
/* cedar_diff: box's engine against Cedar's own (cedar-wasm), case by case. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_buf.h"
#include "cd_gen.h"
#include "pdp_decide.h"
#include "pdp_entities.h"
#include "pdp_ext.h"
#include "pdp_policy.h"
#include "pdp_value.h"

/*
 * Generates N cases (cd_gen.c), decides each with box (pdp_policy_load
 * + pdp_decide, no schema: plain Cedar), writes them as JSON lines for
 * decide.mjs, runs it under node, and compares answer by answer:
 *
 *  - whether the policy set loads at all (Cedar: whether it parses);
 *  - Cedar's decision: box's pdp_answer_cedar_verdict, NOT its Box
 *    verdict. Box's stricter error rule (dogwood-spec §1.5) denies any
 *    request whose evaluation raised an error, where Cedar skips the
 *    erroring policy and lets the others decide; that difference is
 *    deliberate, so the verdict compared is the one before the rule, and
 *    the rule itself is checked apart (Box allows iff Cedar allows with
 *    no error, and an error is an InternalFault);
 *  - the determining policies (Cedar's "reason"), by position: Cedar
 *    names the policies of one text policy0, policy1…, box policy_0…;
 *  - which policies raised an error, and of which category (cd_cat:
 *    not the texts, which need only the category, dogwood-spec §3.2).
 *
 * Every disagreement is printed whole (seed, case, a command that
 * reproduces it alone, the policies, the request, both answers) and the
 * exit status is 1. 0 when all agree, 77 when node or the package is
 * missing (a skip; in CI a failure, see cd_strict), 2 on misuse or an
 * internal failure.
 */

#define CD_EXIT_SKIP 77
#define CD_EXIT_FAIL 2
#define CD_ARENA_MAX (64u << 20)
#define CD_LINE_MAX (16u << 20)
#define CD_MSG_MAX 4096
#define CD_REQUEST_ERR 31 // the error bit of an error that names no rule

typedef struct cd_opts {
    uint64_t o_seed;
    uint64_t o_first, o_count;
    const char *o_dir;   // tests/cedar_diff: decide.mjs and node_modules
    const char *o_node;  // the node program, or NULL: search PATH
    const char *o_cases; // where to keep the cases file, or NULL
    bool o_one;          // --case: one case, printed whatever the outcome
} cd_opts;

/*
 * The category of an evaluation error (dogwood-spec §3.2: an
 * implementation needs the category, the exact text only for logs),
 * from Cedar's message shapes, which box's messages follow.
 */
typedef enum cd_cat {
    CD_CAT_NONE,     // no error
    CD_CAT_OTHER,    // a text of no known shape
    CD_CAT_TYPE,     // type error: expected …, got …
    CD_CAT_OVERFLOW, // integer overflow while attempting to …
    CD_CAT_ATTR,     // … does not have the attribute `a`
    CD_CAT_TAG,      // … does not have the tag `k`
    CD_CAT_ENTITY,   // entity `E` does not exist
    CD_CAT_EXT,      // error while evaluating `f` extension function: …
    CD_CAT_ARITY,    // wrong number of arguments provided to …
} cd_cat;

static cd_cat
category(const char *m)
{
    if (m == NULL)
        return CD_CAT_OTHER;
    if (strncmp(m, "type error", 10) == 0)
        return CD_CAT_TYPE;
    if (strncmp(m, "integer overflow", 16) == 0)
        return CD_CAT_OVERFLOW;
    if (strstr(m, "does not have the attribute") != NULL)
        return CD_CAT_ATTR;
    if (strstr(m, "does not have the tag") != NULL)
        return CD_CAT_TAG;
    if (strncmp(m, "entity `", 8) == 0 && strstr(m, "does not exist") != NULL)
        return CD_CAT_ENTITY;
    if (strncmp(m, "wrong number of arguments", 25) == 0)
        return CD_CAT_ARITY;
    if (strncmp(m, "error while evaluating", 22) == 0)
        return CD_CAT_EXT;
    return CD_CAT_OTHER;
}

/* What box said about one case. */
typedef struct cd_box {
    bool b_loaded;
    bool b_continued; // the text has a backslash-newline (in a string)
    bool b_arity; // refused: an extension constructor's argument count
    bool b_dup_id; // refused: two rules with one @id (§6.2 step 5)
    bool b_cedar_allow;
    bool b_allow;
    bool b_rule_ok; // Box's §1.5 rule holds between the two verdicts
    uint32_t b_det; // bit i: policy i determining
    uint32_t b_err; // bit i: policy i raised an error
    uint8_t b_cat[CD_REQUEST_ERR]; // policy i's error category (cd_cat)
} cd_box;

/* What Cedar said. */
typedef struct cd_peer {
    bool p_failure;
    bool p_reserved_if; // refused: `if` as a record key or attribute
    bool p_bad_token;   // refused: "invalid token"
    bool p_allow;
    uint32_t p_det, p_err;
    uint8_t p_cat[CD_REQUEST_ERR];
} cd_peer;

typedef struct cd_stats {
    uint64_t s_agree, s_disagree;
    uint64_t s_allow, s_deny, s_forbid, s_errors, s_refused;
    uint64_t s_known;   // deliberate differences (known_difference)
} cd_stats;

static void
usage(void)
{
    fprintf(stderr,
            "usage: cedar_diff [--seed S|random] [--count N] [--first I]\n"
            "                  [--case I] [--dir DIR] [--node PATH]"
            " [--cases FILE]\n"
            "  --seed S     the run's seed (default: random, printed)\n"
            "  --count N    cases to generate (default 10000)\n"
            "  --first I    index of the first case (default 0)\n"
            "  --case I     case I alone, printed with both answers\n"
            "  --dir DIR    tests/cedar_diff (decide.mjs, node_modules)\n"
            "  --node PATH  the node program (default: node on PATH)\n"
            "  --cases FILE keep the generated cases (JSON lines) there\n");
}

static bool
parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-')
        return false;
    *out = v;
    return true;
}

static uint64_t
random_seed(void)
{
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f == NULL || fread(&s, sizeof(s), 1, f) != 1)
        s = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
    if (f != NULL)
        fclose(f);
    return s % 1000000000000ULL; // short enough to retype
}

static int
parse_opts(int argc, char **argv, cd_opts *o)
{
    bool seeded = false;
    o->o_count = 10000;
    for (int i = 1; i < argc; i += 2) { // every option takes a value
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (strcmp(a, "--seed") == 0 && ok) {
            seeded = strcmp(v, "random") != 0;
            ok = !seeded || parse_u64(v, &o->o_seed);
        } else if (strcmp(a, "--count") == 0 && ok) {
            ok = parse_u64(v, &o->o_count);
        } else if (strcmp(a, "--first") == 0 && ok) {
            ok = parse_u64(v, &o->o_first);
        } else if (strcmp(a, "--case") == 0 && ok) {
            ok = parse_u64(v, &o->o_first);
            o->o_count = 1;
            o->o_one = true;
        } else if (strcmp(a, "--dir") == 0 && ok) {
            o->o_dir = v;
        } else if (strcmp(a, "--node") == 0 && ok) {
            o->o_node = v;
        } else if (strcmp(a, "--cases") == 0 && ok) {
            o->o_cases = v;
        } else {
            ok = false;
        }
        if (!ok) {
            usage();
            return CD_EXIT_FAIL;
        }
    }
    if (!seeded)
        o->o_seed = random_seed();
    if (o->o_dir == NULL)
        o->o_dir = CEDAR_DIFF_DIR;
    return 0;
}

/* ---- the peer's presence ---- */

/* In CI (CI set, as CI services do) or with BOX_REQUIRE_CEDAR_WASM=1, a
 * missing node or package fails the test instead of skipping it: a CI
 * that quietly skips the differential tests nothing.
 * BOX_REQUIRE_CEDAR_WASM=0 skips again. */
static bool
cd_strict(void)
{
    const char *v = getenv("BOX_REQUIRE_CEDAR_WASM");
    if (v != NULL)
        return v[0] != '\0' && strcmp(v, "0") != 0;
    v = getenv("CI");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0 &&
           strcmp(v, "false") != 0;
}

static int
missing(const char *what)
{
    if (cd_strict()) {
        fprintf(stderr, "cedar_diff: missing: %s\n(required here: CI or "
                        "BOX_REQUIRE_CEDAR_WASM is set; "
                        "BOX_REQUIRE_CEDAR_WASM=0 skips instead)\n", what);
        return CD_EXIT_FAIL;
    }
    fprintf(stderr, "cedar_diff: missing: %s\ncedar_diff: SKIPPED (install "
                    "nodejs and npm, then run `npm ci` in tests/cedar_diff; "
                    "deploy/setup.sh does both)\n", what);
    return CD_EXIT_SKIP;
}

/* The node program: o_node, else `node` or `nodejs` on PATH. */
static bool
find_node(const cd_opts *o, char *out, size_t n)
{
    if (o->o_node != NULL) {
        snprintf(out, n, "%s", o->o_node);
        return access(out, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    static const char *const names[] = {"node", "nodejs"};
    for (size_t k = 0; k < 2; k++) {
        for (const char *p = path; p != NULL && *p != '\0';) {
            const char *colon = strchr(p, ':');
            size_t len = colon != NULL ? (size_t)(colon - p) : strlen(p);
            if (len > 0) {
                snprintf(out, n, "%.*s/%s", (int)len, p, names[k]);
                if (access(out, X_OK) == 0)
                    return true;
            }
            p = colon != NULL ? colon + 1 : NULL;
        }
    }
    return false;
}

/* ---- box's side ---- */

static box_err
to_pdp(box_arena *a, const cd_val *v, const pdp_value **out)
{
    box_err rv = BOX_OK;
    pdp_value *x = NULL;
    switch (v->k) {
    case CD_BOOL:
        *out = pdp_value_bool(a, v->b);
        return *out != NULL ? BOX_OK : BOX_ENOMEM;
    case CD_LONG:
        *out = pdp_value_long(a, v->l);
        return *out != NULL ? BOX_OK : BOX_ENOMEM;
    case CD_STR:
        rv = pdp_value_string(a, v->s, v->n, &x);
        *out = x;
        return rv;
    case CD_ENT:
        rv = pdp_value_entity(a, v->type, strlen(v->type), v->s, v->n, &x);
        *out = x;
        return rv;
    case CD_SET:
        if ((x = pdp_value_set_new(a)) == NULL)
            return BOX_ENOMEM;
        for (size_t i = 0; i < v->nitems && rv == BOX_OK; i++) {
            const pdp_value *e;
            if ((rv = to_pdp(a, v->items[i], &e)) == BOX_OK)
                rv = pdp_value_set_add(a, x, e);
        }
        *out = x;
        return rv;
    case CD_REC:
        if ((x = pdp_value_record_new(a)) == NULL)
            return BOX_ENOMEM;
        for (size_t i = 0; i < v->nitems && rv == BOX_OK; i++) {
            const pdp_value *e;
            if ((rv = to_pdp(a, v->items[i], &e)) == BOX_OK)
                rv = pdp_value_record_put(a, x, v->keys[i],
                                          strlen(v->keys[i]), e);
        }
        *out = x;
        return rv;
    default: {
        const char *ctor = cd_kind_ctor(v->k);
        pdp_method m;
        char msg[256];
        if (!pdp_ext_lookup(ctor, strlen(ctor), PDP_XS_FUNCTION, &m))
            return BOX_EINVAL;
        return pdp_ext_construct(m, v->s, v->n, a, out, msg, sizeof(msg));
    }
    }
}

static box_err
build_entities(box_arena *a, const cd_case *c, pdp_entities *st)
{
    st->es_items = NULL;
    st->es_n = 0;
    if (c->c_nentities == 0)
        return BOX_OK;
    pdp_entity *es = box_arena_zalloc(a, c->c_nentities * sizeof(*es));
    if (es == NULL)
        return BOX_ENOMEM;
    box_err rv = BOX_OK;
    for (size_t i = 0; i < c->c_nentities && rv == BOX_OK; i++) {
        const cd_entity *e = &c->c_entities[i];
        rv = to_pdp(a, e->uid, &es[i].et_uid);
        if (rv == BOX_OK && e->attrs != NULL)
            rv = to_pdp(a, e->attrs, &es[i].et_attrs);
        if (rv == BOX_OK && e->tags != NULL)
            rv = to_pdp(a, e->tags, &es[i].et_tags);
        pdp_value *ps = rv == BOX_OK ? pdp_value_set_new(a) : NULL;
        if (rv == BOX_OK && ps == NULL)
            rv = BOX_ENOMEM;
        for (size_t j = 0; j < e->nparents && rv == BOX_OK; j++) {
            const pdp_value *p;
            if ((rv = to_pdp(a, e->parents[j], &p)) == BOX_OK)
                rv = pdp_value_set_add(a, ps, p);
        }
        es[i].et_parents = ps;
    }
    st->es_items = es;
    st->es_n = c->c_nentities;
    return rv;
}

static uint32_t
bit_of(const pdp_rule *r)
{
    return r == NULL || r->r_index >= CD_REQUEST_ERR
               ? (uint32_t)1 << CD_REQUEST_ERR
               : (uint32_t)1 << r->r_index;
}

static void
put_mask(box_buf *o, uint32_t m)
{
    bool first = true;
    (void)!box_buf_putc(o, '[');
    for (unsigned i = 0; i < 32; i++) {
        if (m & (uint32_t)1 << i) {
            (void)!box_buf_printf(o, first ? "%u" : ", %u", i);
            first = false;
        }
    }
    (void)!box_buf_putc(o, ']');
}

/*
 * Decides c with box into *res; when detail is not NULL, appends a
 * readable account of box's answer (load error, verdicts, rules, error
 * texts). BOX_OK, or the failure that kept box from answering.
 */
static box_err
decide_box(const cd_case *c, box_arena *a, pdp_answer *ans, cd_box *res,
           box_buf *detail)
{
    memset(res, 0, sizeof(*res));
    res->b_continued = c->c_policies.b_len > 0 &&
                       memmem(c->c_policies.b_data, c->c_policies.b_len,
                              "\\\n", 2) != NULL;
    pdp_policy_set *set = NULL;
    char *err = NULL;
    box_err rv = pdp_policy_load(c->c_policies.b_data, c->c_policies.b_len,
                                 "cases.cedar", &set, &err);
    if (rv != BOX_OK) {
        res->b_arity = err != NULL &&
                       strstr(err, "wrong number of arguments provided to "
                                   "extension function") != NULL;
        res->b_dup_id = rv == BOX_ECONFIG && err != NULL &&
                        strstr(err, "policy gives one @id to more than "
                                    "one rule") != NULL;
        if (detail != NULL)
            (void)!box_buf_printf(detail, "refused to load (%s): %s",
                                  box_strerror(rv), err != NULL ? err : "");
        box_free(err);
        return rv == BOX_ENOMEM ? rv : BOX_OK;
    }
    res->b_loaded = true;
    pdp_request rq;
    pdp_entities st;
    memset(&rq, 0, sizeof(rq));
    if ((rv = to_pdp(a, c->c_principal, &rq.rq_principal)) != BOX_OK ||
        (rv = to_pdp(a, c->c_action, &rq.rq_action)) != BOX_OK ||
        (rv = to_pdp(a, c->c_resource, &rq.rq_resource)) != BOX_OK ||
        (rv = to_pdp(a, c->c_context, &rq.rq_context)) != BOX_OK ||
        (rv = build_entities(a, c, &st)) != BOX_OK)
        goto out;
    rq.rq_resource_text = "";
    rq.rq_entities = st.es_n > 0 ? &st : NULL;
    if ((rv = pdp_decide(set, &rq, ans)) != BOX_OK)
        goto out;
    res->b_cedar_allow = pdp_answer_cedar_verdict(ans) == PDP_ALLOW;
    res->b_allow = pdp_answer_verdict(ans) == PDP_ALLOW;
    for (size_t i = 0; i < pdp_answer_determining_count(ans); i++)
        res->b_det |= bit_of(pdp_answer_determining(ans, i));
    size_t nerr = pdp_answer_error_count(ans);
    for (size_t i = 0; i < nerr; i++) {
        const pdp_rule *r = pdp_answer_error_rule(ans, i);
        res->b_err |= bit_of(r);
        if (r != NULL && r->r_index < CD_REQUEST_ERR &&
            res->b_cat[r->r_index] == CD_CAT_NONE)
            res->b_cat[r->r_index] =
                (uint8_t)category(pdp_answer_error_message(ans, i));
    }
    /* §1.5: Box allows only a Cedar Allow with no error; any error is an
     * InternalFault deny. */
    pdp_reason why = pdp_answer_reason(ans);
    res->b_rule_ok =
        res->b_allow == (res->b_cedar_allow && nerr == 0) &&
        (nerr == 0 || why == PDP_REASON_INTERNAL_FAULT) &&
        (!res->b_allow || why == PDP_REASON_PERMITTED);
    if (detail != NULL) {
        (void)!box_buf_printf(detail, "%s, determining ",
                              res->b_cedar_allow ? "allow" : "deny");
        put_mask(detail, res->b_det);
        (void)!box_buf_puts(detail, ", errors [");
        for (size_t i = 0; i < nerr; i++) {
            const pdp_rule *r = pdp_answer_error_rule(ans, i);
            (void)!box_buf_printf(detail, "%s%d: %s", i > 0 ? "; " : "",
                                  r != NULL ? (int)r->r_index : -1,
                                  pdp_answer_error_message(ans, i));
        }
        (void)!box_buf_printf(detail, "]; Box verdict %s (%s)",
                              res->b_allow ? "allow" : "deny",
                              pdp_reason_name(why));
    }
out:
    pdp_policy_free(set);
    return rv;
}

/* ---- the peer ---- */

static bool
json_mask(json_object *arr, uint32_t *mask, uint8_t *cats, box_buf *detail,
          bool errors)
{
    *mask = 0;
    if (arr == NULL || !json_object_is_type(arr, json_type_array))
        return false;
    size_t n = json_object_array_length(arr);
    if (detail != NULL)
        (void)!box_buf_putc(detail, '[');
    for (size_t i = 0; i < n; i++) {
        json_object *x = json_object_array_get_idx(arr, i), *p = x, *m = NULL;
        if (errors && (!json_object_object_get_ex(x, "p", &p) ||
                       !json_object_object_get_ex(x, "m", &m)))
            return false;
        int64_t k = json_object_get_int64(p);
        *mask |= k >= 0 && k < CD_REQUEST_ERR ? (uint32_t)1 << k
                                              : (uint32_t)1 << CD_REQUEST_ERR;
        if (errors && k >= 0 && k < CD_REQUEST_ERR &&
            cats[k] == CD_CAT_NONE)
            cats[k] = (uint8_t)category(json_object_get_string(m));
        if (detail != NULL && errors)
            (void)!box_buf_printf(detail, "%s%" PRId64 ": %s",
                                  i > 0 ? "; " : "", k,
                                  json_object_get_string(m));
        else if (detail != NULL)
            (void)!box_buf_printf(detail, "%s%" PRId64, i > 0 ? ", " : "", k);
    }
    if (detail != NULL)
        (void)!box_buf_putc(detail, ']');
    return true;
}

/* One answer line of decide.mjs; *index is its case. */
static bool
parse_peer(const char *line, uint64_t *index, cd_peer *p, box_buf *detail)
{
    memset(p, 0, sizeof(*p));
    json_object *o = json_tokener_parse(line), *x;
    bool ok = o != NULL && json_object_object_get_ex(o, "i", &x);
    if (ok)
        *index = (uint64_t)json_object_get_int64(x);
    if (ok && json_object_object_get_ex(o, "failure", &x)) {
        p->p_failure = true;
        const char *why = json_object_get_string(x);
        p->p_reserved_if =
            strstr(why, "reserved and cannot be used: if") != NULL;
        p->p_bad_token = strstr(why, "invalid token") != NULL;
        if (detail != NULL)
            (void)!box_buf_printf(detail, "refused: %s",
                                  json_object_get_string(x));
    } else if (ok && json_object_object_get_ex(o, "decision", &x)) {
        p->p_allow = strcmp(json_object_get_string(x), "allow") == 0;
        json_object *r = NULL, *e = NULL;
        json_object_object_get_ex(o, "reason", &r);
        json_object_object_get_ex(o, "errors", &e);
        if (detail != NULL)
            (void)!box_buf_printf(detail, "%s, reason ",
                                  p->p_allow ? "allow" : "deny");
        ok = json_mask(r, &p->p_det, NULL, detail, false);
        if (ok && detail != NULL)
            (void)!box_buf_puts(detail, ", errors ");
        ok = ok && json_mask(e, &p->p_err, p->p_cat, detail, true);
    } else {
        ok = false;
    }
    json_object_put(o);
    return ok;
}

/*
 * The deliberate differences: cases the two engines may answer apart,
 * by design, counted by name and not compared. NULL for any other case.
 *
 *  - "`if` as a key": dogwood-spec §2.1 and §2.3 (after Cedar RFC 62)
 *    let the reserved word `if` be a record key and a `has` attribute
 *    (`{ if: true } has if`, worked example C26 of §8.1), which box
 *    accepts; cedar-wasm 4.13 refuses the whole policy set ("this
 *    identifier is reserved and cannot be used: if").
 *  - "constructor arity at load": box refuses `ip()` or `decimal("1",
 *    "2")` when it loads the set (pdp_parse.c, with Cedar's text "wrong
 *    number of arguments provided to extension function …"), where
 *    Cedar parses it and raises that error only if the call is
 *    evaluated. A call that can only fail is stricter refused than
 *    skipped, and Box's own load (strict validation, §6.2 step 8)
 *    refuses it in any case.
 *  - "duplicate @id": Box refuses a set in which two rules carry one
 *    non-blank @id (dogwood-spec §6.2 step 5, a load check of
 *    pdp_policy_load); Cedar knows no such rule. The generator's own
 *    @ids are unique; a probe annotation can repeat one.
 *  - "line continuation": dogwood-spec §2.1 lists `\` + newline inside a
 *    string as an escape that skips the newline and the next line's
 *    blanks (Rust's rule), which box follows; cedar-wasm's lexer refuses
 *    the string ("invalid token"). The generator writes a backslash
 *    followed by a newline only there.
 */
static const char *
known_difference(const cd_box *b, const cd_peer *p)
{
    if (b->b_loaded && p->p_failure && p->p_reserved_if)
        return "`if` as a key";
    if (!b->b_loaded && b->b_arity && !p->p_failure)
        return "constructor arity at load";
    if (!b->b_loaded && b->b_dup_id && !p->p_failure)
        return "duplicate @id";
    if (b->b_loaded && b->b_continued && p->p_failure && p->p_bad_token)
        return "line continuation";
    return NULL;
}

static bool
agree(const cd_box *b, const cd_peer *p)
{
    if (!b->b_loaded || p->p_failure)
        return !b->b_loaded && p->p_failure;
    return b->b_rule_ok && b->b_cedar_allow == p->p_allow &&
           b->b_det == p->p_det && b->b_err == p->p_err &&
           memcmp(b->b_cat, p->p_cat, sizeof(b->b_cat)) == 0;
}

/* Prints case index whole, with both answers. */
static void
report(const cd_opts *o, uint64_t index, const char *peer_line,
       const char *title)
{
    box_arena *a = box_arena_new(CD_ARENA_MAX);
    pdp_answer *ans = pdp_answer_new();
    cd_case c;
    memset(&c, 0, sizeof(c));
    box_buf req, bd, pd;
    box_buf_init(&req, CD_LINE_MAX);
    box_buf_init(&bd, CD_LINE_MAX);
    box_buf_init(&pd, CD_LINE_MAX);
    cd_box b;
    cd_peer p;
    uint64_t pi = 0;
    if (a == NULL || ans == NULL || cd_case_gen(&c, a, o->o_seed, index) !=
                                        BOX_OK) {
        printf("cedar_diff: case %" PRIu64 ": cannot rebuild it\n", index);
        goto out;
    }
    (void)!cd_case_json(&c, &req);
    (void)!decide_box(&c, a, ans, &b, &bd);
    if (peer_line == NULL || !parse_peer(peer_line, &pi, &p, &pd))
        (void)!box_buf_puts(&pd, peer_line != NULL ? peer_line : "(none)");
    printf("cedar_diff: %s: seed %" PRIu64 " case %" PRIu64 "\n"
           "  reproduce: cedar_diff --seed %" PRIu64 " --case %" PRIu64 "\n"
           "--- policies\n%s\n--- request (decide.mjs's input line)\n%s\n"
           "--- box:   %s\n--- cedar: %s\n\n",
           title, o->o_seed, index, o->o_seed, index,
           c.c_policies.b_data != NULL ? c.c_policies.b_data : "",
           req.b_data != NULL ? req.b_data : "",
           bd.b_data != NULL ? bd.b_data : "",
           pd.b_data != NULL ? pd.b_data : "");
out:
    cd_case_free(&c);
    box_buf_reset(&req);
    box_buf_reset(&bd);
    box_buf_reset(&pd);
    pdp_answer_free(ans);
    box_arena_free(a);
}

static void
count(cd_stats *s, const cd_box *b)
{
    if (!b->b_loaded) {
        s->s_refused++;
        return;
    }
    if (b->b_err != 0)
        s->s_errors++;
    if (b->b_cedar_allow)
        s->s_allow++;
    else if (b->b_det != 0)
        s->s_forbid++;
    else
        s->s_deny++;
}

/* Writes the cases file and box's answers. 0, or an exit status. */
static int
run_box(const cd_opts *o, FILE *cases, cd_box *res)
{
    box_arena *a = box_arena_new(CD_ARENA_MAX);
    pdp_answer *ans = pdp_answer_new();
    box_buf line;
    box_buf_init(&line, CD_LINE_MAX);
    int status = a != NULL && ans != NULL ? 0 : CD_EXIT_FAIL;
    for (uint64_t k = 0; k < o->o_count && status == 0; k++) {
        cd_case c;
        memset(&c, 0, sizeof(c));
        box_arena_reset(a);
        box_err rv = cd_case_gen(&c, a, o->o_seed, o->o_first + k);
        line.b_len = 0;
        if (rv == BOX_OK)
            rv = cd_case_json(&c, &line);
        if (rv == BOX_OK)
            rv = box_buf_putc(&line, '\n');
        if (rv == BOX_OK && fwrite(line.b_data, 1, line.b_len, cases) !=
                                line.b_len)
            rv = BOX_EIO;
        if (rv == BOX_OK)
            rv = decide_box(&c, a, ans, &res[k], NULL);
        if (rv != BOX_OK) {
            fprintf(stderr, "cedar_diff: case %" PRIu64 ": %s\n",
                    o->o_first + k, box_strerror(rv));
            status = CD_EXIT_FAIL;
        }
        cd_case_free(&c);
    }
    box_buf_reset(&line);
    pdp_answer_free(ans);
    box_arena_free(a);
    return status;
}

/* Runs decide.mjs on the cases file and compares each answer line as it
 * arrives. 0, or an exit status. */
static int
run_peer(const cd_opts *o, const char *node, const char *path,
         const cd_box *res, cd_stats *st, char *version, size_t vlen,
         double *peer_cpu)
{
    char script[4096];
    snprintf(script, sizeof(script), "%s/decide.mjs", o->o_dir);
    int fds[2];
    if (pipe(fds) != 0) {
        perror("cedar_diff: pipe");
        return CD_EXIT_FAIL;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("cedar_diff: fork");
        close(fds[0]);
        close(fds[1]);
        return CD_EXIT_FAIL;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        // node resolves the package from the script's own folder.
        char *argv[] = {(char *)node, script, (char *)path, NULL};
        execv(node, argv);
        perror("cedar_diff: exec node");
        _exit(127);
    }
    close(fds[1]);
    box_buf in;
    box_buf_init(&in, CD_LINE_MAX * 2);
    char chunk[65536];
    uint64_t next = 0; // answers are in case order
    bool bad = false;
    ssize_t n;
    while ((n = read(fds[0], chunk, sizeof(chunk))) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            perror("cedar_diff: read");
            bad = true;
            break;
        }
        if (box_buf_append(&in, chunk, (size_t)n) != BOX_OK) {
            fprintf(stderr, "cedar_diff: an answer line is too long\n");
            bad = true;
            break;
        }
        size_t start = 0;
        for (char *nl; (nl = memchr(in.b_data + start, '\n',
                                    in.b_len - start)) != NULL;) {
            *nl = '\0';
            const char *line = in.b_data + start;
            start = (size_t)(nl - in.b_data) + 1;
            if (strncmp(line, "{\"cedar\":", 9) == 0) {
                sscanf(line, "{\"cedar\":\"%31[^\"]", version);
                (void)vlen;
                continue;
            }
            uint64_t idx = 0;
            cd_peer p;
            if (!parse_peer(line, &idx, &p, NULL) ||
                idx != o->o_first + next || next >= o->o_count) {
                fprintf(stderr, "cedar_diff: unexpected answer line: %.200s\n",
                        line);
                bad = true;
                continue;
            }
            const cd_box *b = &res[next++];
            count(st, b);
            const char *known = known_difference(b, &p);
            if (known != NULL) {
                st->s_known++;
                if (o->o_one) {
                    char title[128];
                    snprintf(title, sizeof(title),
                             "KNOWN DIFFERENCE (%s)", known);
                    report(o, idx, line, title);
                }
            } else if (agree(b, &p)) {
                st->s_agree++;
                if (o->o_one)
                    report(o, idx, line, "AGREE");
            } else {
                st->s_disagree++;
                report(o, idx, line, "DISAGREEMENT");
            }
        }
        memmove(in.b_data, in.b_data + start, in.b_len - start);
        in.b_len -= start;
    }
    close(fds[0]);
    box_buf_reset(&in);
    int ws = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    while (wait4(pid, &ws, 0, &ru) < 0 && errno == EINTR)
        ;
    *peer_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) /
                    1e6;
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == CD_EXIT_SKIP)
        return missing("@cedar-policy/cedar-wasm (node could not load it)");
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        fprintf(stderr, "cedar_diff: decide.mjs failed (status %d)\n", ws);
        return CD_EXIT_FAIL;
    }
    if (bad || next != o->o_count) {
        fprintf(stderr, "cedar_diff: %" PRIu64 " of %" PRIu64
                        " cases answered\n", next, o->o_count);
        return CD_EXIT_FAIL;
    }
    return 0;
}

static double
cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

int
main(int argc, char **argv)
{
    cd_opts o;
    memset(&o, 0, sizeof(o));
    int status = parse_opts(argc, argv, &o);
    if (status != 0)
        return status;
    printf("cedar_diff: seed %" PRIu64 ", cases %" PRIu64 "..%" PRIu64 "\n",
           o.o_seed, o.o_first, o.o_first + o.o_count);
    fflush(stdout);

    char node[4096], pkg[4096];
    if (!find_node(&o, node, sizeof(node)))
        return missing("node (Debian: nodejs)");
    snprintf(pkg, sizeof(pkg),
             "%s/node_modules/@cedar-policy/cedar-wasm/package.json", o.o_dir);
    if (access(pkg, R_OK) != 0)
        return missing("@cedar-policy/cedar-wasm in tests/cedar_diff "
                       "(npm ci there)");

    char tmp[4096];
    FILE *cases = NULL;
    if (o.o_cases != NULL) {
        snprintf(tmp, sizeof(tmp), "%s", o.o_cases);
        cases = fopen(tmp, "w");
    } else {
        const char *dir = getenv("TMPDIR");
        snprintf(tmp, sizeof(tmp), "%s/cedar_diff.XXXXXX",
                 dir != NULL && dir[0] != '\0' ? dir : "/tmp");
        int fd = mkstemp(tmp);
        cases = fd >= 0 ? fdopen(fd, "w") : NULL;
    }
    if (cases == NULL) {
        fprintf(stderr, "cedar_diff: %s: %s\n", tmp, strerror(errno));
        return CD_EXIT_FAIL;
    }
    cd_box *res = box_calloc(o.o_count ? o.o_count : 1, sizeof(*res));
    if (res == NULL) {
        fclose(cases);
        return CD_EXIT_FAIL;
    }
    double t0 = cpu_seconds();
    status = run_box(&o, cases, res);
    double box_cpu = cpu_seconds() - t0;
    if (fclose(cases) != 0 && status == 0)
        status = CD_EXIT_FAIL;
    cd_stats st;
    memset(&st, 0, sizeof(st));
    char version[32] = "?";
    double peer_cpu = 0;
    if (status == 0)
        status = run_peer(&o, node, tmp, res, &st, version, sizeof(version),
                          &peer_cpu);
    if (o.o_cases == NULL)
        unlink(tmp);
    box_free(res);
    if (status != 0)
        return status;
    printf("cedar_diff: seed %" PRIu64 ": %" PRIu64 " cases against Cedar %s:"
           " %" PRIu64 " agree, %" PRIu64 " disagree\n"
           "cedar_diff: cedar verdicts: %" PRIu64 " allow, %" PRIu64
           " forbid, %" PRIu64 " default deny; %" PRIu64
           " with errors; %" PRIu64 " refused to load/parse;"
           " %" PRIu64 " not compared (known differences)\n"
           "cedar_diff: CPU: box %.2f s (generating and deciding), "
           "cedar-wasm %.2f s\n",
           o.o_seed, o.o_count, version, st.s_agree, st.s_disagree,
           st.s_allow, st.s_forbid, st.s_deny, st.s_errors, st.s_refused,
           st.s_known, box_cpu, peer_cpu);
    printf("%" PRIu64 " passed, %" PRIu64 " failed\n",
           st.s_agree + st.s_known, st.s_disagree);
    return st.s_disagree == 0 ? 0 : 1;
}
