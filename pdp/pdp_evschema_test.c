/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_evschema: the grammar and rules of §5.1/§5.2, the built-in
 * schemas, the corpus schemas, and derivation over action schemas. */
#include "pdp_test_util.h"

#include <dirent.h>
#include <sys/stat.h>

#include "pdp_evschema.h"
#include "pdp_schema.h"

static pdp_evschema *
es_ok(const char *text)
{
    pdp_evschema *es = NULL;
    box_buf err;
    box_buf_init(&err, 4096);
    if (pdp_evschema_parse(text, strlen(text), "e.dwschema", &es, &err) !=
        BOX_OK)
        fail_msg("%s\n  -> %s", text, err.b_data);
    box_buf_reset(&err);
    return es;
}

static pdp_schema *
as_ok(const char *text)
{
    pdp_schema *s = NULL;
    char *err = NULL;
    if (pdp_schema_load(text, strlen(text), "a.cedarschema", &s, &err) !=
        BOX_OK)
        fail_msg("%s\n  -> %s", text, err);
    return s;
}

static pdp_evset *
derive_ok(const pdp_evschema *es, const pdp_schema *as)
{
    pdp_evset *set = NULL;
    box_buf err;
    box_buf_init(&err, 4096);
    if (pdp_evset_derive(es, as, &set, &err) != BOX_OK)
        fail_msg("derive: %s", err.b_data);
    box_buf_reset(&err);
    return set;
}

/* The derived event (uid, kind), which must exist. */
static const pdp_evsig *
sig(const pdp_evset *set, box_arena *a, const char *uid, const char *kind)
{
    const pdp_evsig *e = pdp_evset_find(set, tv(a, uid), kind, strlen(kind));
    if (e == NULL)
        fail_msg("no event %s::%s", uid, kind);
    return e;
}

/* The event's leaves, "path: type" joined with ", " (an entity type set
 * as [A, B], an optional leaf with a `?`). */
static char *
leaves(const pdp_evsig *e)
{
    box_buf b;
    box_buf_init(&b, 1u << 16);
    for (size_t i = 0; i < pdp_evsig_leaf_count(e); i++) {
        const pdp_evleaf *lf = pdp_evsig_leaf_at(e, i);
        assert_int_equal(box_buf_printf(&b, "%s%s%s: ", i ? ", " : "",
                                        lf->lf_path.s,
                                        lf->lf_optional ? "?" : ""),
                         BOX_OK);
        if (lf->lf_type != NULL) {
            assert_int_equal(pdp_schema_type_format(lf->lf_type, &b), BOX_OK);
            continue;
        }
        assert_int_equal(box_buf_putc(&b, '['), BOX_OK);
        for (uint32_t k = 0; k < lf->lf_netypes; k++)
            assert_int_equal(
                box_buf_printf(&b, "%s%s", k ? ", " : "", lf->lf_etypes[k].s),
                BOX_OK);
        assert_int_equal(box_buf_putc(&b, ']'), BOX_OK);
    }
    return box_buf_take(&b);
}

static void
assert_leaves(const pdp_evsig *e, const char *want)
{
    char *got = leaves(e);
    if (strcmp(got, want) != 0)
        fail_msg("%s::%s\n  got:  %s\n  want: %s", pdp_evsig_action(e)->ac_id.s,
                 pdp_evsig_kind(e), got, want);
    box_free(got);
}

static pdp_evfield
what(const pdp_evsig *e, const char *path)
{
    return pdp_evsig_field(e, path, strlen(path), NULL);
}

/* ---- the built-in schemas ---- */

static void
test_builtins(void **state)
{
    (void)state;
    for (int w = PDP_EVSCHEMA_DEFAULT; w <= PDP_EVSCHEMA_BOX; w++) {
        pdp_evschema *es = NULL;
        box_buf err;
        box_buf_init(&err, 4096);
        if (pdp_evschema_load_builtin((pdp_evschema_builtin)w, &es, &err) !=
            BOX_OK)
            fail_msg("%s", err.b_data);
        assert_int_equal(pdp_evschema_kind_count(es), 3);
        static const char *const kinds[] = {"request", "response", "error"};
        for (size_t i = 0; i < 3; i++) {
            size_t n;
            assert_string_equal(pdp_evschema_kind_at(es, i, &n), kinds[i]);
            assert_true(pdp_evschema_has_kind(es, kinds[i], n));
            assert_int_equal(pdp_evschema_is_decision_kind(es, kinds[i], n),
                             i == 0);
        }
        assert_false(pdp_evschema_has_kind(es, "attempt", 7));
        assert_false(pdp_evschema_has_kind(es, "req", 3));
        assert_int_equal(pdp_evschema_max_window(es), 86400);
        size_t len;
        const char *text =
            pdp_evschema_builtin_text((pdp_evschema_builtin)w, &len);
        assert_int_equal(strlen(text), len);
        assert_int_equal(strncmp(text, "decision event <A>::request {", 29), 0);
        /* Only the default schema has sessionId (§5.5). */
        assert_int_equal(strstr(text, "sessionId") != NULL,
                         w == PDP_EVSCHEMA_DEFAULT);
        box_buf_reset(&err);
        pdp_evschema_free(es);
    }
}

