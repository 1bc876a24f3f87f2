/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests for the schema stage of temporal leaves (pdp_tl_validate.c, the
 * load of pdp_policy.c): each finding of dogwood-spec §4.7 accepted and
 * refused with Dogwood's text, the T24, T26 and T27 rows of §8.2 that
 * validation decides, the Box load (a typo in a predicate field refuses
 * with a clear message), pins, action groups, and the expected failures
 * of the Dogwood corpus that name a temporal finding.
 */
#include "pdp_test_util.h"

#include <dirent.h>

#include "pdp_decide.h"
#include "pdp_evschema.h"
#include "pdp_policy.h"
#include "pdp_tl.h"

static pdp_schema *DRUPE;
static box_arena *A;

static char *
read_rel(const char *rel, size_t *len)
{
    char *path = source_path(rel);
    char *t = read_file_at(path, len);
    if (t == NULL)
        fail_msg("cannot read %s", path);
    box_free(path);
    return t;
}

static int
setup(void **state)
{
    (void)state;
    size_t len;
    char *t = read_rel("pdp/testdata/dogwood/schemas/"
                       "drupe_test_world.cedarschema",
                       &len);
    char *err = NULL;
    if (pdp_schema_load(t, len, "drupe", &DRUPE, &err) != BOX_OK)
        return 1;
    box_free(t);
    A = box_arena_new(16u << 20);
    return A == NULL;
}

static int
teardown(void **state)
{
    (void)state;
    pdp_schema_free(DRUPE);
    box_arena_free(A);
    return 0;
}

/* ---- loading ---- */

static pdp_evschema *
events(const char *text)
{
    if (text == NULL)
        return NULL;
    pdp_evschema *es = NULL;
    box_buf m;
    box_buf_init(&m, 1u << 16);
    if (pdp_evschema_parse(text, strlen(text), "events.dwschema", &es, &m) !=
        BOX_OK)
        fail_msg("event schema: %s", m.b_data);
    box_buf_reset(&m);
    return es;
}

/* The refusal of loading policy against as and the event schema text ev
 * (NULL: the default) as `box policy replay` does; NULL when it loads. */
static char *
refusal(const char *policy, const pdp_schema *as, const char *ev)
{
    pdp_evschema *es = events(ev);
    pdp_policy_set *set = NULL;
    char *err = NULL;
    box_err rv = pdp_policy_load_events(policy, strlen(policy), "policy.dw", as,
                                        es, &set, NULL, &err);
    pdp_policy_free(set);
    pdp_evschema_free(es);
    if (rv == BOX_OK) {
        box_free(err);
        return NULL;
    }
    assert_non_null(err);
    return err;
}

/* The same as Box loads it (its action and event schemas). */
static char *
box_refusal(const char *policy)
{
    pdp_policy_set *set = NULL;
    char *err = NULL;
    box_err rv = pdp_policy_load_checked(policy, strlen(policy), "policy.dw",
                                         NULL, NULL, &set, NULL, &err);
    pdp_policy_free(set);
    if (rv == BOX_OK) {
        box_free(err);
        return NULL;
    }
    return err;
}

/* msg with every "policy.dw:L:C: " place taken out. */
static char *
unplaced(const char *msg)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    const char *s = msg;
    for (;;) {
        const char *p = strstr(s, "policy.dw:");
        if (p == NULL)
            break;
        assert_int_equal(box_buf_append(&b, s, (size_t)(p - s)), BOX_OK);
        const char *q = p + strlen("policy.dw:");
        while ((*q >= '0' && *q <= '9') || *q == ':')
            q++;
        if (*q == ' ')
            q++;
        s = q;
    }
    assert_int_equal(box_buf_puts(&b, s), BOX_OK);
    return box_buf_take(&b);
}

static void
loads(int line, const char *policy, const pdp_schema *as, const char *ev)
{
    char *err = refusal(policy, as, ev);
    if (err != NULL)
        fail_msg("line %d: refused: %s\n%s", line, err, policy);
}

/* Refused with exactly want, places aside. */
static void
refused(int line, const char *policy, const pdp_schema *as, const char *ev,
        const char *want)
{
    char *err = refusal(policy, as, ev);
    if (err == NULL)
        fail_msg("line %d: loads, but must be refused:\n%s", line, policy);
    char *got = unplaced(err);
    if (strcmp(got, want) != 0)
        fail_msg("line %d:\n got  %s\n want %s", line, got, want);
    box_free(got);
    box_free(err);
}

