/* SPDX-License-Identifier: Apache-2.0 */
/* A decision log replayed against two policies (pdp_diff.h). */
#include "pdp_diff.h"

#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_buf.h"
#include "pdp_reqjson.h"
#include "pdp_tl.h"

#define DIFF_SCRATCH_MAX ((size_t)256 << 20) // one decision's values
#define DIFF_WORDS_MAX ((size_t)1 << 30)     // every UNKNOWN record's words
#define DIFF_WHY_MAX 320                     // one record's
// A history event may be stamped this long after its decision's log
// record (the log is stamped after the decision, the event before it;
// this is slack for clocks read on different threads).
#define DIFF_MATCH_SLACK_S 2
// And at most this long before it (a decision waits for its event's
// fsync; engine time may also run ahead of a wall clock stepped back).
// Older events are passed for good, so a scan never walks them again.
#define DIFF_MATCH_BEFORE_S 60
#define DIFF_ARGS_CAP 64 // pdp_dlog's command_args cap (box-spec §7)

/* ------------------------------------------------------------------ */
/* The request as the log records it                                   */
/* ------------------------------------------------------------------ */

/* Where a field of context.input comes from in a decision record.
 * ORDER SRC: src_value's switch. */
typedef enum src {
    SRC_RESOURCE,   // strands.box.policy.resource
    SRC_COMMAND,    // process.command
    SRC_ARGS_LINE,  // process.command_args joined by spaces, none redacted
    SRC_ARG1,       // process.command_args[1] (absent when there is none)
    SRC_ARG2,       // process.command_args[2]
    SRC_ARG_COUNT,  // entries of process.command_args less one
    SRC_CWD,        // process.working_directory
    SRC_ADDRESS,    // server.address
    SRC_PORT,       // server.port
    SRC_METHOD,     // http.request.method
    SRC_URL_PATH,   // the resource after `host:port`
    SRC_MCP_SERVER, // the resource before its first `/`
    SRC_NONE,       // not in the log: only the history has it
} src;

/* What values a field the log lacks can take, when few: the replay then
 * tries each (ORDER DOM). */
typedef enum dom {
    DOM_ANY,  // too many to try
    DOM_ENUM, // the entity ids fr_ids of type fr_type
    DOM_BOOL, // false, true
} dom;

static const char *const read_ops[] = {
    "read_content", "read_metadata", "enumerate", "read_link",
    "change_dir",   "exec",          NULL};
static const char *const write_ops[] = {"write_content", "create_dir",
                                        "set_permissions", "symlink", NULL};
static const char *const delete_ops[] = {"remove_file", "remove_dir", NULL};
static const char *const move_ops[] = {"rename", NULL};

/*
 * Every field of every action's context.input (box-spec §4, the schema
 * pdp/schema/actions.cedarschema) and where the decision log keeps it
 * (§7). A field whose source is SRC_NONE, or whose value the log redacted
 * or cut, is unknown: a field of few values (fr_dom) is tried with each,
 * any other is left out of the rebuilt request, and a decision that could
 * depend on it cannot be told. Optional fields (`?` in §4) are left out
 * when the log shows they were absent.
 */
