/* SPDX-License-Identifier: Apache-2.0 */
/* The decision log read back with json-c (pdp_dlread.h). */
#include "pdp_dlread.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "box_alloc.h"

#define DLREAD_ARENA_MAX ((size_t)4 << 30) // every string of one log
#define DLREAD_JSON_DEPTH 32               // pdp_dlog writes 9 levels
#define DLREAD_ARGS_MAX 1024               // pdp_dlog writes at most 64

/* One line's parse: where it is and where its strings go. */
typedef struct rd {
    pdp_dlread *r_out;
    const char *r_file;
    uint32_t r_line;
    box_buf *r_err;
} rd;

static box_err
rd_fail(rd *c, const char *why, const char *what)
{
    box_err rv = box_buf_printf(c->r_err, "%s:%u: %s%s", c->r_file, c->r_line,
                                why, what ? what : "");
    return rv == BOX_OK ? BOX_EPARSE : rv;
}

/* The member key of obj when it is an object, else NULL. */
static json_object *
member(json_object *obj, const char *key)
{
    json_object *v = NULL;
    if (!json_object_is_type(obj, json_type_object) ||
        !json_object_object_get_ex(obj, key, &v))
        return NULL;
    return v;
}

/* Arrays json-c reads from a hand-edited line may be anything. */
static size_t
array_len(json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a)
                                                   : 0;
}

/* The value object of attribute key in an OTLP attribute array. */
static json_object *
attr(json_object *attrs, const char *key)
{
    for (size_t i = 0; i < array_len(attrs); i++) {
        json_object *a = json_object_array_get_idx(attrs, i);
        json_object *k = member(a, "key");
        if (k != NULL && json_object_is_type(k, json_type_string) &&
            strcmp(json_object_get_string(k), key) == 0)
            return member(a, "value");
    }
    return NULL;
}

/* A copy of a JSON string in the arena; NULL for "not a string". */
static box_err
dup_str(rd *c, json_object *s, const char **out)
{
    *out = NULL;
    if (!json_object_is_type(s, json_type_string))
        return BOX_OK;
    char *d = box_arena_strndup(c->r_out->dl_arena, json_object_get_string(s),
                                (size_t)json_object_get_string_len(s));
    if (d == NULL)
        return BOX_ENOMEM;
    *out = d;
    return BOX_OK;
}

static box_err
attr_str(rd *c, json_object *attrs, const char *key, const char **out)
{
    return dup_str(c, member(attr(attrs, key), "stringValue"), out);
}

/* An OTLP intValue: a decimal string (the JSON mapping) or a number. */
static bool
attr_int(json_object *attrs, const char *key, int64_t *out)
{
    json_object *v = member(attr(attrs, key), "intValue");
    if (json_object_is_type(v, json_type_int)) {
        *out = json_object_get_int64(v);
        return true;
    }
    if (!json_object_is_type(v, json_type_string))
        return false;
    const char *s = json_object_get_string(v);
    char *end;
    errno = 0;
    long long n = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0')
        return false;
    *out = n;
    return true;
}

static box_err
attr_strv(rd *c, json_object *attrs, const char *key, const char *const **out,
          size_t *n)
{
    json_object *vals =
        member(member(attr(attrs, key), "arrayValue"), "values");
    size_t len = array_len(vals);
    *out = NULL;
    *n = 0;
    if (len == 0)
        return BOX_OK;
    if (len > DLREAD_ARGS_MAX)
        return rd_fail(c, "too many values in ", key);
    const char **v = box_arena_zalloc(c->r_out->dl_arena, len * sizeof *v);
    if (v == NULL)
        return BOX_ENOMEM;
    for (size_t i = 0; i < len; i++) {
        box_err rv = dup_str(
            c, member(json_object_array_get_idx(vals, i), "stringValue"),
            &v[i]);
        if (rv != BOX_OK)
            return rv;
        if (v[i] == NULL)
            return rd_fail(c, "a value that is not a string in ", key);
    }
    *out = v;
    *n = len;
    return BOX_OK;
}

/* Room for one more record, zeroed. */
static box_err
rec_new(pdp_dlread *r, pdp_dlrec **out)
{
    if (r->dl_n == r->dl_cap) {
        size_t cap = r->dl_cap ? 2 * r->dl_cap : 64;
        pdp_dlrec *g = box_realloc(r->dl_recs, cap * sizeof *g);
        if (g == NULL)
            return BOX_ENOMEM;
        r->dl_recs = g;
        r->dl_cap = cap;
    }
    *out = &r->dl_recs[r->dl_n++];
    memset(*out, 0, sizeof **out);
    return BOX_OK;
}