#define OK(p) loads(__LINE__, p, DRUPE, NULL)
#define OK_EV(p, ev) loads(__LINE__, p, DRUPE, ev)
#define BAD(p, m) refused(__LINE__, p, DRUPE, NULL, FAILS m)
#define BAD_EV(p, ev, m) refused(__LINE__, p, DRUPE, ev, FAILS m)

#define FAILS "policy fails schema validation: "
/* A rule on a Drupe action whose whole condition is one temporal leaf. */
#define ON(act, body)                                                          \
    "permit (principal, action == Drupe::Action::\"" act "\", resource) "      \
    "when temporal { " body " };"
#define LOGIN "Drupe::Action::\"Login\"::request"

/* ---- EVENT-Predicate, EVENT-Field-Group, EVENT-Field-Absent ---- */

/* T24's event schema: custom kinds, a field of principal type. */
static const char T24_EVENTS[] =
    "decision event <A>::attempt { ...inputs(A), actor: principalType(A), }\n"
    "event <A>::outcome { ...inputs(A), ...outputs(A), "
    "actor: principalType(A), }\n";
#define T24                                                                    \
    ON("Read", "formerly within 1h Drupe::Action::\"Login\"::attempt{ "        \
               "input.user: context.input.user, actor: principal }")

static void
test_event_names(void **state)
{
    (void)state;
    /* T24: its own kinds under its schema, not under the default. */
    OK_EV(T24, T24_EVENTS);
    BAD(T24, "predicate `Drupe::Action::\"Login\"::attempt` does not name a "
             "declared event (no event kind `attempt` derived for action "
             "`Login`)");
    BAD_EV(ON("Read", "formerly within 1h " LOGIN "{ input.user: _ }"),
           T24_EVENTS,
           "predicate `Drupe::Action::\"Login\"::request` does not name a "
           "declared event (no event kind `request` derived for action "
           "`Login`)");
    /* An undeclared action, and a typo in the kind. */
    BAD(ON("Read", "formerly within 1h Drupe::Action::\"Lgoin\"::request{}"),
        "predicate `Drupe::Action::\"Lgoin\"::request` does not name a "
        "declared event (no event kind `request` derived for action "
        "`Lgoin`)");
    BAD(ON("Read", "formerly within 1h Drupe::Action::\"Login\"::reqeust{}"),
        "predicate `Drupe::Action::\"Login\"::reqeust` does not name a "
        "declared event (no event kind `reqeust` derived for action "
        "`Login`)");

    /* Fields: the declared leaves (omission is a wildcard), a group, an
     * absent path (T27's two validation rows), output on a request. */
    OK(ON("Read", "formerly within 1h " LOGIN "{}"));
    OK(ON("Read", "formerly within 1h " LOGIN "{ input.user: _, "
                  "input.server: \"s1\", callerPrincipal: principal, "
                  "callerResource: resource, requestId: _, sessionId: _ }"));
    OK(ON("Read", "formerly within 1h Drupe::Action::\"Login\"::response{ "
                  "output.result: true }"));
    BAD(ON("Alert", "formerly within 1h " LOGIN "{ input.nope: \"x\" }"),
        "predicate `Drupe::Action::\"Login\"::request` mentions field "
        "`input.nope`, which is not declared on that event (declared fields: "
        "callerPrincipal, callerResource, input.server, input.user, "
        "requestId, sessionId)");
    BAD(ON("Alert", "formerly within 1h " LOGIN "{ input: \"x\" }"),
        "predicate `Drupe::Action::\"Login\"::request` mentions `input`, "
        "which is a field group, not a field; address a field inside it "
        "(e.g. `input.<field>`); argument `input` of `Login` expects "
        "`object` but got `string`");
    BAD(ON("Read", "formerly within 1h " LOGIN "{ output.result: true }"),
        "predicate `Drupe::Action::\"Login\"::request` mentions field "
        "`output.result`, which is not declared on that event (declared "
        "fields: callerPrincipal, callerResource, input.server, input.user, "
        "requestId, sessionId)");
    /* Reached under negation, since and inside an aggregate; the first
     * finding of a leaf only. */
    BAD(ON("Alert", "!" LOGIN "{ input.bad: 1 } since within 1h " LOGIN
                    "{ input.worse: 1 }"),
        "predicate `Drupe::Action::\"Login\"::request` mentions field "
        "`input.bad`, which is not declared on that event (declared fields: "
        "callerPrincipal, callerResource, input.server, input.user, "
        "requestId, sessionId)");
    BAD(ON("Alert", "exists (n: Long). ((count for (t: Timepoint). where "
                    "(formerly within 1h (" LOGIN "{ input.bad: _ } && "
                    "tp(t)))) == n && n > 0)"),
        "predicate `Drupe::Action::\"Login\"::request` mentions field "
        "`input.bad`, which is not declared on that event (declared fields: "
        "callerPrincipal, callerResource, input.server, input.user, "
        "requestId, sessionId)");
}