/* §5.2's example: the default schema over `Login` with
 * `input: { user: String }`. */
static void
test_spec_example(void **state)
{
    (void)state;
    pdp_schema *as =
        as_ok("namespace Drupe { entity OAuthUser; entity Gateway;\n"
              "action \"Login\" appliesTo { principal: [OAuthUser], resource: "
              "[Gateway], context: { input: { user: String }, output?: { ok: "
              "Bool } } }; }");
    pdp_evschema *es = NULL;
    box_buf err;
    box_buf_init(&err, 4096);
    assert_int_equal(pdp_evschema_load_builtin(PDP_EVSCHEMA_DEFAULT, &es, &err),
                     BOX_OK);
    pdp_evset *set = derive_ok(es, as);
    box_arena *a = box_arena_new(1u << 20);
    const pdp_evsig *e = sig(set, a, "Drupe::Action::\"Login\"", "request");
    static const char *const want[] = {"input.user", "callerPrincipal",
                                       "callerResource", "requestId",
                                       "sessionId"};
    assert_int_equal(pdp_evsig_leaf_count(e), 5);
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(pdp_evsig_leaf_at(e, i)->lf_path.s, want[i]);
    assert_true(pdp_evsig_is_decision(e));
    assert_leaves(e, "input.user: String, callerPrincipal: "
                     "[Drupe::OAuthUser], callerResource: [Drupe::Gateway], "
                     "requestId: String, sessionId: String");
    assert_leaves(sig(set, a, "Drupe::Action::\"Login\"", "response"),
                  "input.user: String, output.ok: Bool, callerPrincipal: "
                  "[Drupe::OAuthUser], callerResource: [Drupe::Gateway], "
                  "requestId: String, sessionId: String");
    assert_false(pdp_evsig_is_decision(
        sig(set, a, "Drupe::Action::\"Login\"", "error")));
    assert_int_equal(pdp_evset_count(set), 3);
    box_arena_free(a);
    pdp_evset_free(set);
    pdp_evschema_free(es);
    pdp_schema_free(as);
    box_buf_reset(&err);
}