static const struct field_row {
    const char *fr_action;
    const char *fr_field;
    src fr_src;
    bool fr_optional;
    dom fr_dom;
    const char *fr_type;       // DOM_ENUM: the entity type
    const char *const *fr_ids; // DOM_ENUM: its ids, NULL-ended
} field_tab[] = {
    {"fs:read", "path", SRC_RESOURCE, false, DOM_ANY, NULL, NULL},
    {"fs:read", "operation", SRC_NONE, false, DOM_ENUM, "Box::FsReadOperation",
     read_ops},
    {"fs:write", "path", SRC_RESOURCE, false, DOM_ANY, NULL, NULL},
    {"fs:write", "operation", SRC_NONE, false, DOM_ENUM,
     "Box::FsWriteOperation", write_ops},
    {"fs:delete", "path", SRC_RESOURCE, false, DOM_ANY, NULL, NULL},
    {"fs:delete", "operation", SRC_NONE, false, DOM_ENUM,
     "Box::FsDeleteOperation", delete_ops},
    {"fs:move", "path", SRC_RESOURCE, false, DOM_ANY, NULL, NULL},
    {"fs:move", "operation", SRC_NONE, false, DOM_ENUM, "Box::FsMoveOperation",
     move_ops},
    // exec: command_args[0] is the program as spelled.
    {"shell:exec", "command", SRC_ARGS_LINE, false, DOM_ANY, NULL, NULL},
    {"shell:exec", "program", SRC_COMMAND, false, DOM_ANY, NULL, NULL},
    {"shell:exec", "arg1", SRC_ARG1, true, DOM_ANY, NULL, NULL},
    {"shell:exec", "arg2", SRC_ARG2, true, DOM_ANY, NULL, NULL},
    {"shell:exec", "arg_count", SRC_ARG_COUNT, false, DOM_ANY, NULL, NULL},
    {"shell:exec", "cwd", SRC_CWD, false, DOM_ANY, NULL, NULL},
    // spawn: the log names the program by its reported path, so the
    // program as spelled (and the command line built from it) is lost.
    {"shell:spawn", "command", SRC_NONE, false, DOM_ANY, NULL, NULL},
    {"shell:spawn", "program", SRC_NONE, false, DOM_ANY, NULL, NULL},
    {"shell:spawn", "program_path", SRC_COMMAND, false, DOM_ANY, NULL, NULL},
    {"shell:spawn", "arg1", SRC_ARG1, true, DOM_ANY, NULL, NULL},
    {"shell:spawn", "arg2", SRC_ARG2, true, DOM_ANY, NULL, NULL},
    {"shell:spawn", "arg_count", SRC_ARG_COUNT, false, DOM_ANY, NULL, NULL},
    {"shell:spawn", "cwd", SRC_CWD, false, DOM_ANY, NULL, NULL},
    {"shell:spawn", "credential_reads", SRC_NONE, true, DOM_ANY, NULL, NULL},
    // connect: decided before DNS (no ip) and per address (ip); the log
    // does not say which.
    {"net:connect", "host", SRC_ADDRESS, false, DOM_ANY, NULL, NULL},
    {"net:connect", "port", SRC_PORT, false, DOM_ANY, NULL, NULL},
    {"net:connect", "ip", SRC_NONE, true, DOM_ANY, NULL, NULL},
    {"http:request", "host", SRC_ADDRESS, false, DOM_ANY, NULL, NULL},
    {"http:request", "port", SRC_PORT, false, DOM_ANY, NULL, NULL},
    {"http:request", "method", SRC_METHOD, false, DOM_ANY, NULL, NULL},
    {"http:request", "path", SRC_URL_PATH, false, DOM_ANY, NULL, NULL},
    {"http:request", "body_bytes", SRC_NONE, false, DOM_ANY, NULL, NULL},
    {"http:request", "intercepted", SRC_NONE, false, DOM_BOOL, NULL, NULL},
    // mcp: the resource is server/<tool|prompt|uri|method>, not saying
    // which.
    {"mcp:call", "server", SRC_MCP_SERVER, false, DOM_ANY, NULL, NULL},
    {"mcp:call", "method", SRC_NONE, false, DOM_ANY, NULL, NULL},
    {"mcp:call", "tool", SRC_NONE, true, DOM_ANY, NULL, NULL},
    {"mcp:call", "prompt", SRC_NONE, true, DOM_ANY, NULL, NULL},
    {"mcp:call", "uri", SRC_NONE, true, DOM_ANY, NULL, NULL},
};
#define FIELD_ROWS (sizeof field_tab / sizeof field_tab[0])

/* What the log says of one field. */
typedef enum known {
    KNOWN,   // *out holds the value
    ABSENT,  // an optional field the request did not have
    UNKNOWN, // the log does not keep it, or redacted or cut it
} known;

/* An argument as pdp_dlog wrote it, when it is the argument itself: not
 * `<redacted>`, `--name=<redacted>`, or cut to 4 KiB. */
static bool
arg_verbatim(const char *a)
{
    static const char red[] = "<redacted>", cut[] = "(truncated)";
    size_t n = strlen(a);
    return !(n >= sizeof red - 1 &&
             strcmp(a + n - (sizeof red - 1), red) == 0) &&
           !(n >= sizeof cut - 1 && strcmp(a + n - (sizeof cut - 1), cut) == 0);
}

static known
str_value(box_arena *a, const char *s, size_t n, const pdp_value **out)
{
    pdp_value *v = NULL;
    if (s == NULL || pdp_value_string(a, s, n, &v) != BOX_OK)
        return UNKNOWN; // absent from the record, or not UTF-8
    *out = v;
    return KNOWN;
}

/* process.command_args[i], an optional argument. */
static known
arg_value(const pdp_dlrec *d, size_t i, box_arena *a, const pdp_value **out)
{
    if (d->dr_nargs == 0)
        return UNKNOWN;
    if (i >= d->dr_nargs)
        return d->dr_nargs < DIFF_ARGS_CAP ? ABSENT : UNKNOWN;
    if (!arg_verbatim(d->dr_args[i]))
        return UNKNOWN;
    return str_value(a, d->dr_args[i], strlen(d->dr_args[i]), out);
}

/* The whole command line, when every word of it is in the log. */
static known
args_line(const pdp_dlrec *d, box_arena *a, const pdp_value **out)
{
    if (d->dr_nargs == 0 || d->dr_nargs >= DIFF_ARGS_CAP)
        return UNKNOWN;
    box_buf b;
    box_buf_init(&b, (size_t)1 << 20);
    known k = KNOWN;
    for (size_t i = 0; i < d->dr_nargs && k == KNOWN; i++)
        if (!arg_verbatim(d->dr_args[i]) ||
            (i > 0 && box_buf_putc(&b, ' ') != BOX_OK) ||
            box_buf_puts(&b, d->dr_args[i]) != BOX_OK)
            k = UNKNOWN;
    if (k == KNOWN)
        k = str_value(a, b.b_data, b.b_len, out);
    box_buf_reset(&b);
    return k;
}

/* http:request's resource is host:port/path: the path from the first
 * `/` after the host. */