/* ---- TEMP-MaxWindow (T26) ---- */

#define WINDOW(w)                                                              \
    ON("Read", "formerly within " w " " LOGIN "{ "                             \
               "input.user: context.input.user }")
#define OVER(w, cap)                                                           \
    "temporal window `" w "` exceeds the maximum allowed window `" cap         \
    "` set by the event schema's `max_window`; shorten this window to at "     \
    "most `" cap "`, or raise `max_window` in the event schema"

static const char RAISED[] =
    "max_window = 30d\n"
    "decision event <A>::request { ...inputs(A), callerPrincipal: "
    "principalType(A), callerResource: resourceType(A), requestId: String, "
    "sessionId: String, }\n";

static void
test_max_window(void **state)
{
    (void)state;
    OK(WINDOW("24h"));
    OK(WINDOW("1d"));
    OK(WINDOW("1440m"));
    BAD(WINDOW("7d"), OVER("7d", "24h"));
    BAD(WINDOW("25h"), OVER("25h", "24h"));
    BAD(WINDOW("86401s"), OVER("86401s", "24h"));
    OK_EV(WINDOW("7d"), RAISED);
    OK_EV(WINDOW("30d"), RAISED);
    BAD_EV(WINDOW("31d"), RAISED, OVER("31d", "30d"));
    /* Every window, at any depth, each once. */
    BAD(ON("Alert", "formerly within 2d " LOGIN "{} && "
                    "exists (n: Long). ((count for (t: Timepoint). where "
                    "(formerly within 48h (" LOGIN "{} && tp(t)))) == n && "
                    "n > 0)"),
        OVER("2d", "24h") "; " OVER("48h", "24h"));
}

/* ---- TEMP-EntityType ---- */

static void
test_entity_types(void **state)
{
    (void)state;
    OK(ON("Read", "formerly within 1h " LOGIN "{ callerPrincipal: "
                  "Drupe::OAuthUser::\"alice\" }"));
    /* An action uid names no entity type. */
    OK(ON("Read", "formerly within 1h (" LOGIN "{} && "
                  "Drupe::Action::\"Read\" == Drupe::Action::\"Read\")"));
    BAD(ON("Read", "formerly within 1h " LOGIN "{ callerPrincipal: "
                   "Drupe::User::\"alice\" }"),
        "unknown entity type `Drupe::User`; known entity types: "
        "Drupe::Gateway, Drupe::Team, Drupe::OAuthUser");
    /* An enum's ids (the corpus has the escaped case, 2147). */
    pdp_schema *en = NULL;
    char *err = NULL;
    const char *schema =
        "namespace E { entity U; entity R; entity Mode enum [\"read\", "
        "\"it's\"]; action \"Do\" appliesTo { principal: [U], resource: [R], "
        "context: { input: { mode: Mode } } }; }";
    assert_int_equal(pdp_schema_load(schema, strlen(schema), "e", &en, &err),
                     BOX_OK);
    const char *ok = "permit (principal, action == E::Action::\"Do\", "
                     "resource) when temporal { formerly within 1h "
                     "E::Action::\"Do\"::request{ input.mode: "
                     "E::Mode::\"it's\" } };";
    loads(__LINE__, ok, en, NULL);
    const char *bad = "permit (principal, action == E::Action::\"Do\", "
                      "resource) when temporal { formerly within 1h "
                      "E::Action::\"Do\"::request{ input.mode: "
                      "E::Mode::\"wr'te\" } };";
    refused(__LINE__, bad, en, NULL,
            FAILS "`E::Mode` is an enum entity type; `\"wr\\'te\"` is not "
                  "one of its permitted ids (\"read\", \"it\\'s\")");
    pdp_schema_free(en);
}

/* ---- TEMP-ContextPath ---- */