/* Box's schema over Box's actions (Appendix A) gives the table of §5.5. */
static void
test_box_events(void **state)
{
    (void)state;
    pdp_schema *as = NULL;
    char *aerr = NULL;
    assert_int_equal(pdp_schema_load_builtin(&as, &aerr), BOX_OK);
    pdp_evschema *es = NULL;
    box_buf err;
    box_buf_init(&err, 4096);
    assert_int_equal(pdp_evschema_load_builtin(PDP_EVSCHEMA_BOX, &es, &err),
                     BOX_OK);
    pdp_evset *set = derive_ok(es, as);
    box_arena *a = box_arena_new(1u << 20);
    assert_int_equal(pdp_evset_count(set), 30);
#define CALLER                                                                 \
    "callerPrincipal: [Box::Agent], callerResource: [Box::Resource], "         \
    "requestId: String"
    static const struct {
        const char *id, *kind, *want;
    } rows[] = {
        {"fs:read", "request",
         "input.operation: Box::FsReadOperation, input.path: String, " CALLER},
        {"fs:read", "error",
         "input.operation: Box::FsReadOperation, input.path: String, " CALLER},
        {"fs:read", "response",
         "input.operation: Box::FsReadOperation, input.path: String, "
         "output.result: Box::FsResponseResult, " CALLER},
        {"fs:write", "response",
         "input.operation: Box::FsWriteOperation, input.path: String, "
         "output.result: Box::FsResponseResult, " CALLER},
        {"fs:delete", "request",
         "input.operation: Box::FsDeleteOperation, input.path: "
         "String, " CALLER},
        {"fs:move", "request",
         "input.operation: Box::FsMoveOperation, input.path: String, " CALLER},
        {"fs:other", "request",
         "input.operation: Box::FsOtherOperation, input.path: String, " CALLER},
        {"net:connect", "request",
         "input.host: String, input.ip?: String, input.port: Long, " CALLER},
        {"net:connect", "response",
         "input.host: String, input.ip?: String, input.port: Long, " CALLER},
        {"http:request", "request",
         "input.body_bytes: Long, input.host: String, input.intercepted: "
         "Bool, input.method: String, input.path: String, input.port: "
         "Long, " CALLER},
        {"http:request", "response",
         "input.body_bytes: Long, input.host: String, input.intercepted: "
         "Bool, input.method: String, input.path: String, input.port: "
         "Long, output.status: Long, " CALLER},
        {"shell:exec", "request",
         "input.arg1?: String, input.arg2?: String, input.arg_count: Long, "
         "input.command: String, input.cwd: String, input.program: "
         "String, " CALLER},
        {"shell:exec", "response",
         "input.arg1?: String, input.arg2?: String, input.arg_count: Long, "
         "input.command: String, input.cwd: String, input.program: "
         "String, output.status: Long, " CALLER},
        {"shell:spawn", "request",
         "input.arg1?: String, input.arg2?: String, input.arg_count: Long, "
         "input.command: String, input.credential_reads?: Set<String>, "
         "input.cwd: String, input.program: String, input.program_path: "
         "String, " CALLER},
        {"mcp:call", "response",
         "input.method: String, input.prompt?: String, input.server: "
         "String, input.tool?: String, input.uri?: String, " CALLER},
    };
#undef CALLER
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        char *uid = box_asprintf("Box::Action::\"%s\"", rows[i].id);
        const pdp_evsig *e = sig(set, a, uid, rows[i].kind);
        assert_leaves(e, rows[i].want);
        assert_int_equal(pdp_evsig_is_decision(e),
                         strcmp(rows[i].kind, "request") == 0);
        size_t np;
        pdp_evsig_pins(e, &np);
        assert_int_equal(np, 0);
        box_free(uid);
    }

    /* Leaves, groups and absent paths (EVENT-Field-*). */
    const pdp_evsig *e = sig(set, a, "Box::Action::\"fs:write\"", "request");
    const pdp_evleaf *lf;
    assert_int_equal(pdp_evsig_field(e, "input.path", 10, &lf), PDP_EVF_LEAF);
    assert_string_equal(lf->lf_path.s, "input.path");
    assert_int_equal(lf->lf_type->ty_kind, PDP_TY_STRING);
    assert_int_equal(pdp_evsig_field(e, "input", 5, &lf), PDP_EVF_GROUP);
    assert_null(lf);
    assert_int_equal(what(e, "requestId"), PDP_EVF_LEAF);
    assert_int_equal(what(e, "output.result"), PDP_EVF_ABSENT);
    assert_int_equal(what(e, "output"), PDP_EVF_ABSENT);
    assert_int_equal(what(e, "input.path.x"), PDP_EVF_ABSENT);
    assert_int_equal(what(e, "path"), PDP_EVF_ABSENT);
    assert_int_equal(what(e, "sessionId"), PDP_EVF_ABSENT);
    assert_int_equal(what(e, "input."), PDP_EVF_ABSENT);
    /* net:connect has no output record: its response has an empty group. */
    e = sig(set, a, "Box::Action::\"net:connect\"", "response");
    assert_int_equal(what(e, "output"), PDP_EVF_GROUP);
    assert_int_equal(what(e, "output.status"), PDP_EVF_ABSENT);

    /* Names that are not declared (EVENT-Predicate). */
    assert_null(
        pdp_evset_find(set, tv(a, "Box::Action::\"fs:write\""), "attempt", 7));
    assert_null(
        pdp_evset_find(set, tv(a, "Box::Action::\"fs:nope\""), "request", 7));
    assert_null(
        pdp_evset_find(set, tv(a, "Nope::Action::\"fs:write\""), "request", 7));
    box_arena_free(a);
    pdp_evset_free(set);
    pdp_evschema_free(es);
    pdp_schema_free(as);
    box_buf_reset(&err);
}

/* ---- the grammar (§5.1) ---- */