static known
url_path(const pdp_dlrec *d, box_arena *a, const pdp_value **out)
{
    const char *r = d->dr_resource;
    const char *slash = r != NULL ? strchr(r, '/') : NULL;
    return slash ? str_value(a, slash, strlen(slash), out) : UNKNOWN;
}

static known
src_value(const pdp_dlrec *d, src s, box_arena *a, const pdp_value **out)
{
    const char *r = d->dr_resource;
    pdp_value *v;
    switch (s) {
    case SRC_RESOURCE:
        return str_value(a, r, r ? strlen(r) : 0, out);
    case SRC_COMMAND:
        if (d->dr_command == NULL || !arg_verbatim(d->dr_command))
            return UNKNOWN;
        return str_value(a, d->dr_command, strlen(d->dr_command), out);
    case SRC_ARGS_LINE:
        return args_line(d, a, out);
    case SRC_ARG1:
        return arg_value(d, 1, a, out);
    case SRC_ARG2:
        return arg_value(d, 2, a, out);
    case SRC_ARG_COUNT:
        if (d->dr_nargs == 0 || d->dr_nargs >= DIFF_ARGS_CAP ||
            (v = pdp_value_long(a, (int64_t)d->dr_nargs - 1)) == NULL)
            return UNKNOWN;
        *out = v;
        return KNOWN;
    case SRC_CWD:
        return str_value(a, d->dr_cwd, d->dr_cwd ? strlen(d->dr_cwd) : 0, out);
    case SRC_ADDRESS:
        return str_value(a, d->dr_address,
                         d->dr_address ? strlen(d->dr_address) : 0, out);
    case SRC_PORT:
        if (!d->dr_has_port || (v = pdp_value_long(a, d->dr_port)) == NULL)
            return UNKNOWN;
        *out = v;
        return KNOWN;
    case SRC_METHOD:
        return str_value(a, d->dr_method,
                         d->dr_method ? strlen(d->dr_method) : 0, out);
    case SRC_URL_PATH:
        return url_path(d, a, out);
    case SRC_MCP_SERVER:
        if (r == NULL || strchr(r, '/') == NULL)
            return UNKNOWN;
        return str_value(a, r, (size_t)(strchr(r, '/') - r), out);
    case SRC_NONE:
    default:
        return UNKNOWN;
    }
}

/* The request rebuilt from one record: its input and what it lacks. */
typedef struct rebuilt {
    const pdp_value *rb_action;
    // Rows of field_tab, by what the log says of them.
    const struct field_row *rb_known[FIELD_ROWS];
    const pdp_value *rb_vals[FIELD_ROWS];
    size_t rb_nknown;
    const struct field_row *rb_absent[FIELD_ROWS];
    size_t rb_nabsent;
    // Unknown, left out of rb_input:
    const struct field_row *rb_unknown[FIELD_ROWS];
    size_t rb_nunknown;
    // Unknown, each of its few values tried:
    const struct field_row *rb_enum[FIELD_ROWS];
    size_t rb_nenum;
    // An action the table does not know (a generated MCP tool action):
    // every field of its input is unknown.
    bool rb_open;
} rebuilt;

/* The action entity: Box::Action::"<action>", or an uid spelled whole
 * (a generated MCP tool action). */
static box_err
action_value(box_arena *a, const char *action, const pdp_value **out)
{
    size_t n = strlen(action);
    if (strstr(action, "::\"") != NULL &&
        pdp_reqjson_uid(action, n, a, out) == BOX_OK)
        return BOX_OK;
    pdp_value *v = NULL;
    box_err rv = pdp_value_entity(a, "Box::Action", 11, action, n, &v);
    *out = v;
    return rv == BOX_ENOMEM ? BOX_ENOMEM : rv == BOX_OK ? BOX_OK : BOX_EINVAL;
}

/* Sorts d's fields into rb by what the log says of them; BOX_EINVAL
 * when its action is not an entity name at all. An action without rows
 * has no known input. */
static box_err
rebuild(const pdp_dlrec *d, box_arena *a, rebuilt *rb)
{
    memset(rb, 0, sizeof *rb);
    box_err rv = action_value(a, d->dr_action, &rb->rb_action);
    if (rv != BOX_OK)
        return rv;
    rb->rb_open = true;
    for (size_t i = 0; i < FIELD_ROWS; i++) {
        const struct field_row *fr = &field_tab[i];
        if (strcmp(fr->fr_action, d->dr_action) != 0)
            continue;
        rb->rb_open = false;
        const pdp_value *v = NULL;
        known k = src_value(d, fr->fr_src, a, &v);
        if (k == ABSENT && fr->fr_optional) {
            rb->rb_absent[rb->rb_nabsent++] = fr;
        } else if (k == KNOWN) {
            rb->rb_vals[rb->rb_nknown] = v;
            rb->rb_known[rb->rb_nknown++] = fr;
        } else if (fr->fr_dom != DOM_ANY) {
            rb->rb_enum[rb->rb_nenum++] = fr;
        } else {
            rb->rb_unknown[rb->rb_nunknown++] = fr;
        }
    }
    return BOX_OK;
}

/* Most requests one record is tried as: the product of the sizes of
 * its few-valued unknown fields (an fs operation: at most 6). */
