/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy test CASES...`: a file of decision cases (JSON lines), each
 * decided as `box policy eval` decides it and compared with what it
 * expects. */
#include <json-c/json.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_cmd.h"
#include "box_escape.h"
#include "box_policy_ask.h"
#include "box_policy_verbs.h"
#include "pdp_policy_file.h"
#include "pdp_trace.h"

#define TEST_CASES_MAX_BYTES ((size_t)64 << 20)
#define TEST_ARENA_MAX ((size_t)256 << 20)

static const char test_usage[] =
    "usage: box policy test [--verbose] CASES...\n"
    "\n"
    "Runs each case of the files CASES, decided as `box policy eval`\n"
    "decides a request, prints every case that fails with what differs,\n"
    "then `N passed, M failed` (and `, K pending`). --verbose also names\n"
    "each case that passes or is pending.\n"
    "\n"
    "A cases file is JSON lines: one JSON object a line; blank lines and\n"
    "lines starting with // are skipped. A case:\n"
    "  {\"name\": \"...\",             how failures name it (default: its line)\n"
    "   \"policy\": \"FILE\",          the policy, relative to the cases file\n"
    "   \"policy_text\": \"...\",      or the policy itself (one of the two)\n"
    "   \"load\": \"box\"|\"dogwood\",   as box-pdp loads it (default) or as\n"
    "                              `box policy eval --dogwood` does\n"
    "   \"schema\": \"FILE\",          the action schema of a box load\n"
    "                              (default Box's), relative; a dogwood\n"
    "                              load has none\n"
    "   \"home\": \"DIR\",             the operator home for the spelling\n"
    "                              checks (default: none, skipped)\n"
    "   \"history\": \"TRACE\",        events before the request (relative)\n"
    "   \"request\": {...},          the request, as R.json of `box policy\n"
    "                              eval` (not for \"refuse\")\n"
    "   \"expect\": \"allow\"|\"deny\"|\"refuse\",   the decision, or that the\n"
    "                              policy does not load\n"
    "   \"rules\": [ID, ...],        the determining rules (@id, else\n"
    "                              policy_<i>), in any order; default []\n"
    "   \"reason\": \"...\",           Permitted, Forbidden, NoMatch or\n"
    "                              InternalFault (optional)\n"
    "   \"cedar\": \"allow\"|\"deny\",   plain Cedar's verdict (optional)\n"
    "   \"message\": \"...\",          the exact message (optional)\n"
    "   \"errors\": [ID, ...],       the rules that errored, `request` for\n"
    "                              the request itself (optional)\n"
    "   \"error\": \"...\",            \"refuse\": text the refusal contains\n"
    "   \"warnings\": [\"...\", ...],  the load's warnings, in order, each\n"
    "                              containing its text (optional; [] for\n"
    "                              none)\n"
    "   \"pending\": \"why\"}          a case the engine cannot pass yet: its\n"
    "                              failure is counted as pending, and its\n"
    "                              passing as a failure (drop the mark)\n"
    "A line {\"defaults\": {...}} gives members for the cases after it (up\n"
    "to the next such line); a case's own members win. A case's request is\n"
    "laid on the defaults' request: objects merge member by member (so a\n"
    "default context.system stays beside a case's context.input), anything\n"
    "else in the case replaces the default.\n"
    "\n"
    "Exits 0 when every case passes, 3 when one fails, 2 when a cases file\n"
    "does not check (a line that is no case), 1 on a usage or read error.\n";

static const char *const case_members[] = {
    "name",    "policy", "policy_text", "load",    "home",    "schema",
    "history", "request", "expect",     "rules",   "reason",
    "cedar",   "message", "errors",     "error",   "warnings",
    "pending", NULL};

typedef struct test_run {
    const char *tr_file; // the cases file
    char tr_dir[PATH_MAX];
    bool tr_verbose;
    unsigned tr_pass, tr_fail, tr_pending;
    json_object *tr_defaults; // owned, or NULL
} test_run;

/* One case being run: its members, and what went wrong. */
typedef struct test_case {
    test_run *tc_run;
    unsigned tc_line;
    json_object *tc_obj;
    const char *tc_name;
    box_buf tc_why; // one "  …\n" line per difference
    bool tc_failed_quietly; // a difference that could not be written
} test_case;

/* The case's member, else the defaults', else NULL. `policy` and
 * `policy_text` are one slot: a case that gives either uses its own. */