static void
test_grammar(void **state)
{
    (void)state;
    /* max_window with each unit; contextual keywords as names; comments;
     * trailing commas; an empty body; reserved words as names. */
    static const struct {
        const char *text;
        int64_t window;
    } ok[] = {
        {"event <A>::r {}", 86400},
        {"max_window = 30s event <A>::r {}", 30},
        {"max_window = 90m\nevent <A>::r { }", 5400},
        {"max_window=12h event<A>::r{}", 43200},
        {"// c\nmax_window = 7d // c\n// c\nevent <A>::r {} // c", 604800},
        {"max_window = 24 h event <A>::r {}", 86400},
        {"\xEF\xBB\xBF"
         "event <A>::r {}",
         86400},
        {"event <A>::r { pin: String }", 86400},
        {"event <A>::r { pin pin: String = context.pin, }", 86400},
        {"event <A>::r { event: String, decision: Long, max_window: Bool, "
         "inputs: inputs, in: String, if: { then: String } }",
         86400},
        {"event <Act>::r { ...inputs(Act), ...outputs(Act), p: "
         "principalType(Act), r: resourceType(Act) }",
         86400},
        {"decision event <A>::attempt { ...inputs(A), actor: "
         "principalType(A), } event <A>::outcome { ...inputs(A), "
         "...outputs(A), actor: principalType(A) }",
         86400},
        {"event <A>::r { who: Drupe::OAuthUser, d: decimal, x: "
         "__cedar::String, meta: { ...inputs(A), input2: String } }",
         86400},
        {"event <A>::r { a: { b: { c: String } }, m: {} }", 86400},
        {"max_window = 9223372036854775807s event <A>::r {}", INT64_MAX},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        pdp_evschema *es = es_ok(ok[i].text);
        assert_int_equal(pdp_evschema_max_window(es), ok[i].window);
        pdp_evschema_free(es);
    }
    /* Contextual keywords: `decision` marks, `pin` pins. */
    pdp_evschema *es = es_ok("decision event <A>::attempt {}\n"
                             "event <A>::outcome {}");
    assert_true(pdp_evschema_is_decision_kind(es, "attempt", 7));
    assert_true(pdp_evschema_has_kind(es, "outcome", 7));
    assert_false(pdp_evschema_is_decision_kind(es, "outcome", 7));
    pdp_evschema_free(es);
}