/* A decision record's attributes (box-spec §7), checked as far as a
 * replay relies on them. */
static box_err
read_decision(rd *c, json_object *at, pdp_dlrec *d)
{
    static const struct {
        const char *key;
        size_t off;
    } strs[] = {
        {"strands.box.policy.action", offsetof(pdp_dlrec, dr_action)},
        {"strands.box.policy.resource", offsetof(pdp_dlrec, dr_resource)},
        {"strands.box.policy.verdict", offsetof(pdp_dlrec, dr_verdict)},
        {"strands.box.policy.cause", offsetof(pdp_dlrec, dr_cause)},
        {"strands.box.policy.rule", offsetof(pdp_dlrec, dr_rule)},
        {"file.path", offsetof(pdp_dlrec, dr_file_path)},
        {"process.command", offsetof(pdp_dlrec, dr_command)},
        {"process.working_directory", offsetof(pdp_dlrec, dr_cwd)},
        {"server.address", offsetof(pdp_dlrec, dr_address)},
        {"http.request.method", offsetof(pdp_dlrec, dr_method)},
    };
    box_err rv;
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if ((rv = attr_str(c, at, strs[i].key,
                           (const char **)((char *)d + strs[i].off))) != BOX_OK)
            return rv;
    if ((rv = attr_strv(c, at, "strands.box.policy.determining.ids",
                        &d->dr_determining, &d->dr_ndetermining)) != BOX_OK ||
        (rv = attr_strv(c, at, "process.command_args", &d->dr_args,
                        &d->dr_nargs)) != BOX_OK)
        return rv;
    int64_t n;
    if ((d->dr_has_port = attr_int(at, "server.port", &n)))
        d->dr_port = n;
    if ((d->dr_has_epoch = attr_int(at, "strands.box.policy.epoch", &n)))
        d->dr_epoch = (uint64_t)n;
    json_object *cached =
        member(attr(at, "strands.box.policy.cached"), "boolValue");
    d->dr_cached = cached != NULL && json_object_get_boolean(cached);
    if (d->dr_action == NULL)
        return rd_fail(c,
                       "a decision record without "
                       "strands.box.policy.action",
                       NULL);
    if (d->dr_verdict == NULL || (strcmp(d->dr_verdict, "permit") != 0 &&
                                  strcmp(d->dr_verdict, "deny") != 0))
        return rd_fail(c,
                       "a decision record whose strands.box.policy."
                       "verdict is not permit or deny",
                       NULL);
    return BOX_OK;
}