static void
test_context_paths(void **state)
{
    (void)state;
    OK(ON("Read", "formerly within 1h " LOGIN "{ input.user: "
                  "context.input.user }"));
    OK(ON("SellShares", "formerly within 1h (" LOGIN "{} && "
                        "context.system.now == context.system.now)"));
    BAD(ON("Read", "formerly within 1h " LOGIN "{ input.user: "
                   "context.input.usr }"),
        "record has no field `usr` in `context.input.usr` path");
    BAD(ON("Read", "formerly within 1h " LOGIN "{ input.user: "
                   "context.inptu.user }"),
        "action `Drupe::Read` has no context field `inptu` for "
        "`context.inptu`");
    BAD(ON("Read", "formerly within 1h " LOGIN "{ input.user: "
                   "context.input.user.first }"),
        "`first` accesses a field of a non-record type");
    /* Every action the scope reaches: a list, and no constraint at all. */
    OK("permit (principal, action in [Drupe::Action::\"Read\", "
       "Drupe::Action::\"Write\"], resource) when temporal { formerly "
       "within 1h " LOGIN "{ input.user: context.input.document } };");
    BAD("permit (principal, action in [Drupe::Action::\"Read\", "
        "Drupe::Action::\"Alert\"], resource) when temporal { formerly "
        "within 1h " LOGIN "{ input.user: context.input.document } };",
        "record has no field `document` in `context.input.document` path");
    BAD("permit (principal, action, resource) when temporal { formerly "
        "within 1h " LOGIN "{ input.user: context.input.user } };",
        "record has no field `user` in `context.input.user` path");
    /* Scope attribute tails: declared, the uid's id, undeclared. */
    OK(ON("Read", "formerly within 1h " LOGIN "{ input.user: principal.id }"));
    OK(ON("Read", "formerly within 1h (" LOGIN "{} && principal.type == "
                  "\"Drupe::OAuthUser\")"));
    BAD(ON("Read", "formerly within 1h " LOGIN "{ input.user: "
                   "principal.name }"),
        "`principal.name` does not resolve for every entity the rule's "
        "`principal` may be: `Drupe::OAuthUser` declares no attribute "
        "`name`, so for those requests the comparison can never match and "
        "the condition is permanently false. Narrow the rule's scope "
        "(`principal is <type>`) if only some types are meant.");
    BAD(ON("Read", "formerly within 1h " LOGIN "{ input.user: "
                   "resource.id.x }"),
        "`x` accesses a field of a non-record type in `resource.id.x`");

    /* A principal of several types: the tail resolves on each the rule's
     * scope admits, to one type. */
    pdp_schema *m = NULL;
    char *err = NULL;
    const char *schema =
        "namespace M { entity A = { n: Long }; entity B = { n: String }; "
        "entity C; entity R; action \"x\" appliesTo { principal: [A, B, C], "
        "resource: [R], context: { input: { n: Long } } }; }";
    assert_int_equal(pdp_schema_load(schema, strlen(schema), "m", &m, &err),
                     BOX_OK);
#define ON_M(p, body)                                                          \
    "permit (" p ", action == M::Action::\"x\", resource) when temporal { "    \
    "formerly within 1h M::Action::\"x\"::request{ " body " } };"
    loads(__LINE__, ON_M("principal is M::A", "input.n: principal.n"), m, NULL);
    refused(__LINE__, ON_M("principal is M::B", "input.n: principal.n"), m,
            NULL,
            FAILS "argument `input.n` of `x` expects `int` but got `string`");
    refused(__LINE__, ON_M("principal", "input.n: principal.n"), m, NULL,
            FAILS "`principal.n` does not resolve for every entity the "
                  "rule's `principal` may be: `M::C` declares no attribute "
                  "`n`, so for those requests the comparison can never match "
                  "and the condition is permanently false. Narrow the rule's "
                  "scope (`principal is <type>`) if only some types are "
                  "meant.");
    refused(__LINE__, ON_M("principal in M::B::\"b\"", "input.n: principal.n"),
            m, NULL,
            FAILS "argument `input.n` of `x` expects `int` but got `string`");
    const char *both =
        "permit (principal, action == M::Action::\"x\", resource) when "
        "temporal { formerly within 1h (M::Action::\"x\"::request{} && "
        "principal.n == principal.n) } unless { principal is M::C };";
    refused(__LINE__, both, m, NULL,
            FAILS "`principal.n` does not resolve for every entity the "
                  "rule's `principal` may be: `M::C` declares no attribute "
                  "`n`, so for those requests the comparison can never match "
                  "and the condition is permanently false. Narrow the rule's "
                  "scope (`principal is <type>`) if only some types are "
                  "meant.");
    const char *ab = "namespace M { entity A = { n: Long }; entity B = { n: "
                     "String }; entity R; action \"x\" appliesTo { "
                     "principal: [A, B], resource: [R], context: { input: { "
                     "n: Long } } }; }";
    pdp_schema_free(m);
    assert_int_equal(pdp_schema_load(ab, strlen(ab), "m", &m, &err), BOX_OK);
    refused(__LINE__, ON_M("principal", "input.n: principal.n"), m, NULL,
            FAILS "`principal.n` has a different type on each entity the "
                  "action's `principal` may be (`int`, `string`), so the "
                  "condition cannot be checked against one type; it is "
                  "evaluated whichever entity the request carries");
#undef ON_M
    pdp_schema_free(m);
}