/* Every error rule of §5.1/§5.2, with its text and position. */
static void
test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        /* blank (§5.2) */
        {"", "e.dwschema:1:1: the event schema declares no event; omit it to "
             "use the default event schema"},
        {"  // only a comment\n\n",
         "e.dwschema:1:1: the event schema declares no event; omit it to use "
         "the default event schema"},
        {"max_window = 1h",
         "e.dwschema:1:1: the event schema declares no event; omit it to use "
         "the default event schema"},
        /* the shape of a declaration (§5.1) */
        {"event A::r { }", "e.dwschema:1:7: expected `<`, found `A`"},
        {"event <A>::r", "e.dwschema:1:13: expected `{`, found end of file"},
        {"event <A>:r {}", "e.dwschema:1:10: expected `::`, found `:`"},
        {"event <A>::r { x: String", "e.dwschema:1:25: expected `,` or `}`, "
                                     "found end of file"},
        {"decision <A>::r {}", "e.dwschema:1:10: expected `event`, found `<`"},
        {"events <A>::r {}", "e.dwschema:1:1: expected `event`, `decision "
                             "event` or `max_window`, found `events`"},
        {"event <A>::r { , }",
         "e.dwschema:1:16: expected a field name or `...`, found `,`"},
        {"event <A>::r { x String }",
         "e.dwschema:1:18: expected `:`, found `String`"},
        {"event <A>::r { x: }",
         "e.dwschema:1:19: expected a type (`String`, `Long`, an entity type, "
         "a record `{ … }`, `principalType(A)` or `resourceType(A)`), found "
         "`}`"},
        {"event <A>::r { x: Ns:: }",
         "e.dwschema:1:24: expected a type name after `::`, found `}`"},
        {"event <A>::r { .. inputs(A) }", "e.dwschema:1:19: expected `...`"},
        {"event <A>::r { ...tags(A) }",
         "e.dwschema:1:19: expected `inputs`, `outputs`, `principalType` or "
         "`resourceType`, found `tags`"},
        {"event <A>::r {} event <A>::r {}",
         "e.dwschema:1:17: event kind `r` is declared more than once (first "
         "at line 1)"},
        /* max_window (§5.1, §5.2) */
        {"max_window = 0h event <A>::r {}",
         "e.dwschema:1:14: max_window must be greater than zero; a zero "
         "window would forbid every temporal `within` clause. Omit "
         "`max_window` to use the default cap, or set a positive interval "
         "like `max_window = 24h`"},
        {"max_window = 24 event <A>::r {}",
         "e.dwschema:1:17: expected a time unit (`s`, `m`, `h` or `d`) after "
         "the window's amount, found `event`"},
        {"max_window = 24w event <A>::r {}",
         "e.dwschema:1:16: expected a time unit (`s`, `m`, `h` or `d`) after "
         "the window's amount, found `w`"},
        {"max_window = h event <A>::r {}",
         "e.dwschema:1:14: expected the window (an integer and a unit, e.g. "
         "`24h`), found `h`"},
        {"max_window 24h event <A>::r {}",
         "e.dwschema:1:12: expected `=`, found `24`"},
        {"max_window = 106751991167301d event <A>::r {}",
         "e.dwschema:1:14: max_window amount `106751991167301` is out of "
         "range"},
        {"max_window = 99999999999999999999999s event <A>::r {}",
         "e.dwschema:1:14: max_window amount `99999999999999999999999` is "
         "out of range"},
        {"event <A>::r {}\nmax_window = 24h",
         "e.dwschema:2:1: `max_window` must come first, before any event "
         "declaration"},
        {"max_window = 1h max_window = 2h event <A>::r {}",
         "e.dwschema:1:17: `max_window` may appear only once"},
        /* selector binders (§5.2) */
        {"event <A>::r { ...inputs(B) }",
         "e.dwschema:1:26: in spread: selector argument `B` does not name "
         "the declared action binder `A` (write `A`)"},
        {"event <A>::r { p: principalType(B) }",
         "e.dwschema:1:33: in field type: selector argument `B` does not "
         "name the declared action binder `A` (write `A`)"},
        {"event <A>::r { meta: { ...outputs(B) } }",
         "e.dwschema:1:35: in spread: selector argument `B` does not name "
         "the declared action binder `A` (write `A`)"},
        /* selectors used the wrong way (§5.2) */
        {"event <A>::r { ...principalType(A) }",
         "e.dwschema:1:19: selector `principalType` cannot be spread (it "
         "yields entity types, not a field record); use it as a field type "
         "instead"},
        {"event <A>::r { ...resourceType(A) }",
         "e.dwschema:1:19: selector `resourceType` cannot be spread (it "
         "yields entity types, not a field record); use it as a field type "
         "instead"},
        {"event <A>::r { i: inputs(A) }",
         "e.dwschema:1:19: selector `inputs` cannot be used as a field type "
         "(it yields a field record, not a type); spread it with `...` "
         "instead"},
        {"event <A>::r { o: outputs(A) }",
         "e.dwschema:1:19: selector `outputs` cannot be used as a field type "
         "(it yields a field record, not a type); spread it with `...` "
         "instead"},
        /* spread groups and names unique at each level (§5.2) */
        {"event <A>::r { ...inputs(A), ...inputs(A) }",
         "e.dwschema:1:30: the `input` field group produced by "
         "`...inputs(A)` (on `A::r`) collides with another field named "
         "`input`; a spread group and a named field may not share a name"},
        {"event <A>::r { output: String, ...outputs(A) }",
         "e.dwschema:1:32: the `output` field group produced by "
         "`...outputs(A)` (on `A::r`) collides with another field named "
         "`output`; a spread group and a named field may not share a name"},
        {"event <A>::r { ...inputs(A), input: { x: String } }",
         "e.dwschema:1:30: event-schema field `input` (injected on `A::r`) "
         "collides with the `input` field group produced by a spread; a "
         "named field may not shadow a spread group"},
        {"event <A>::r { requestId: String, requestId: Long }",
         "e.dwschema:1:35: event-schema field `requestId` is defined more "
         "than once on `A::r`; field names must be unique at each level"},
        {"event <A>::r { m: { a: String, a: String } }",
         "e.dwschema:1:32: event-schema field `a` is defined more than once "
         "on `A::r`; field names must be unique at each level"},
        {"event <A>::r { m: { ...inputs(A), input: String } }",
         "e.dwschema:1:35: event-schema field `input` (injected on `A::r`) "
         "collides with the `input` field group produced by a spread; a "
         "named field may not shadow a spread group"},
        /* pins (§5.2) */
        {"event <A>::r { pin foo: String }",
         "e.dwschema:1:16: pinned field `foo` is missing its pin value; "
         "write `pin foo: <type> = context.<...>`"},
        {"event <A>::r { foo: String = context.foo }",
         "e.dwschema:1:28: field `foo` has a `= context.<...>` value but is "
         "not marked `pin`; write `pin foo: <type> = …`"},
        {"event <A>::r { pin meta: { x: String } = context.meta }",
         "e.dwschema:1:16: field `meta` is a record group and cannot be "
         "pinned; pin a leaf field inside it instead"},
        {"event <A>::r { pin f: String = context }",
         "e.dwschema:1:40: expected `.` and a field of the context, found "
         "`}`"},
        {"event <A>::r { pin f: String = input.user }",
         "e.dwschema:1:32: expected `principal`, `resource` or "
         "`context.<path>` after `=`, found `input`"},
        {"event <A>::r { pin f: String = principal. }",
         "e.dwschema:1:43: expected a name after `.`, found `}`"},
        {"event <A>::r { pin f String }",
         "e.dwschema:1:22: expected `:`, found `String`"},
        /* lexical */
        {"event <A>::r { x: \"String\" }",
         "e.dwschema:1:19: expected a type (`String`, `Long`, an entity type, "
         "a record `{ … }`, `principalType(A)` or `resourceType(A)`), found "
         "`\"String\"`"},
        {"event <A>::r { x: String } #",
         "e.dwschema:1:28: unexpected character `#`"},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pdp_evschema *es = (pdp_evschema *)1;
        box_buf err;
        box_buf_init(&err, 4096);
        box_err rv = pdp_evschema_parse(cases[i].text, strlen(cases[i].text),
                                        "e.dwschema", &es, &err);
        assert_null(es);
        if (rv != BOX_EPARSE || err.b_data == NULL ||
            strcmp(err.b_data, cases[i].want) != 0) {
            print_error("%s\n  got:  [%s] %s\n  want: %s\n", cases[i].text,
                        box_strerror(rv), err.b_data, cases[i].want);
            bad++;
        }
        box_buf_reset(&err);
    }
    assert_int_equal(bad, 0);
}