static json_object *
member(const test_case *c, const char *key)
{
    json_object *v;
    if (json_object_object_get_ex(c->tc_obj, key, &v))
        return v;
    bool slot = strcmp(key, "policy") == 0 || strcmp(key, "policy_text") == 0;
    if (slot && (json_object_object_get_ex(c->tc_obj, "policy", &v) ||
                 json_object_object_get_ex(c->tc_obj, "policy_text", &v)))
        return NULL;
    if (c->tc_run->tr_defaults != NULL &&
        json_object_object_get_ex(c->tc_run->tr_defaults, key, &v))
        return v;
    return NULL;
}

static const char *
member_str(const test_case *c, const char *key)
{
    json_object *v = member(c, key);
    return v != NULL && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static void
why(test_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
why(test_case *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    box_err rv = box_buf_puts(&c->tc_why, "  ");
    if (rv == BOX_OK)
        rv = box_buf_vprintf(&c->tc_why, fmt, ap);
    if (rv == BOX_OK)
        rv = box_buf_putc(&c->tc_why, '\n');
    va_end(ap);
    if (rv != BOX_OK)
        c->tc_failed_quietly = true;
}

/* A path named in the cases file: relative to its directory. */
static char *
case_path(const test_case *c, const char *p)
{
    return p[0] == '/' ? box_strdup(p)
                       : box_asprintf("%s/%s", c->tc_run->tr_dir, p);
}

/* ---- checking a cases line ---- */

/* Whether v is an array of strings (or absent). */
static bool
str_array(json_object *v)
{
    if (v == NULL)
        return true;
    if (!json_object_is_type(v, json_type_array))
        return false;
    for (size_t i = 0; i < json_object_array_length(v); i++)
        if (!json_object_is_type(json_object_array_get_idx(v, i),
                                 json_type_string))
            return false;
    return true;
}

/* Whether every member of obj is a case member; *unknown the first
 * that is not. */
static bool
known_members(json_object *obj, const char **unknown)
{
    json_object_object_foreach(obj, key, val) {
        bool known = false;
        for (size_t i = 0; case_members[i] != NULL && !known; i++)
            known = strcmp(key, case_members[i]) == 0;
        (void)val;
        if (!known) {
            *unknown = key;
            return false;
        }
    }
    return true;
}

/* NULL when the case's members are well-formed, else why not. */
static const char *
case_shape(const test_case *c)
{
    static const char *const strs[] = {"name",   "policy", "policy_text",
                                       "load",   "home",   "history",
                                       "schema",
                                       "expect", "reason", "cedar",
                                       "message", "error", "pending", NULL};
    for (size_t i = 0; strs[i] != NULL; i++) {
        json_object *v = member(c, strs[i]);
        if (v != NULL && !json_object_is_type(v, json_type_string))
            return "a member that must be a string is not";
    }
    if (!str_array(member(c, "rules")) || !str_array(member(c, "errors")) ||
        !str_array(member(c, "warnings")))
        return "rules, errors and warnings are arrays of strings";
    json_object *rq = member(c, "request");
    if (rq != NULL && !json_object_is_type(rq, json_type_object))
        return "request is an object";
    const char *ex = member_str(c, "expect");
    if (ex == NULL || (strcmp(ex, "allow") != 0 && strcmp(ex, "deny") != 0 &&
                       strcmp(ex, "refuse") != 0))
        return "expect is \"allow\", \"deny\" or \"refuse\"";
    if ((member(c, "policy") == NULL) == (member(c, "policy_text") == NULL))
        return "a case has one of policy and policy_text";
    const char *ld = member_str(c, "load");
    if (ld != NULL && strcmp(ld, "box") != 0 && strcmp(ld, "dogwood") != 0)
        return "load is \"box\" or \"dogwood\"";
    json_object *own_schema;
    if (ld != NULL && strcmp(ld, "dogwood") == 0 &&
        json_object_object_get_ex(c->tc_obj, "schema", &own_schema))
        return "a \"dogwood\" load has no schema";
    bool refuse = strcmp(ex, "refuse") == 0;
    if (refuse && member(c, "error") == NULL)
        return "a \"refuse\" case names its refusal with \"error\"";
    if (!refuse && rq == NULL)
        return "an \"allow\" or \"deny\" case has a request";
    return NULL;
}

/* ---- running a case ---- */

/* over laid on base: objects merge member by member, recursively;
 * anything else in over replaces base. A new reference (json_object_put
 * it), NULL when out of memory. */
static json_object *
merge(json_object *base, json_object *over)
{
    if (base == NULL || over == NULL ||
        !json_object_is_type(base, json_type_object) ||
        !json_object_is_type(over, json_type_object))
        return json_object_get(over != NULL ? over : base);
    json_object *m = json_object_new_object();
    if (m == NULL)
        return NULL;
    json_object_object_foreach(base, bk, bv) {
        json_object *shadowed = NULL;
        if (json_object_object_get_ex(over, bk, &shadowed))
            continue;
        if (json_object_object_add(m, bk, json_object_get(bv)) != 0)
            goto fail;
    }
    json_object_object_foreach(over, ok, ov) {
        json_object *under = NULL, *mv;
        (void)json_object_object_get_ex(base, ok, &under);
        if ((mv = merge(under, ov)) == NULL)
            goto fail;
        if (json_object_object_add(m, ok, mv) != 0) {
            json_object_put(mv);
            goto fail;
        }
    }
    return m;
fail:
    json_object_put(m);
    return NULL;
}

/* The case's request text: its own request laid on the defaults' one. */
static char *
request_text(const test_case *c)
{
    json_object *own = NULL, *def = NULL;
    (void)json_object_object_get_ex(c->tc_obj, "request", &own);
    if (c->tc_run->tr_defaults != NULL)
        (void)json_object_object_get_ex(c->tc_run->tr_defaults, "request",
                                        &def);
    json_object *m = merge(def, own);
    if (m == NULL)
        return NULL;
    char *s = box_strdup(json_object_to_json_string_ext(
        m, JSON_C_TO_STRING_PLAIN));
    json_object_put(m);
    return s;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "[a, b]" of names, escaped for the terminal. */
static box_err
put_names(box_buf *b, const char **names, size_t n)
{
    box_err rv = box_buf_putc(b, '[');
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        if (i > 0)
            rv = box_buf_puts(b, ", ");
        if (rv == BOX_OK)
            rv = box_escape_ids(b, names[i], strlen(names[i]));
    }
    return rv == BOX_OK ? box_buf_putc(b, ']') : rv;
}

/* Compares the names got (any order) with the case's array `key`
 * (absent: [] when dflt_empty, else not checked). */
static void
check_names(test_case *c, const char *key, bool dflt_empty, const char **got,
            size_t ngot)
{
    json_object *arr = member(c, key);
    if (arr == NULL && !dflt_empty)
        return;
    size_t nw = arr != NULL ? json_object_array_length(arr) : 0;
    const char **want = box_calloc(nw + 1, sizeof *want);
    if (want == NULL) {
        why(c, "out of memory");
        return;
    }
    for (size_t i = 0; i < nw; i++)
        want[i] = json_object_get_string(json_object_array_get_idx(arr, i));
    qsort(want, nw, sizeof *want, cmp_str);
    qsort(got, ngot, sizeof *got, cmp_str);
    bool same = nw == ngot;
    for (size_t i = 0; same && i < nw; i++)
        same = strcmp(want[i], got[i]) == 0;
    if (!same) {
        box_buf b;
        box_buf_init(&b, 1u << 16);
        box_err rv = put_names(&b, got, ngot);
        if (rv == BOX_OK)
            rv = box_buf_puts(&b, ", expected ");
        if (rv == BOX_OK)
            rv = put_names(&b, want, nw);
        why(c, "%s: %s", key, rv == BOX_OK ? b.b_data : "(out of memory)");
        box_buf_reset(&b);
    }
    box_free(want);
}

static void
check_warnings(test_case *c, const pdp_validate_warnings *w)
{
    json_object *arr = member(c, "warnings");
    if (arr == NULL)
        return;
    size_t n = json_object_array_length(arr);
    for (size_t i = 0; i < n || i < w->vw_n; i++) {
        const char *want =
            i < n ? json_object_get_string(json_object_array_get_idx(arr, i))
                  : NULL;
        const char *got = i < w->vw_n ? w->vw_items[i] : NULL;
        if (want != NULL && got != NULL && strstr(got, want) != NULL)
            continue;
        if (got == NULL)
            why(c, "warning %zu: none, expected one containing \"%s\"", i + 1,
                want);
        else if (want == NULL)
            why(c, "warning %zu: \"%s\", expected none", i + 1, got);
        else
            why(c, "warning %zu: \"%s\", expected it to contain \"%s\"",
                i + 1, got, want);
    }
}

/* Compares one decision with the case. */
static void
check_answer(test_case *c, const pdp_answer *ans)
{
    const char *ex = member_str(c, "expect");
    const char *got = pdp_answer_verdict(ans) == PDP_ALLOW ? "allow" : "deny";
    if (strcmp(ex, got) != 0)
        why(c, "decision: %s, expected %s", got, ex);
    size_t nd = pdp_answer_determining_count(ans);
    size_t ne = pdp_answer_error_count(ans);
    const char **names = box_calloc(nd + ne + 1, sizeof *names);
    if (names == NULL) {
        why(c, "out of memory");
        return;
    }
    for (size_t i = 0; i < nd; i++)
        names[i] = pdp_rule_display_id(pdp_answer_determining(ans, i)).s;
    check_names(c, "rules", true, names, nd);
    for (size_t i = 0; i < ne; i++) {
        const pdp_rule *r = pdp_answer_error_rule(ans, i);
        names[i] = r != NULL ? pdp_rule_display_id(r).s : "request";
    }
    check_names(c, "errors", false, names, ne);
    box_free(names);
    const char *reason = member_str(c, "reason");
    const char *rname = pdp_reason_name(pdp_answer_reason(ans));
    if (reason != NULL && strcmp(reason, rname) != 0)
        why(c, "reason: %s, expected %s", rname, reason);
    const char *cedar = member_str(c, "cedar");
    const char *cgot =
        pdp_answer_cedar_verdict(ans) == PDP_ALLOW ? "allow" : "deny";
    if (cedar != NULL && strcmp(cedar, cgot) != 0)
        why(c, "cedar: %s, expected %s", cgot, cedar);
    const char *msg = member_str(c, "message");
    const char *mgot = pdp_answer_message(ans, NULL);
    if (msg != NULL && strcmp(msg, mgot) != 0)
        why(c, "message:\n    %s\n  expected:\n    %s", mgot, msg);
    for (size_t i = 0; i < ne; i++) {
        const pdp_rule *r = pdp_answer_error_rule(ans, i);
        if (c->tc_why.b_len > 0)
            why(c, "(error of %s: %s)",
                r != NULL ? pdp_rule_display_id(r).s : "the request",
                pdp_answer_error_message(ans, i));
    }
}

/* Reads a file the case names; false (and why) when it cannot. */
static bool
case_read(test_case *c, const char *rel, const char *what, size_t max,
          char **text, size_t *len)
{
    char *path = case_path(c, rel), *err = NULL;
    bool ok = path != NULL &&
              pdp_read_text_file(path, what, max, text, len, &err) == BOX_OK;
    if (!ok)
        why(c, "%s", err ? err : "out of memory");
    box_free(err);
    box_free(path);
    return ok;
}

/* Loads the case's policy, decides its request, compares. */
static void
case_run(test_case *c)
{
    const char *ex = member_str(c, "expect");
    const char *pol = member_str(c, "policy"), *ptext = member_str(c,
                                                                   "policy_text");
    const char *hist = member_str(c, "history");
    const char *ld = member_str(c, "load");
    char *text = NULL, *htext = NULL, *rtext = NULL, *err = NULL;
    size_t len = 0, hlen = 0;
    pdp_policy_set *set = NULL;
    pdp_schema *schema = NULL;
    pdp_validate_warnings w = {0};
    box_arena *arena = NULL;
    pdp_hist *h = NULL;
    pdp_answer *ans = NULL;
    box_buf msg;
    box_buf_init(&msg, 1u << 16);
    char *pname = pol != NULL
                      ? case_path(c, pol)
                      : box_asprintf("%s:%u", c->tc_run->tr_file, c->tc_line);
    if (pname == NULL) {
        why(c, "out of memory");
        goto out;
    }
    if (pol != NULL && !case_read(c, pol, "policy file", PDP_POLICY_MAX_BYTES,
                                  &text, &len))
        goto out;
    bool dogwood = ld != NULL && strcmp(ld, "dogwood") == 0;
    const char *sch = dogwood ? NULL : member_str(c, "schema");
    if (sch != NULL) {
        char *spath = case_path(c, sch);
        box_err srv = spath != NULL
                          ? box_ask_load_schema(spath, &schema, &err)
                          : BOX_ENOMEM;
        box_free(spath);
        if (srv != BOX_OK) {
            why(c, "schema: %s", err ? err : box_strerror(srv));
            goto out;
        }
    }
    box_err rv = box_ask_load_text(
        pname, text != NULL ? text : ptext,
        text != NULL ? len : strlen(ptext),
        dogwood ? BOX_ASK_LOAD_DOGWOOD : BOX_ASK_LOAD_BOX, schema, member_str(c, "home"), &set, &w, &err);
    if (strcmp(ex, "refuse") == 0) {
        const char *want = member_str(c, "error");
        if (rv == BOX_OK)
            why(c, "the policy loads, expected a refusal containing \"%s\"",
                want);
        else if (err == NULL || strstr(err, want) == NULL)
            why(c, "refusal: %s\n  expected it to contain: %s",
                err ? err : box_strerror(rv), want);
        check_warnings(c, &w);
        goto out;
    }
    if (rv != BOX_OK) {
        why(c, "the policy does not load: %s", err ? err : box_strerror(rv));
        goto out;
    }
    check_warnings(c, &w);
    if ((arena = box_arena_new(TEST_ARENA_MAX)) == NULL ||
        (h = pdp_hist_new()) == NULL || (ans = pdp_answer_new()) == NULL ||
        (rtext = request_text(c)) == NULL) {
        why(c, "out of memory");
        goto out;
    }
    pdp_reqjson rq;
    if ((rv = pdp_reqjson_parse(rtext, strlen(rtext), arena, &rq, &msg)) !=
        BOX_OK) {
        why(c, "request: %s", msg.b_len > 0 ? msg.b_data : box_strerror(rv));
        goto out;
    }
    if (hist != NULL) {
        if (!case_read(c, hist, "trace file", PDP_TRACE_MAX_BYTES, &htext,
                       &hlen))
            goto out;
        if ((rv = pdp_trace_load(htext, hlen, hist, h, NULL, &msg)) !=
            BOX_OK) {
            why(c, "history: %s", msg.b_len > 0 ? msg.b_data
                                                : box_strerror(rv));
            goto out;
        }
    }
    box_ask ak;
    box_free(err);
    err = NULL;
    if ((rv = box_ask_decide(set, h, &rq, ans, &ak, &err)) != BOX_OK) {
        why(c, "the decision failed: %s", err ? err : box_strerror(rv));
        goto out;
    }
    check_answer(c, ans);
out:
    box_buf_reset(&msg);
    pdp_answer_free(ans);
    pdp_hist_free(h);
    box_arena_free(arena);
    pdp_validate_warnings_free(&w);
    pdp_policy_free(set);
    pdp_schema_free(schema);
    box_free(pname);
    box_free(text);
    box_free(htext);
    box_free(rtext);
    box_free(err);
}

/* ---- the cases file ---- */

/* One line: a case, a defaults line, or nothing. BOX_POLICY_INPUT (the
 * reason printed) when it is none of them. */
static int
test_line(test_run *r, unsigned lineno, const char *s, size_t n)
{
    while (n > 0 && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        n--;
    if (n == 0 || (n >= 2 && s[0] == '/' && s[1] == '/'))
        return BOX_POLICY_OK;
    box_buf err;
    box_buf_init(&err, 4096);
    int status = BOX_POLICY_INPUT;
    json_tokener *tok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH * 4);
    json_object *obj = NULL, *defaults = NULL;
    test_case c = {.tc_run = r, .tc_line = lineno};
    box_buf_init(&c.tc_why, 1u << 20);
    if (tok == NULL) {
        box_cmd_error("out of memory");
        status = BOX_POLICY_USAGE;
        goto out;
    }
    obj = json_tokener_parse_ex(tok, s, (int)n);
    if (obj == NULL || json_tokener_get_error(tok) != json_tokener_success ||
        json_tokener_get_parse_end(tok) != n ||
        !json_object_is_type(obj, json_type_object)) {
        fprintf(stderr, "strands-box: error: %s:%u: not one JSON object\n",
                r->tr_file, lineno);
        goto out;
    }
    if (pdp_reqjson_integers(s, n, &err) != BOX_OK) {
        fprintf(stderr, "strands-box: error: %s:%u: %s\n", r->tr_file, lineno,
                err.b_data ? err.b_data : "");
        goto out;
    }
    if (json_object_object_get_ex(obj, "defaults", &defaults)) {
        if (json_object_object_length(obj) != 1 ||
            !json_object_is_type(defaults, json_type_object)) {
            fprintf(stderr, "strands-box: error: %s:%u: a defaults line is "
                    "{\"defaults\": {...}} and nothing else\n",
                    r->tr_file, lineno);
            goto out;
        }
        const char *unknown = NULL;
        if (!known_members(defaults, &unknown)) {
            fprintf(stderr, "strands-box: error: %s:%u: unknown member "
                    "\"%s\" in defaults\n", r->tr_file, lineno, unknown);
            goto out;
        }
        json_object_put(r->tr_defaults);
        r->tr_defaults = json_object_get(defaults);
        status = BOX_POLICY_OK;
        goto out;
    }
    c.tc_obj = obj;
    const char *unknown = NULL;
    if (!known_members(obj, &unknown)) {
        fprintf(stderr, "strands-box: error: %s:%u: not a case: unknown "
                "member \"%s\" (see box policy test --help)\n", r->tr_file,
                lineno, unknown);
        goto out;
    }
    const char *bad = case_shape(&c);
    if (bad != NULL) {
        fprintf(stderr, "strands-box: error: %s:%u: not a case: %s\n",
                r->tr_file, lineno, bad);
        goto out;
    }
    json_object *nm;
    c.tc_name = json_object_object_get_ex(obj, "name", &nm)
                    ? json_object_get_string(nm)
                    : "";
    case_run(&c);
    bool passed = c.tc_why.b_len == 0 && !c.tc_failed_quietly;
    const char *pending = member_str(&c, "pending");
    if (pending != NULL && !passed) {
        r->tr_pending++;
        if (r->tr_verbose)
            printf("pending %s:%u %s: %s\n", r->tr_file, lineno, c.tc_name,
                   pending);
    } else if (pending != NULL) {
        r->tr_fail++;
        printf("FAIL %s:%u %s\n  passes, but is marked pending (%s): drop "
               "the mark\n", r->tr_file, lineno, c.tc_name, pending);
    } else if (passed) {
        r->tr_pass++;
        if (r->tr_verbose)
            printf("ok   %s:%u %s\n", r->tr_file, lineno, c.tc_name);
    } else {
        r->tr_fail++;
        printf("FAIL %s:%u %s\n%s", r->tr_file, lineno, c.tc_name,
               c.tc_why.b_len > 0 ? c.tc_why.b_data : "  (out of memory)\n");
    }
    status = BOX_POLICY_OK;
out:
    box_buf_reset(&c.tc_why);
    box_buf_reset(&err);
    json_object_put(obj);
    if (tok != NULL)
        json_tokener_free(tok);
    return status;
}

static int
test_file(test_run *r, const char *file)
{
    char *text = NULL, *err = NULL;
    size_t len = 0;
    if (pdp_read_text_file(file, "cases file", TEST_CASES_MAX_BYTES, &text,
                           &len, &err) != BOX_OK) {
        box_cmd_error("%s", err ? err : "out of memory");
        box_free(err);
        return BOX_POLICY_USAGE;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", file);
    snprintf(r->tr_dir, sizeof r->tr_dir, "%s", dirname(dir));
    r->tr_file = file;
    json_object_put(r->tr_defaults);
    r->tr_defaults = NULL;
    int status = BOX_POLICY_OK;
    unsigned lineno = 0;
    for (size_t i = 0; i < len && status == BOX_POLICY_OK;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        status = test_line(r, ++lineno, text + i, n);
        i += n + 1;
    }
    json_object_put(r->tr_defaults);
    r->tr_defaults = NULL;
    box_free(text);
    return status;
}

int
box_policy_test(int argc, char **argv)
{
    test_run r = {0};
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "--help") == 0) {
            fputs(test_usage, stdout);
            return BOX_POLICY_OK;
        }
        if (strcmp(argv[first], "--verbose") != 0) {
            fputs(test_usage, stderr);
            return BOX_POLICY_USAGE;
        }
        r.tr_verbose = true;
    }
    if (first >= argc) {
        fputs(test_usage, stderr);
        return BOX_POLICY_USAGE;
    }
    int status = BOX_POLICY_OK;
    for (int i = first; i < argc && status == BOX_POLICY_OK; i++)
        status = test_file(&r, argv[i]);
    if (status != BOX_POLICY_OK)
        return status;
    printf("%u passed, %u failed", r.tr_pass, r.tr_fail);
    if (r.tr_pending > 0)
        printf(", %u pending", r.tr_pending);
    putchar('\n');
    if (fflush(stdout) != 0)
        return BOX_POLICY_USAGE;
    return r.tr_fail > 0 ? BOX_POLICY_DIFFERS : BOX_POLICY_OK;
}