/* ---- WF-TpDep ---- */

static void
test_tp_dependence(void **state)
{
    (void)state;
    /* T27's row, and both sides of a since, each reported. */
    BAD(ON("Read", "!(context.input.user == \"alice\") && formerly within "
                   "1h " LOGIN "{ input.user: context.input.user }"),
        "this `when`/`unless` conjunct does not vary with the current "
        "timepoint; it monitors nothing");
    BAD(ON("Read", "(context.input.user == \"a\") since within 1h "
                   "(context.input.user == \"b\")"),
        "the left side of `since` does not vary with the current timepoint; "
        "it monitors nothing; the right side of `since` does not vary with "
        "the current timepoint; it monitors nothing");
}

/* ---- TEMP-Type ---- */

#define TRANSFER "Drupe::Action::\"Transfer\"::request"

static void
test_types(void **state)
{
    (void)state;
    OK(ON("Alert", "exists (a: Long). (formerly within 1h " TRANSFER
                   "{ input.amount: a } && a > 100)"));
    OK(ON("Alert", "(count for (t: Timepoint). where (formerly within 1h "
                   "(" TRANSFER "{} && tp(t)))) < 3"));
    /* A predicate argument against its field's declared type. */
    BAD(ON("Alert", "formerly within 1h " TRANSFER "{ input.amount: \"5\" }"),
        "argument `input.amount` of `Transfer` expects `int` but got "
        "`string`");
    BAD(ON("Read", "formerly within 1h " LOGIN "{ input.user: principal }"),
        "argument `input.user` of `Login` expects `string` but got "
        "`OAuthUser`");
    /* A variable's uses against its binder's type. */
    BAD(ON("Alert",
           "exists (u: Long). formerly within 1h " LOGIN "{ input.user: u }"),
        "argument `input.user` of `Login` expects `string` but got `int`");
    BAD(ON("Alert", "exists (a: Long). (formerly within 1h " TRANSFER
                    "{ input.amount: a } && a == \"x\")"),
        "equality requires both sides to have the same type, got `int` and "
        "`string`");
    /* Ordering on Long and aggregates only. */
    BAD(ON("Alert", "exists (u: String). (formerly within 1h " LOGIN
                    "{ input.user: u } && u > \"m\")"),
        "comparison requires numeric operands on both sides, got `string` "
        "and `string`");
    BAD(ON("Read", "formerly within 1h (" TRANSFER "{} && "
                   "context.input.document < 5)"),
        "comparison requires numeric operands on both sides, got `string` "
        "and `int`");
    BAD(ON("Alert", "formerly within 1h (" TRANSFER "{} && "
                    "decimal(\"1.0\") < 2)"),
        "comparison requires numeric operands on both sides, got `decimal` "
        "and `int`");
    /* tp needs a Timepoint. */
    BAD(ON("Alert", "exists (n: Long). ((count for (t: Long). where "
                    "(formerly within 1h (" TRANSFER "{} && tp(t)))) == n "
                    "&& n > 0)"),
        "`tp(t)` binds `t` to the current timepoint, but `t` is declared "
        "`int`; a `tp` variable must be declared `Timepoint`");
    /* A sum only of a Long (corpus 1042 is the decimal one). */
    BAD(ON("Alert", "exists (n: Long). ((sum s for (s: decimal). where "
                    "(formerly within 1h Drupe::Action::\"SellShares\""
                    "::response{ output.proceeds: s })) == n && n > 0)"),
        "cannot sum `s`: sum requires a `Long` summand, but `s` is "
        "`Decimal`. Dogwood arithmetic operates only on `Long` values, not "
        "decimals.");
    BAD(ON("Alert", "exists (n: Long). ((sum u for (u: String). where "
                    "(formerly within 1h " LOGIN "{ input.user: u })) == n "
                    "&& n > 0)"),
        "cannot sum `u`: sum requires a `Long` summand, but `u` is "
        "`String`.");
}