/* Record nesting is capped. */
static void
test_depth_cap(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 1u << 16);
    assert_int_equal(box_buf_puts(&b, "event <A>::r { "), BOX_OK);
    for (int i = 0; i < 40; i++)
        assert_int_equal(box_buf_puts(&b, "a: { "), BOX_OK);
    pdp_evschema *es = NULL;
    box_buf err;
    box_buf_init(&err, 4096);
    assert_int_equal(
        pdp_evschema_parse(b.b_data, b.b_len, "e.dwschema", &es, &err),
        BOX_EPARSE);
    assert_string_equal(err.b_data, "e.dwschema:1:179: record types nest too "
                                    "deeply (more than 32 levels)");
    box_buf_reset(&err);
    box_buf_reset(&b);
}

/* ---- derivation (§5.2) ---- */

static const char world[] =
    "namespace W {\n"
    "  entity U; entity V; entity G; entity Mode enum [\"a\", \"b\"];\n"
    "  type Meta = { region: String, level?: Long, deep: { x: Bool } };\n"
    "  action \"Read\" appliesTo { principal: [U, V], resource: [G],\n"
    "    context: { input: { user: String, meta?: Meta, mode: Mode,\n"
    "      tags: Set<String> }, output?: { score: decimal } } };\n"
    "  action \"Bare\" appliesTo { principal: U, resource: G };\n"
    "  action \"group\";\n"
    "}\n";