#define DIFF_COMPLETIONS_MAX 64

static size_t
dom_size(const struct field_row *fr)
{
    size_t n = 0;
    if (fr->fr_dom == DOM_BOOL)
        return 2;
    while (fr->fr_ids[n] != NULL)
        n++;
    return n;
}

/* How many requests rb stands for (at least 1). */
static size_t
completions(const rebuilt *rb)
{
    size_t n = 1;
    for (size_t j = 0; j < rb->rb_nenum; j++)
        n *= dom_size(rb->rb_enum[j]);
    return n < DIFF_COMPLETIONS_MAX ? n : DIFF_COMPLETIONS_MAX;
}

/* The context of request k of rb: its known fields, and each few-valued
 * unknown one set to a value (k in mixed radix over rb_enum). */
static box_err
completion(box_arena *a, const rebuilt *rb, size_t k, const pdp_value **out)
{
    pdp_value *in = pdp_value_record_new(a), *ctx = pdp_value_record_new(a);
    box_err rv = in != NULL && ctx != NULL ? BOX_OK : BOX_ENOMEM;
    for (size_t i = 0; i < rb->rb_nknown && rv == BOX_OK; i++) {
        const char *f = rb->rb_known[i]->fr_field;
        rv = pdp_value_record_put(a, in, f, strlen(f), rb->rb_vals[i]);
    }
    for (size_t j = 0; j < rb->rb_nenum && rv == BOX_OK; j++) {
        const struct field_row *fr = rb->rb_enum[j];
        size_t n = dom_size(fr), pick = k % n;
        pdp_value *v = NULL;
        k /= n;
        if (fr->fr_dom == DOM_BOOL) {
            v = pdp_value_bool(a, pick == 1);
            rv = v != NULL ? BOX_OK : BOX_ENOMEM;
        } else {
            rv = pdp_value_entity(a, fr->fr_type, strlen(fr->fr_type),
                                  fr->fr_ids[pick], strlen(fr->fr_ids[pick]),
                                  &v);
        }
        if (rv == BOX_OK)
            rv = pdp_value_record_put(a, in, fr->fr_field, strlen(fr->fr_field),
                                      v);
    }
    if (rv == BOX_OK)
        rv = pdp_value_record_put(a, ctx, "input", 5, in);
    *out = ctx;
    return rv;
}

/* ------------------------------------------------------------------ */
/* The history's own event for a decision                              */
/* ------------------------------------------------------------------ */

/* Whether event input in agrees with everything the log says. */
static bool
input_agrees(const pdp_value *in, const rebuilt *rb)
{
    if (in == NULL || pdp_value_kind_of(in) != PDP_VAL_RECORD)
        return false;
    for (size_t i = 0; i < rb->rb_nknown; i++) {
        const char *f = rb->rb_known[i]->fr_field;
        const pdp_value *v = pdp_value_get(in, f, strlen(f));
        if (v == NULL || !pdp_value_equal(v, rb->rb_vals[i]))
            return false;
    }
    for (size_t i = 0; i < rb->rb_nabsent; i++) {
        const char *f = rb->rb_absent[i]->fr_field;
        if (pdp_value_get(in, f, strlen(f)) != NULL)
            return false;
    }
    return true;
}

/* The next ::request event of h from *from on that is d's: same action,
 * input agreeing with the log, stamped about when d was. Its index in *at
 * and *from moved past it (1), or none (0). */