/* ---- order, the Box load ---- */

static void
test_order_and_box(void **state)
{
    (void)state;
    /* Cedar's findings first, then each leaf's in Dogwood's order: event
     * names, windows, entity types, context paths, timepoint dependence,
     * types. */
    BAD("permit (principal, action == Drupe::Action::\"Read\", resource) "
        "when { context.input.nope == \"x\" } when temporal { formerly "
        "within 2d " LOGIN "{ input.usr: 1 } && formerly within 1h (" TRANSFER
        "{ input.amount: \"1\", callerPrincipal: "
        "Drupe::User::\"u\" } && context.input.x == 1) };",
        "for policy `policy_0`, attribute `input.nope` in context for "
        "Drupe::Action::\"Read\" not found; predicate "
        "`Drupe::Action::\"Login\"::request` mentions field `input.usr`, "
        "which is not declared on that event (declared fields: "
        "callerPrincipal, callerResource, input.server, input.user, "
        "requestId, sessionId); " OVER(
            "2d", "24h") "; unknown entity type "
                         "`Drupe::User`; known entity types: Drupe::Gateway, "
                         "Drupe::Team, "
                         "Drupe::OAuthUser; record has no field `x` in "
                         "`context.input.x` "
                         "path; argument `input.amount` of `Transfer` expects "
                         "`int` but got "
                         "`string`");

    /* Box: a typo in a predicate field refuses, placed at the leaf. */
    char *err = box_refusal(
        "@id(\"write-needs-read\")\n"
        "forbid (principal, action == Box::Action::\"fs:write\", resource)\n"
        "unless temporal { formerly within 10m Box::Action::\"fs:read\""
        "::request{ input.pth: context.input.path } };\n");
    assert_non_null(err);
    assert_string_equal(err,
                        "policy fails schema validation: policy.dw:3:19: "
                        "predicate `Box::Action::\"fs:read\"::request` "
                        "mentions field `input.pth`, which is not declared "
                        "on that event (declared fields: callerPrincipal, "
                        "callerResource, input.operation, input.path, "
                        "requestId)");
    box_free(err);
    /* Box's events have no sessionId; an unknown action names the
     * refusal, the leaf's finding follows. */
    err = box_refusal("forbid (principal, action == Box::Action::\"fs:raed\", "
                      "resource) when temporal { formerly within 1m "
                      "Box::Action::\"fs:read\"::request{ sessionId: _ } };");
    assert_non_null(err);
    char *got = unplaced(err);
    assert_string_equal(
        got, "policy references unknown action: for policy `policy_0`, "
             "unrecognized action `Box::Action::\"fs:raed\"` (did you mean "
             "`Box::Action::\"fs:read\"`?); predicate "
             "`Box::Action::\"fs:read\"::request` mentions field "
             "`sessionId`, which is not declared on that event (declared "
             "fields: callerPrincipal, callerResource, input.operation, "
             "input.path, requestId)");
    box_free(got);
    box_free(err);
    /* The temporal rules box run's end-to-end test installs still load. */
    assert_null(box_refusal(
        "@id(\"rm-cap\")\n"
        "forbid (principal, action == Box::Action::\"shell:exec\", resource)\n"
        "when { context.input.program == \"rm\" }\n"
        "when temporal { (count for (t: Timepoint). where formerly within 1m "
        "(Box::Action::\"shell:exec\"::request{ input.program: \"rm\" } && "
        "tp(t))) > 3 };\n"
        "@id(\"write-needs-read\")\n"
        "forbid (principal, action == Box::Action::\"fs:write\", resource)\n"
        "unless temporal { formerly within 10m "
        "Box::Action::\"fs:read\"::request{ input.path: context.input.path } "
        "};\n"
        "forbid (principal, action == Box::Action::\"http:request\", "
        "resource) when temporal { (sum b for (b: Long), (t: Timepoint). "
        "where formerly within 1h (Box::Action::\"http:request\"::response{ "
        "input.body_bytes: b, input.host: context.input.host } && tp(t))) > "
        "1000000 };\n"));
}

/* ---- pins ---- */