static void
test_derive_custom(void **state)
{
    (void)state;
    pdp_schema *as = as_ok(world);
    pdp_evschema *es = es_ok(
        "max_window = 2d\n"
        "decision event <A>::attempt {\n"
        "    ...inputs(A),\n"
        "    pin actor: principalType(A) = principal,\n"
        "    where: resourceType(A),\n"
        "    meta: { ...inputs(A), pin sid: String = context.session.id },\n"
        "    pin dept: String = principal.dept,\n"
        "    pin res: W::G = resource,\n"
        "}\n"
        "event <A>::outcome { ...outputs(A), n: { m: { k: Long } }, e: {} }\n");
    assert_int_equal(pdp_evschema_max_window(es), 172800);
    pdp_evset *set = derive_ok(es, as);
    box_arena *a = box_arena_new(1u << 20);
    assert_int_equal(pdp_evset_count(set), 6);

    /* A record inside the input record is a group; optional members (and
     * everything below an optional member) may be absent. */
    const pdp_evsig *e = sig(set, a, "W::Action::\"Read\"", "attempt");
    assert_leaves(e, "input.meta.deep.x?: Bool, input.meta.level?: Long, "
                     "input.meta.region?: String, input.mode: W::Mode, "
                     "input.tags: Set<String>, input.user: String, actor: "
                     "[W::U, W::V], where: [W::G], meta.input.meta.deep.x?: "
                     "Bool, meta.input.meta.level?: Long, "
                     "meta.input.meta.region?: String, meta.input.mode: "
                     "W::Mode, meta.input.tags: Set<String>, "
                     "meta.input.user: String, meta.sid: String, dept: "
                     "String, res: W::G");
    assert_int_equal(what(e, "input.meta"), PDP_EVF_GROUP);
    assert_int_equal(what(e, "input.meta.deep"), PDP_EVF_GROUP);
    assert_int_equal(what(e, "meta.input"), PDP_EVF_GROUP);
    assert_int_equal(what(e, "meta"), PDP_EVF_GROUP);
    assert_int_equal(what(e, "meta.input.user"), PDP_EVF_LEAF);
    assert_int_equal(what(e, "input.tags"), PDP_EVF_LEAF);
    assert_true(pdp_evsig_is_decision(e));

    /* Pins, in source order, with their full paths. */
    size_t np;
    const pdp_evpin *pins = pdp_evsig_pins(e, &np);
    assert_int_equal(np, 4);
    static const struct {
        const char *field, *text, *path;
        pdp_evpin_root root;
        uint32_t line, col;
    } want[] = {
        {"actor", "principal", "", PDP_EVPIN_PRINCIPAL, 4, 5},
        {"meta.sid", "context.session.id", "session.id", PDP_EVPIN_CONTEXT, 6,
         27},
        {"dept", "principal.dept", "dept", PDP_EVPIN_PRINCIPAL, 7, 5},
        {"res", "resource", "", PDP_EVPIN_RESOURCE, 8, 5},
    };
    for (size_t i = 0; i < np; i++) {
        assert_string_equal(pins[i].pn_field.s, want[i].field);
        assert_string_equal(pins[i].pn_text.s, want[i].text);
        assert_int_equal(pins[i].pn_path.len, strlen(want[i].path));
        assert_memory_equal(pins[i].pn_path.s, want[i].path,
                            pins[i].pn_path.len);
        assert_int_equal(pins[i].pn_root, want[i].root);
        assert_int_equal(pins[i].pn_pos.line, want[i].line);
        assert_int_equal(pins[i].pn_pos.col, want[i].col);
    }

    e = sig(set, a, "W::Action::\"Read\"", "outcome");
    assert_leaves(e, "output.score: decimal, n.m.k: Long");
    assert_int_equal(what(e, "e"), PDP_EVF_GROUP);
    assert_int_equal(what(e, "n.m"), PDP_EVF_GROUP);
    assert_int_equal(what(e, "input.user"), PDP_EVF_ABSENT);
    pdp_evsig_pins(e, &np);
    assert_int_equal(np, 0);

    /* An action without an input record spreads an empty group; an
     * action group applies to nothing and has no caller types. */
    e = sig(set, a, "W::Action::\"Bare\"", "attempt");
    assert_leaves(e, "actor: [W::U], where: [W::G], meta.sid: String, dept: "
                     "String, res: W::G");
    assert_int_equal(what(e, "input"), PDP_EVF_GROUP);
    e = sig(set, a, "W::Action::\"group\"", "outcome");
    assert_leaves(e, "n.m.k: Long");
    e = sig(set, a, "W::Action::\"group\"", "attempt");
    assert_int_equal(pdp_evsig_leaf_at(e, 0)->lf_netypes, 0);
    assert_string_equal(pdp_evsig_leaf_at(e, 0)->lf_path.s, "actor");

    box_arena_free(a);
    pdp_evset_free(set);
    pdp_evschema_free(es);
    pdp_schema_free(as);
}

/* A context record that expands past PDP_EVSET_MAX_FIELDS is refused
 * (shared common types fan out: T14 has 2^14 leaves). */
static void
test_derive_size_cap(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 1u << 16);
    assert_int_equal(box_buf_puts(&b, "type T0 = { x: String };\n"), BOX_OK);
    for (int i = 1; i <= 14; i++)
        assert_int_equal(box_buf_printf(&b, "type T%d = { a: T%d, b: T%d };\n",
                                        i, i - 1, i - 1),
                         BOX_OK);
    assert_int_equal(box_buf_puts(&b, "entity U; action \"big\" appliesTo { "
                                      "principal: U, resource: U, context: { "
                                      "input: T14 } };"),
                     BOX_OK);
    pdp_schema *as = as_ok(b.b_data);
    pdp_evschema *es = es_ok("event <A>::r { ...inputs(A) }");
    pdp_evset *set = (pdp_evset *)1;
    box_buf err;
    box_buf_init(&err, 4096);
    assert_int_equal(pdp_evset_derive(es, as, &set, &err), BOX_ETOOBIG);
    assert_null(set);
    assert_string_equal(err.b_data, "event `Action::\"big\"::r`: its fields "
                                    "expand to more than 10000");
    box_buf_reset(&err);
    pdp_evschema_free(es);
    pdp_schema_free(as);
    box_buf_reset(&b);
}