/* timeUnixNano (a decimal string, or a number) in seconds. */
static void
read_time(json_object *lr, pdp_dlrec *d)
{
    json_object *t = member(lr, "timeUnixNano");
    uint64_t ns = 0;
    if (json_object_is_type(t, json_type_int)) {
        ns = json_object_get_uint64(t);
    } else if (json_object_is_type(t, json_type_string)) {
        const char *s = json_object_get_string(t);
        char *end;
        errno = 0;
        ns = strtoull(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0')
            return;
    } else {
        return;
    }
    d->dr_has_ts = true;
    d->dr_ts = (int64_t)(ns / 1000000000u);
}

/* resourceLogs[].scopeLogs[].logRecords[]: one record each. */
static box_err
read_logs(rd *c, json_object *rls)
{
    for (size_t i = 0; i < array_len(rls); i++) {
        json_object *sls =
            member(json_object_array_get_idx(rls, i), "scopeLogs");
        for (size_t j = 0; j < array_len(sls); j++) {
            json_object *sl = json_object_array_get_idx(sls, j);
            json_object *name = member(member(sl, "scope"), "name");
            const char *scope = json_object_is_type(name, json_type_string)
                                    ? json_object_get_string(name)
                                    : "";
            pdp_dlrec_kind kind =
                strcmp(scope, "strands-box.policy") == 0    ? PDP_DLREC_DECISION
                : strcmp(scope, "strands-box.control") == 0 ? PDP_DLREC_CONTROL
                                                            : PDP_DLREC_OTHER;
            json_object *lrs = member(sl, "logRecords");
            for (size_t k = 0; k < array_len(lrs); k++) {
                json_object *lr = json_object_array_get_idx(lrs, k);
                json_object *at = member(lr, "attributes");
                pdp_dlrec *d;
                box_err rv = rec_new(c->r_out, &d);
                if (rv != BOX_OK)
                    return rv;
                d->dr_kind = kind;
                d->dr_line = c->r_line;
                read_time(lr, d);
                if (kind == PDP_DLREC_DECISION)
                    rv = read_decision(c, at, d);
                else if (kind == PDP_DLREC_CONTROL)
                    rv = attr_str(c, at, "strands.box.control.operation",
                                  &d->dr_operation);
                if (rv != BOX_OK)
                    return rv;
            }
        }
    }
    return BOX_OK;
}

/* True for the span box-pdp writes beside each of its records: scope
 * strands-box.policy or strands-box.control (an agent's relayed spans
 * have scopes of their own). */
static bool
own_span(json_object *rss)
{
    if (array_len(rss) != 1)
        return false;
    json_object *sss = member(json_object_array_get_idx(rss, 0), "scopeSpans");
    if (array_len(sss) != 1)
        return false;
    json_object *name =
        member(member(json_object_array_get_idx(sss, 0), "scope"), "name");
    const char *scope = json_object_is_type(name, json_type_string)
                            ? json_object_get_string(name)
                            : "";
    return strcmp(scope, "strands-box.policy") == 0 ||
           strcmp(scope, "strands-box.control") == 0;
}

/* One line: an OTLP request. Spans and metrics hold no decision the
 * log record beside them does not (box-spec §7): one OTHER record. */
static box_err
read_line(rd *c, const char *line, size_t len)
{
    json_tokener *tok = json_tokener_new_ex(DLREAD_JSON_DEPTH);
    if (tok == NULL)
        return BOX_ENOMEM;
    json_object *root = json_tokener_parse_ex(tok, line, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    while (end < len &&
           (line[end] == ' ' || line[end] == '\t' || line[end] == '\r'))
        end++;
    box_err rv;
    if (root == NULL || jerr != json_tokener_success || end != len) {
        rv = rd_fail(c, "not a JSON object: ",
                     jerr == json_tokener_continue ? "the line ends early"
                     : jerr != json_tokener_success
                         ? json_tokener_error_desc(jerr)
                         : "text after the object");
    } else if (member(root, "resourceLogs") != NULL) {
        rv = read_logs(c, member(root, "resourceLogs"));
    } else if (own_span(member(root, "resourceSpans"))) {
        rv = BOX_OK; // a record's span (box-spec §7): the record says it all
    } else if (member(root, "resourceSpans") != NULL ||
               member(root, "resourceMetrics") != NULL) {
        pdp_dlrec *d;
        if ((rv = rec_new(c->r_out, &d)) == BOX_OK) {
            d->dr_kind = PDP_DLREC_OTHER;
            d->dr_line = c->r_line;
        }
    } else {
        rv = rd_fail(c,
                     "not an OTLP record (no resourceLogs, resourceSpans "
                     "or resourceMetrics)",
                     NULL);
    }
    json_object_put(root);
    json_tokener_free(tok);
    return rv;
}

box_err
pdp_dlread_load(const char *text, size_t len, const char *file, pdp_dlread *out,
                box_buf *err)
{
    memset(out, 0, sizeof *out);
    if (len > PDP_DLREAD_MAX_BYTES)
        return BOX_ETOOBIG;
    if ((out->dl_arena = box_arena_new(DLREAD_ARENA_MAX)) == NULL)
        return BOX_ENOMEM;
    rd c = {.r_out = out, .r_file = file ? file : "<log>", .r_err = err};
    size_t at = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        c.r_line++;
        size_t i = 0;
        while (i < n && (text[at + i] == ' ' || text[at + i] == '\t' ||
                         text[at + i] == '\r'))
            i++;
        if (i < n) {
            if (n > INT32_MAX)
                return rd_fail(&c, "line too long", NULL);
            box_err rv = read_line(&c, text + at, n);
            if (rv != BOX_OK)
                return rv;
        }
        at += n + 1;
    }
    return BOX_OK;
}

void
pdp_dlread_free(pdp_dlread *r)
{
    if (r == NULL)
        return;
    box_free(r->dl_recs);
    box_arena_free(r->dl_arena);
    memset(r, 0, sizeof *r);
}