static void
test_pins(void **state)
{
    (void)state;
    const char *pinned =
        "decision event <A>::request { ...inputs(A), pin callerPrincipal: "
        "principalType(A) = principal, pin tenant: String = context.tenant, "
        "requestId: String, }\n";
    const char *policy = ON("Read", "formerly within 1h " LOGIN "{ "
                                    "input.user: context.input.user }");
    /* Appended to the predicate, after what the policy wrote. */
    pdp_evschema *es = events(pinned);
    pdp_policy_set *set = NULL;
    char *err = NULL;
    assert_int_equal(pdp_policy_load_events(policy, strlen(policy), "policy.dw",
                                            NULL, es, &set, NULL, &err),
                     BOX_OK);
    const pdp_expr *leaf = pdp_expr_find(
        pdp_policy_rule(set, 0)->r_conds[0].cd_body, PDP_X_TEMPORAL);
    assert_non_null(leaf);
    box_buf b;
    box_buf_init(&b, 1u << 16);
    assert_int_equal(pdp_tl_dump(leaf->u.tl, &b), BOX_OK);
    assert_non_null(strstr(b.b_data, "{ input.user: context.input.user, "
                                     "callerPrincipal: principal, tenant: "
                                     "context.tenant }"));
    box_buf_reset(&b);
    pdp_policy_free(set);
    pdp_evschema_free(es);
    /* And validated: Read's context has no tenant. */
    refused(__LINE__, policy, DRUPE, pinned,
            FAILS "action `Drupe::Read` has no context field `tenant` for "
                  "`context.tenant`");
}

/* ---- action groups ---- */

static bool
allowed(const pdp_policy_set *set, const char *action)
{
    pdp_request rq = trq(A, "G::U::\"u\"", action, "G::R::\"r\"", "{}", "");
    pdp_answer *ans = pdp_answer_new();
    assert_non_null(ans);
    box_err rv = pdp_decide(set, &rq, ans);
    (void)rv;
    bool ok = pdp_answer_verdict(ans) == PDP_ALLOW;
    pdp_answer_free(ans);
    return ok;
}

static void
test_action_groups(void **state)
{
    (void)state;
    const char *schema =
        "namespace G { entity U; entity R; action \"all\"; "
        "action \"grp\" in [Action::\"all\"]; "
        "action \"a\" in [Action::\"grp\"] appliesTo { principal: [U], "
        "resource: [R], context: {} }; "
        "action \"b\" appliesTo { principal: [U], resource: [R], "
        "context: {} }; }";
    pdp_schema *g = NULL;
    char *err = NULL;
    assert_int_equal(pdp_schema_load(schema, strlen(schema), "g", &g, &err),
                     BOX_OK);
    const char *policy =
        "permit (principal, action in [G::Action::\"all\"], resource);";
    pdp_policy_set *set = NULL;
    assert_int_equal(pdp_policy_load_events(policy, strlen(policy), "policy.dw",
                                            g, NULL, &set, NULL, &err),
                     BOX_OK);
    assert_true(allowed(set, "G::Action::\"a\"")); // a member, transitively
    assert_false(allowed(set, "G::Action::\"b\""));
    pdp_policy_free(set);
    /* Without the schema nothing says a is in the group. */
    assert_int_equal(
        pdp_policy_load(policy, strlen(policy), "policy.dw", &set, &err),
        BOX_OK);
    assert_false(allowed(set, "G::Action::\"a\""));
    pdp_policy_free(set);
    /* The group's members are what a temporal leaf is checked against. */
    refused(__LINE__,
            "permit (principal, action in [G::Action::\"grp\"], resource) "
            "when temporal { formerly within 1h G::Action::\"b\"::request{} "
            "&& context.x == 1 };",
            g, NULL,
            FAILS "action `G::a` has no context field `x` for `context.x`; "
                  "this `when`/`unless` conjunct does not vary with the "
                  "current timepoint; it monitors nothing");
    pdp_schema_free(g);
}

/* ---- the corpus ---- */

/* Every worked example of §8.2 validates against the Drupe world. */
static void
test_worked_examples_validate(void **state)
{
    (void)state;
    char *root = source_path("pdp/testdata/worked");
    struct dirent **names;
    int n = scandir(root, &names, NULL, alphasort);
    assert_true(n > 0);
    unsigned checked = 0;
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            char *rel = box_asprintf("pdp/testdata/worked/%s/policy_1.dw",
                                     names[i]->d_name);
            size_t len;
            char *text = read_rel(rel, &len);
            char *err = refusal(text, DRUPE, NULL);
            if (err != NULL)
                fail_msg("%s: %s", names[i]->d_name, err);
            checked++;
            box_free(text);
            box_free(rel);
        }
        free(names[i]); // lint: allow raw-alloc: scandir mallocs them
    }
    free(names); // lint: allow raw-alloc: scandir mallocs it
    box_free(root);
    print_message("worked examples validated: %u\n", checked);
    assert_true(checked >= 21);
}