/* ---- the corpus schemas (pdp/testdata/dogwood) ---- */

static int n_schemas;

static void
check_schema(const char *path, const char *casename)
{
    size_t len;
    char *text = read_file_at(path, &len);
    assert_non_null(text);
    pdp_evschema *es = NULL;
    box_buf err;
    box_buf_init(&err, 4096);
    if (pdp_evschema_parse(text, len, path, &es, &err) != BOX_OK)
        fail_msg("%s", err.b_data);
    assert_true(pdp_evschema_is_decision_kind(es, "request", 7));
    assert_true(pdp_evschema_has_kind(es, "response", 8));
    assert_int_equal(pdp_evschema_kind_count(es), 2);

    /* Derive each over the shared test world; check its pins. */
    char *wpath = source_path("pdp/testdata/dogwood/schemas/drupe_test_world."
                              "cedarschema");
    size_t wl;
    char *wtext = read_file_at(wpath, &wl);
    assert_non_null(wtext);
    pdp_schema *as = as_ok(wtext);
    pdp_evset *set = derive_ok(es, as);
    box_arena *a = box_arena_new(1u << 20);
    const pdp_evsig *rq = sig(set, a, "Drupe::Action::\"Login\"", "request");
    const pdp_evsig *rs = sig(set, a, "Drupe::Action::\"Login\"", "response");
    size_t nq, ns;
    const pdp_evpin *pq = pdp_evsig_pins(rq, &nq);
    pdp_evsig_pins(rs, &ns);
    if (strncmp(casename, "1111", 4) == 0) {
        assert_int_equal(what(rq, "__drupe_sessionid"), PDP_EVF_LEAF);
        assert_int_equal(nq + ns, 0);
    } else if (strncmp(casename, "1164", 4) == 0) {
        assert_int_equal(nq, 1);
        assert_int_equal(ns, 0); // a partial pin (request only)
        assert_string_equal(pq[0].pn_field.s, "callerPrincipal");
    } else if (strncmp(casename, "1213", 4) == 0) {
        assert_int_equal(nq, 1);
        assert_int_equal(ns, 1);
        assert_int_equal(pq[0].pn_root, PDP_EVPIN_PRINCIPAL);
    } else if (strncmp(casename, "1215", 4) == 0) {
        assert_int_equal(nq, 2);
        assert_int_equal(ns, 2);
        assert_string_equal(pq[0].pn_text.s, "context.partition_decimal");
        const pdp_evleaf *lf;
        assert_int_equal(pdp_evsig_field(rq, "partition_decimal", 17, &lf),
                         PDP_EVF_LEAF);
        assert_int_equal(lf->lf_type->ty_kind, PDP_TY_EXT);
        assert_string_equal(lf->lf_type->ty_name.s, "decimal");
    } else {
        fail_msg("unexpected corpus schema %s", path);
    }
    box_arena_free(a);
    pdp_evset_free(set);
    pdp_schema_free(as);
    box_free(wtext);
    box_free(wpath);
    box_buf_reset(&err);
    pdp_evschema_free(es);
    box_free(text);
    n_schemas++;
}

static void
walk(const char *dir, const char *casename)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0)
        fail_msg("cannot read %s", dir);
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        char *path = box_asprintf("%s/%s", dir, nm);
        struct stat st;
        if (nm[0] != '.' && stat(path, &st) == 0) {
            size_t l = strlen(nm);
            if (S_ISDIR(st.st_mode))
                walk(path, nm);
            else if (l > 9 && strcmp(nm + l - 9, ".dwschema") == 0)
                check_schema(path, casename);
        }
        box_free(path);
        free(names[i]); // lint: allow raw-alloc: scandir mallocs them
    }
    free(names); // lint: allow raw-alloc: scandir mallocs it
}

static void
test_conformance_schemas(void **state)
{
    (void)state;
    char *root = source_path("pdp/testdata/dogwood");
    n_schemas = 0;
    walk(root, "");
    assert_int_equal(n_schemas, 4); // 1111, 1164, 1213, 1215 (FORMAT.md)
    box_free(root);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins),
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_box_events),
        cmocka_unit_test(test_grammar),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_depth_cap),
        cmocka_unit_test(test_derive_custom),
        cmocka_unit_test(test_derive_size_cap),
        cmocka_unit_test(test_conformance_schemas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