static int
hist_match(const pdp_hist *h, size_t *from, const pdp_dlrec *d,
           const rebuilt *rb, size_t *at)
{
    while (d->dr_has_ts && *from < pdp_hist_len(h) &&
           pdp_hist_at(h, *from)->ev_ts < d->dr_ts - DIFF_MATCH_BEFORE_S)
        ++*from;
    for (size_t k = *from; k < pdp_hist_len(h); k++) {
        const pdp_event *e = pdp_hist_at(h, k);
        if (d->dr_has_ts && e->ev_ts > d->dr_ts + DIFF_MATCH_SLACK_S)
            return 0; // events are in time order
        if (strcmp(e->ev_kind, "request") != 0 || e->ev_principal == NULL ||
            e->ev_resource == NULL ||
            !pdp_value_equal(e->ev_action, rb->rb_action))
            continue;
        const pdp_value *in = e->ev_context
                                  ? pdp_value_get(e->ev_context, "input", 5)
                                  : pdp_hist_field(e->ev_fields, "input", 5);
        if (!input_agrees(in, rb))
            continue;
        *at = k;
        *from = k + 1;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Judging the two answers                                             */
/* ------------------------------------------------------------------ */

const char *
pdp_diff_skip_name(pdp_diff_skip s)
{
    /* ORDER PDP_DIFF_SKIP */
    static const char *const names[PDP_DIFF_SKIP_COUNT] = {
        "none", "control", "enforcement", "cached", "pending", "other",
    };
    return (unsigned)s < PDP_DIFF_SKIP_COUNT ? names[s] : "other";
}

static bool
starts(const char *s, const char *prefix)
{
    return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool
is(const char *s, const char *t)
{
    return s != NULL && strcmp(s, t) == 0;
}

/* Why a record is not replayed, or PDP_DIFF_SKIP_NONE. */
static pdp_diff_skip
skip_of(const pdp_dlrec *d)
{
    if (d->dr_kind == PDP_DLREC_CONTROL)
        return PDP_DIFF_SKIP_CONTROL;
    if (d->dr_kind != PDP_DLREC_DECISION)
        return PDP_DIFF_SKIP_OTHER;
    if (starts(d->dr_rule, "enforcement") || is(d->dr_cause, "enforcement"))
        return PDP_DIFF_SKIP_ENFORCEMENT;
    if (d->dr_cached || is(d->dr_rule, "<cached-permit>") ||
        is(d->dr_cause, "cached"))
        return PDP_DIFF_SKIP_CACHED;
    if (is(d->dr_cause, "policy_pending"))
        return PDP_DIFF_SKIP_PENDING;
    return PDP_DIFF_SKIP_NONE;
}

/* The answer as the log would record it (pdp_wire_decide). */
static pdp_diff_side
side_of(const pdp_answer *ans)
{
    pdp_diff_side s = {.ds_verdict = pdp_answer_verdict(ans)};
    if (pdp_answer_determining_count(ans) > 0 &&
        pdp_answer_reason(ans) != PDP_REASON_INTERNAL_FAULT)
        s.ds_rule = pdp_answer_determining(ans, 0);
    return s;
}

static bool
has_id(const pdp_rule *r)
{
    return pdp_rule_display_id(r).s != r->r_pid.s;
}

bool
pdp_diff_same_rule(const pdp_rule *a, const pdp_rule *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (has_id(a) != has_id(b))
        return false;
    if (has_id(a)) {
        pdp_str x = pdp_rule_display_id(a), y = pdp_rule_display_id(b);
        return x.len == y.len && memcmp(x.s, y.s, x.len) == 0;
    }
    // No @id: the same rule is the one at the same place (edited in
    // place), or the same text (moved).
    if (a->r_index == b->r_index && a->r_effect == b->r_effect)
        return true;
    box_buf ba, bb;
    box_buf_init(&ba, (size_t)1 << 24);
    box_buf_init(&bb, (size_t)1 << 24);
    bool same = pdp_rule_dump(a, &ba) == BOX_OK &&
                pdp_rule_dump(b, &bb) == BOX_OK && ba.b_len == bb.b_len &&
                memcmp(ba.b_data, bb.b_data, ba.b_len) == 0;
    box_buf_reset(&ba);
    box_buf_reset(&bb);
    return same;
}

/* A side's verdict and rule in the log's words: "permit by policy_0". */
static void
side_words(const pdp_diff_side *s, char *out, size_t n)
{
    pdp_str id = s->ds_rule ? pdp_rule_display_id(s->ds_rule)
                            : (pdp_str){"<default-deny>", 14};
    snprintf(out, n, "%s by %.*s",
             s->ds_verdict == PDP_ALLOW ? "permit" : "deny", (int)id.len, id.s);
}

/* Whether the old policy's answer is the one the log holds. */
static bool
reproduces(const pdp_dlrec *d, const pdp_diff_side *s)
{
    if (strcmp(d->dr_verdict, s->ds_verdict == PDP_ALLOW ? "permit" : "deny"))
        return false;
    if (d->dr_rule == NULL)
        return true;
    pdp_str id = s->ds_rule ? pdp_rule_display_id(s->ds_rule)
                            : (pdp_str){"<default-deny>", 14};
    return strlen(d->dr_rule) == id.len &&
           memcmp(d->dr_rule, id.s, id.len) == 0;
}

#define TEMPORAL_ERR "a temporal condition needs the history"

/* Whether one of ans's errors is the rebuilt request's fault, into why:
 * a field it left out, or a temporal condition with no history. */
static bool
lacking_errors(const pdp_answer *ans, const rebuilt *rb, bool hist_given,
               char *why, size_t n)
{
    static const char absent[] = "record does not have the attribute `";
    char want[160];
    for (size_t i = 0; i < pdp_answer_error_count(ans); i++) {
        const char *m = pdp_answer_error_message(ans, i);
        if (rb->rb_open && strncmp(m, absent, sizeof absent - 1) == 0) {
            const char *f = m + sizeof absent - 1;
            snprintf(why, n,
                     "depends on context.input.%.*s, which the log "
                     "does not record",
                     (int)strcspn(f, "`"), f);
            return true;
        }
        for (size_t j = 0; j < rb->rb_nunknown; j++) {
            const char *f = rb->rb_unknown[j]->fr_field;
            snprintf(want, sizeof want,
                     "record does not have the attribute `%s`", f);
            if (strcmp(m, want) == 0) {
                snprintf(why, n,
                         "depends on context.input.%s, which the "
                         "log does not record",
                         f);
                return true;
            }
        }
        if (strncmp(m, TEMPORAL_ERR, sizeof TEMPORAL_ERR - 1) == 0) {
            snprintf(why, n,
                     "depends on the history (a temporal "
                     "condition), and %s",
                     hist_given ? "the history holds no event for it"
                                : "no history was given");
            return true;
        }
    }
    return false;
}

static bool
str_is(pdp_str s, const char *lit)
{
    return s.len == strlen(lit) && memcmp(s.s, lit, s.len) == 0;
}

/* pdp_expr_visit: `context.input has F…` or `context has input.F…`, F
 * the field arg names (NULL: any). */
static bool
asks_has(void *arg, const pdp_expr *x)
{
    if (x->x_kind != PDP_X_HAS)
        return false;
    const pdp_expr *o = x->u.has.obj;
    const pdp_str *path = x->u.has.path;
    if (o->x_kind == PDP_X_ATTR && o->u.attr.obj->x_kind == PDP_X_VAR &&
        o->u.attr.obj->u.var == PDP_VAR_CONTEXT &&
        str_is(o->u.attr.name, "input"))
        return arg == NULL || str_is(path[0], arg);
    return o->x_kind == PDP_X_VAR && o->u.var == PDP_VAR_CONTEXT &&
           x->u.has.n >= 2 && str_is(path[0], "input") &&
           (arg == NULL || str_is(path[1], arg));
}

/*
 * Whether a rule of set that decisions of rb's action evaluate asks
 * whether an unknown field is there, into why. A field left out makes
 * `has` read false without an error, where the box saw the field (a
 * required one always, an optional one perhaps), so such a decision
 * cannot be told from the log.
 */
static bool
lacking_has(const pdp_policy_set *set, const rebuilt *rb, char *why, size_t n)
{
    const pdp_rule *const *lists[2];
    size_t counts[2];
    pdp_policy_candidates(set, rb->rb_action, &lists[0], &counts[0], &lists[1],
                          &counts[1]);
    for (size_t j = 0; j < rb->rb_nunknown + rb->rb_open; j++) {
        const char *f =
            j < rb->rb_nunknown ? rb->rb_unknown[j]->fr_field : NULL;
        for (int l = 0; l < 2; l++)
            for (size_t i = 0; i < counts[l]; i++)
                for (uint32_t c = 0; c < lists[l][i]->r_nconds; c++)
                    if (pdp_expr_visit(lists[l][i]->r_conds[c].cd_body,
                                       asks_has, (void *)f) != NULL) {
                        snprintf(why, n,
                                 "may depend on context.input%s%s, "
                                 "which the log does not record",
                                 f ? "." : "", f ? f : "");
                        return true;
                    }
    }
    return false;
}

/* The first action a temporal predicate names whose events the old
 * policy does not keep (g_old), while walking one rule. */
typedef struct gap {
    const pdp_policy_set *g_old;
    const pdp_value *g_action;
} gap;

static void
gap_pred(void *arg, const pdp_tl *pred)
{
    gap *g = arg;
    if (g->g_action == NULL &&
        !pdp_policy_history_reads(g->g_old, pred->tl_action))
        g->g_action = pred->tl_action;
}

static bool
gap_leaf(void *arg, const pdp_expr *e)
{
    if (e->x_kind == PDP_X_TEMPORAL)
        pdp_tl_each_pred(e->u.tl, gap_pred, arg);
    return false; // every node
}

/*
 * Whether a temporal rule of set that decisions of rb's action evaluate
 * reads events of an action old does not read, into why: a history kept
 * under old holds none of them, so what such a rule decides over it is
 * not what it would decide in the box.
 */
static bool
lacking_history(const pdp_policy_set *set, const pdp_policy_set *old,
                const rebuilt *rb, char *why, size_t n)
{
    const pdp_rule *const *lists[2];
    size_t counts[2];
    gap g = {.g_old = old};
    pdp_policy_candidates(set, rb->rb_action, &lists[0], &counts[0], &lists[1],
                          &counts[1]);
    for (int l = 0; l < 2 && g.g_action == NULL; l++)
        for (size_t i = 0; i < counts[l] && g.g_action == NULL; i++)
            for (uint32_t c = 0; c < lists[l][i]->r_nconds; c++) {
                const pdp_expr *body = lists[l][i]->r_conds[c].cd_body;
                const pdp_expr *hit = pdp_expr_visit(body, gap_leaf, &g);
                (void)hit;
            }
    if (g.g_action == NULL)
        return false;
    size_t len;
    const char *id = pdp_value_entity_id(g.g_action, &len);
    snprintf(why, n,
             "depends on the history of %.*s events, which the "
             "history does not hold (the old policy did not read "
             "them)",
             (int)len, id);
    return true;
}

/* ------------------------------------------------------------------ */
/* The replay                                                          */
/* ------------------------------------------------------------------ */

typedef struct run {
    const pdp_diff_in *ru_in;
    box_arena *ru_scratch;
    pdp_answer *ru_old, *ru_new;
    size_t ru_hist_from; // the next history event a decision may match
    // The record's UNKNOWN words, kept (in the result's arena) only for
    // the records that have them: a log may hold millions of records.
    char ru_why[DIFF_WHY_MAX];
    char ru_detail[DIFF_WHY_MAX];
} run;

/* The names of rb's few-valued unknown fields, for a message. */
static void
enum_names(const rebuilt *rb, char *out, size_t n)
{
    size_t at = 0;
    out[0] = '\0';
    for (size_t j = 0; j < rb->rb_nenum && at < n; j++) {
        int w = snprintf(out + at, n - at, "%scontext.input.%s",
                         j ? " and " : "", rb->rb_enum[j]->fr_field);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

/*
 * Decides each request rb stands for (with few-valued unknown fields,
 * one per value) on both policies. The ones the old policy answers as
 * the log says are the ones the box may have seen; the new policy must
 * answer them all alike for the record to be told.
 */
static box_err
decide_all(run *ru, const pdp_dlrec *d, const rebuilt *rb, pdp_request *rq,
           pdp_diff_item *it)
{
    const pdp_diff_in *in = ru->ru_in;
    bool hist = in->dn_hist != NULL, have = false, varies = false;
    pdp_diff_side bad = {0};
    size_t n = it->di_from_history ? 1 : completions(rb);
    box_err rv;
    for (size_t k = 0; k < n; k++) {
        if (!it->di_from_history &&
            (rv = completion(ru->ru_scratch, rb, k, &rq->rq_context)) != BOX_OK)
            return rv;
        // pdp_decide's failures read as a deny; memory is all they can be.
        rq->rq_since = rq->rq_hist != NULL ? in->dn_old_since : NULL;
        rv = pdp_decide(in->dn_old, rq, ru->ru_old);
        rq->rq_since = NULL;
        if (rv != BOX_OK ||
            (rv = pdp_decide(in->dn_new, rq, ru->ru_new)) != BOX_OK)
            return rv;
        if (lacking_errors(ru->ru_old, rb, hist, ru->ru_why,
                           sizeof ru->ru_why) ||
            lacking_errors(ru->ru_new, rb, hist, ru->ru_why,
                           sizeof ru->ru_why)) {
            it->di_class = PDP_DIFF_UNKNOWN;
            return BOX_OK;
        }
        pdp_diff_side o = side_of(ru->ru_old), nw = side_of(ru->ru_new);
        if (!reproduces(d, &o)) {
            bad = o;
            continue;
        }
        if (!have) {
            it->di_old = o;
            it->di_new = nw;
            have = true;
        } else if (nw.ds_verdict != it->di_new.ds_verdict ||
                   !pdp_diff_same_rule(nw.ds_rule, it->di_new.ds_rule)) {
            varies = true;
        }
    }
    if (!have) {
        char was[128];
        side_words(&bad, was, sizeof was);
        it->di_old = bad;
        it->di_class = PDP_DIFF_UNKNOWN;
        snprintf(ru->ru_why, sizeof ru->ru_why,
                 "old policy does not reproduce the logged verdict");
        snprintf(ru->ru_detail, sizeof ru->ru_detail,
                 "logged: %s by %s; old policy: %s", d->dr_verdict,
                 d->dr_rule ? d->dr_rule : "?", was);
        return BOX_OK;
    }
    if (varies) {
        char names[128];
        enum_names(rb, names, sizeof names);
        it->di_class = PDP_DIFF_UNKNOWN;
        snprintf(ru->ru_why, sizeof ru->ru_why,
                 "depends on %s, which the log does not record", names);
        return BOX_OK;
    }
    it->di_class =
        it->di_old.ds_verdict == it->di_new.ds_verdict &&
                pdp_diff_same_rule(it->di_old.ds_rule, it->di_new.ds_rule)
            ? PDP_DIFF_UNCHANGED
            : PDP_DIFF_CHANGED;
    return BOX_OK;
}

static box_err
replay_one(run *ru, const pdp_dlrec *d, pdp_diff_item *it)
{
    const pdp_diff_in *in = ru->ru_in;
    box_arena *a = ru->ru_scratch;
    rebuilt rb;
    box_err rv = rebuild(d, a, &rb);
    if (rv == BOX_EINVAL) {
        it->di_class = PDP_DIFF_UNKNOWN;
        snprintf(ru->ru_why, sizeof ru->ru_why,
                 "the action is not a name a policy can hold");
        return BOX_OK;
    }
    if (rv != BOX_OK)
        return rv;
    pdp_request rq = {.rq_resource_text = d->dr_resource ? d->dr_resource : "",
                      .rq_action = rb.rb_action};
    rq.rq_resource_len = strlen(rq.rq_resource_text);
    size_t at;
    if (in->dn_hist != NULL &&
        hist_match(in->dn_hist, &ru->ru_hist_from, d, &rb, &at)) {
        const pdp_event *e = pdp_hist_at(in->dn_hist, at);
        rq.rq_principal = e->ev_principal;
        rq.rq_resource = e->ev_resource;
        rq.rq_context = e->ev_context;
        if (rq.rq_context == NULL) {
            pdp_value *ctx = pdp_value_record_new(a);
            if (ctx == NULL ||
                pdp_value_record_put(
                    a, ctx, "input", 5,
                    pdp_hist_field(e->ev_fields, "input", 5)) != BOX_OK)
                return BOX_ENOMEM;
            rq.rq_context = ctx;
        }
        rq.rq_hist = in->dn_hist;
        rq.rq_at = at;
        rb.rb_nunknown = rb.rb_nenum = 0; // the event is the whole request
        it->di_from_history = true;
        if (lacking_history(in->dn_new, in->dn_old, &rb, ru->ru_why,
                            sizeof ru->ru_why)) {
            it->di_class = PDP_DIFF_UNKNOWN;
            return BOX_OK;
        }
    } else {
        pdp_value *p = NULL, *r = NULL;
        if (pdp_value_entity(a, "Box::Agent", 10, "self", 4, &p) != BOX_OK ||
            pdp_value_entity(a, "Box::Resource", 13, "unused", 6, &r) != BOX_OK)
            return BOX_ENOMEM;
        rq.rq_principal = p;
        rq.rq_resource = r;
        if (lacking_has(in->dn_old, &rb, ru->ru_why, sizeof ru->ru_why) ||
            lacking_has(in->dn_new, &rb, ru->ru_why, sizeof ru->ru_why)) {
            it->di_class = PDP_DIFF_UNKNOWN;
            return BOX_OK;
        }
    }
    return decide_all(ru, d, &rb, &rq, it);
}

box_err
pdp_diff_run(const pdp_diff_in *in, pdp_diff_result *res)
{
    const pdp_dlread *log = in->dn_log;
    run ru = {.ru_in = in};
    memset(res, 0, sizeof *res);
    pdp_diff_item *out = box_calloc(log->dl_n + 1, sizeof *out);
    box_arena *words = box_arena_new(DIFF_WORDS_MAX);
    ru.ru_scratch = box_arena_new(DIFF_SCRATCH_MAX);
    ru.ru_old = pdp_answer_new();
    ru.ru_new = pdp_answer_new();
    box_err rv = BOX_ENOMEM;
    if (out == NULL || words == NULL || ru.ru_scratch == NULL ||
        ru.ru_old == NULL || ru.ru_new == NULL)
        goto out;
    rv = BOX_OK;
    for (size_t i = 0; i < log->dl_n && rv == BOX_OK; i++) {
        const pdp_dlrec *d = &log->dl_recs[i];
        pdp_diff_item *it = &out[i];
        it->di_rec = d;
        if ((it->di_skip = skip_of(d)) != PDP_DIFF_SKIP_NONE) {
            it->di_class = PDP_DIFF_SKIPPED;
            continue;
        }
        box_arena_reset(ru.ru_scratch);
        ru.ru_why[0] = ru.ru_detail[0] = '\0';
        if ((rv = replay_one(&ru, d, it)) != BOX_OK ||
            it->di_class != PDP_DIFF_UNKNOWN)
            continue;
        it->di_why = box_arena_strndup(words, ru.ru_why, strlen(ru.ru_why));
        it->di_detail =
            box_arena_strndup(words, ru.ru_detail, strlen(ru.ru_detail));
        if (it->di_why == NULL || it->di_detail == NULL)
            rv = BOX_ENOMEM;
    }
    if (rv == BOX_OK) {
        res->rs_items = out;
        res->rs_n = log->dl_n;
        res->rs_arena = words;
        out = NULL;
        words = NULL;
    }
out:
    box_free(out);
    box_arena_free(words);
    pdp_answer_free(ru.ru_old);
    pdp_answer_free(ru.ru_new);
    box_arena_free(ru.ru_scratch);
    return rv;
}

void
pdp_diff_result_free(pdp_diff_result *r)
{
    if (r == NULL)
        return;
    box_free(r->rs_items);
    box_arena_free(r->rs_arena);
    memset(r, 0, sizeof *r);
}

box_err
pdp_diff_since(const pdp_policy_set *old, const pdp_hstore_rules *rules,
               uint64_t **since)
{
    size_t n = pdp_policy_rule_count(old);
    uint64_t *s = box_calloc(n + 1, sizeof *s);
    box_buf b;
    box_buf_init(&b, (size_t)1 << 24);
    box_err rv = s != NULL ? BOX_OK : BOX_ENOMEM;
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        box_buf_truncate(&b, 0);
        if ((rv = pdp_rule_dump(pdp_policy_rule(old, i), &b)) != BOX_OK)
            break;
        for (size_t j = 0; j < rules->hs_n; j++)
            if (strlen(rules->hs_rules[j].hr_text) == b.b_len &&
                memcmp(rules->hs_rules[j].hr_text, b.b_data, b.b_len) == 0) {
                s[i] = rules->hs_rules[j].hr_since;
                break;
            }
    }
    box_buf_reset(&b);
    if (rv != BOX_OK) {
        box_free(s);
        return rv;
    }
    *since = s;
    return BOX_OK;
}

size_t
pdp_diff_unrecorded(const pdp_policy_set *old, const pdp_policy_set *new_,
                    const char **actions, size_t max)
{
    box_arena *a = box_arena_new(1u << 16);
    size_t n = 0;
    for (size_t i = 0; a != NULL && i < FIELD_ROWS && n < max; i++) {
        const char *act = field_tab[i].fr_action;
        if (n > 0 && strcmp(actions[n - 1], act) == 0)
            continue; // the table's rows of one action are together
        const pdp_value *v;
        if (action_value(a, act, &v) == BOX_OK &&
            pdp_policy_history_reads(new_, v) &&
            !pdp_policy_history_reads(old, v))
            actions[n++] = act;
    }
    box_arena_free(a);
    return n;
}