/* Dogwood's macro cases (macros/): each policy loads against the Drupe
 * world, its calls expanded from its own definitions and the built-in
 * library (the one case with a macros.dw defines what the built-in
 * library holds). */
static void
test_macro_corpus(void **state)
{
    (void)state;
    char *root = source_path("pdp/testdata/dogwood/macros");
    struct dirent **names;
    int n = scandir(root, &names, NULL, alphasort);
    assert_true(n > 0);
    unsigned loaded = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        for (int k = 1; nm[0] != '.' && k <= 9; k++) {
            char *path = box_asprintf("%s/%s/policy_%d.dw", root, nm, k);
            size_t len = 0;
            char *text = read_file_at(path, &len);
            if (text != NULL) {
                char *err = refusal(text, DRUPE, NULL);
                if (err != NULL) {
                    print_error("%s: %s\n", nm, err);
                    failed++;
                } else {
                    loaded++;
                }
                box_free(err);
            }
            box_free(text);
            box_free(path);
        }
        free(names[i]); // lint: allow raw-alloc: scandir mallocs them
    }
    free(names); // lint: allow raw-alloc: scandir mallocs it
    box_free(root);
    print_message("macro cases loaded: %u, refused: %u\n", loaded, failed);
    assert_int_equal(failed, 0);
    assert_true(loaded >= 14);
}

/* The expected failures that name a temporal finding: refused against
 * their own schema, with the pinned text. */
static void
test_expected_failures(void **state)
{
    (void)state;
    char *root = source_path("pdp/testdata/dogwood/expected_failures");
    struct dirent **names;
    int n = scandir(root, &names, NULL, alphasort);
    assert_true(n > 0);
    unsigned cases = 0, texts = 0;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        char *dir = box_asprintf("%s/%s", root, nm);
        char *spath = box_asprintf("%s/schema.cedarschema", dir);
        char *epath = box_asprintf("%s/expected_error.txt", dir);
        char *ppath = box_asprintf("%s/policy_1.dw", dir);
        size_t sl = 0, el = 0, pl = 0;
        char *stext =
            strstr(nm, "_temporal_") != NULL ? read_file_at(spath, &sl) : NULL;
        char *etext = stext != NULL ? read_file_at(epath, &el) : NULL;
        char *ptext = stext != NULL ? read_file_at(ppath, &pl) : NULL;
        if (stext != NULL && ptext != NULL) {
            pdp_schema *as = NULL;
            char *err = NULL;
            assert_int_equal(pdp_schema_load(stext, sl, spath, &as, &err),
                             BOX_OK);
            char *msg = refusal(ptext, as, NULL);
            if (msg == NULL)
                fail_msg("%s: loads, but must be refused", nm);
            if (etext != NULL) {
                char *want = etext;
                while (*want == ' ' || *want == '\n')
                    want++;
                size_t wl = strlen(want);
                while (wl > 0 && (want[wl - 1] == '\n' || want[wl - 1] == ' '))
                    want[--wl] = '\0';
                if (strstr(msg, want) == NULL)
                    fail_msg("%s:\n got  %s\n want %s", nm, msg, want);
                texts++;
            }
            cases++;
            box_free(msg);
            pdp_schema_free(as);
        }
        box_free(stext);
        box_free(etext);
        box_free(ptext);
        box_free(spath);
        box_free(epath);
        box_free(ppath);
        box_free(dir);
        free(names[i]); // lint: allow raw-alloc: scandir mallocs them
    }
    free(names); // lint: allow raw-alloc: scandir mallocs it
    box_free(root);
    print_message("expected failures refused: %u (%u with their text)\n", cases,
                  texts);
    assert_true(cases >= 11);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_names),
        cmocka_unit_test(test_max_window),
        cmocka_unit_test(test_entity_types),
        cmocka_unit_test(test_context_paths),
        cmocka_unit_test(test_tp_dependence),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_order_and_box),
        cmocka_unit_test(test_pins),
        cmocka_unit_test(test_action_groups),
        cmocka_unit_test(test_worked_examples_validate),
        cmocka_unit_test(test_expected_failures),
        cmocka_unit_test(test_macro_corpus),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
