/* SPDX-License-Identifier: Apache-2.0 */
/* A decision request from JSON text (the shape is in pdp_reqjson.h). */
#include "pdp_reqjson.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdp_ext.h"
#include "pdp_lex.h"

/* json-c's nesting allowance: the value cap plus the request's own
 * levels (request, entities, entity, attrs, an __entity wrapper). */
#define RJ_JSON_DEPTH (PDP_VALUE_MAX_DEPTH + 8)
#define RJ_PATH_MAX 512

typedef struct rj {
    box_arena *r_a;
    box_buf *r_err;
    char r_path[RJ_PATH_MAX]; // the member being read, for messages
    size_t r_plen;
} rj;

static box_err
rj_fail(rj *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static box_err
rj_fail(rj *r, const char *fmt, ...)
{
    va_list ap;
    box_buf_truncate(r->r_err, 0);
    if (r->r_plen > 0 && (box_buf_append(r->r_err, r->r_path, r->r_plen) !=
                              BOX_OK ||
                          box_buf_puts(r->r_err, ": ") != BOX_OK))
        return BOX_EINVAL;
    va_start(ap, fmt);
    box_err rv = box_buf_vprintf(r->r_err, fmt, ap);
    va_end(ap);
    (void)rv; // a cut message still says what failed
    return BOX_EINVAL;
}

/* Pushes ".name" (or "[i]" when name is NULL) on the path; returns the
 * length to pop back to. */
static size_t
rj_push(rj *r, const char *name, size_t i)
{
    size_t was = r->r_plen;
    int n = name != NULL
                ? snprintf(r->r_path + r->r_plen, RJ_PATH_MAX - r->r_plen,
                           "%s%s", r->r_plen > 0 ? "." : "", name)
                : snprintf(r->r_path + r->r_plen, RJ_PATH_MAX - r->r_plen,
                           "[%zu]", i);
    if (n > 0)
        r->r_plen += (size_t)n < RJ_PATH_MAX - r->r_plen
                         ? (size_t)n
                         : RJ_PATH_MAX - 1 - r->r_plen;
    return was;
}

static void
rj_pop(rj *r, size_t to)
{
    r->r_plen = to;
    r->r_path[to] = '\0';
}

/* json-c reads an integer past 64 bits as the nearest bound; Cedar
 * refuses it. So the text's integers are checked first: every number
 * outside a string without a fraction or an exponent must fit. */
static box_err
rj_check_integers(rj *r, const char *s, size_t n)
{
    bool instr = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (instr) {
            if (c == '\\')
                i++;
            else if (c == '"')
                instr = false;
            continue;
        }
        if (c == '"') {
            instr = true;
            continue;
        }
        if (c != '-' && (c < '0' || c > '9'))
            continue;
        size_t j = i + (c == '-');
        while (j < n && s[j] >= '0' && s[j] <= '9')
            j++;
        bool frac = j < n && (s[j] == '.' || s[j] == 'e' || s[j] == 'E');
        if (!frac && j - i < 64) {
            char num[64];
            memcpy(num, s + i, j - i);
            num[j - i] = '\0';
            errno = 0;
            char *end;
            (void)strtoll(num, &end, 10);
            if (errno == ERANGE)
                return rj_fail(r, "integer %s is out of range (64-bit "
                               "signed)", num);
        } else if (!frac) {
            return rj_fail(r, "integer %.20s… is out of range (64-bit "
                           "signed)", s + i);
        }
        while (j < n && ((s[j] >= '0' && s[j] <= '9') || s[j] == '.' ||
                         s[j] == 'e' || s[j] == 'E' || s[j] == '+' ||
                         s[j] == '-'))
            j++;
        i = j - 1;
    }
    return BOX_OK;
}

static const char *
jtype(json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_null:
        return "null";
    case json_type_boolean:
        return "a boolean";
    case json_type_double:
        return "a number";
    case json_type_int:
        return "an integer";
    case json_type_object:
        return "an object";
    case json_type_array:
        return "an array";
    case json_type_string:
        return "a string";
    }
    return "?";
}

/* The members of o must all be in names (NULL-terminated). */
static box_err
rj_members(rj *r, json_object *o, const char *const *names)
{
    json_object_object_foreach(o, key, val) {
        (void)val;
        bool ok = false;
        for (size_t i = 0; names[i] != NULL && !ok; i++)
            ok = strcmp(key, names[i]) == 0;
        if (!ok) {
            box_buf list;
            box_buf_init(&list, 512);
            for (size_t i = 0; names[i] != NULL; i++)
                if (box_buf_printf(&list, "%s%s", i ? ", " : "", names[i]) !=
                    BOX_OK)
                    break;
            box_err rv = rj_fail(r, "unknown member \"%s\" (expected %s)", key,
                                 list.b_data ? list.b_data : "");
            box_buf_reset(&list);
            return rv;
        }
    }
    return BOX_OK;
}

static box_err
rj_string(rj *r, json_object *o, const char **s, size_t *n)
{
    if (!json_object_is_type(o, json_type_string))
        return rj_fail(r, "expected a string, found %s", jtype(o));
    *s = json_object_get_string(o);
    *n = (size_t)json_object_get_string_len(o);
    return BOX_OK;
}

box_err
pdp_reqjson_integers(const char *text, size_t len, box_buf *err)
{
    rj r = {.r_err = err};
    return rj_check_integers(&r, text, len);
}

box_err
pdp_reqjson_uid(const char *text, size_t len, box_arena *a,
                const pdp_value **out)
{
    box_buf err, path;
    box_buf_init(&err, 1024);
    box_buf_init(&path, 4096);
    pdp_lex lx;
    box_err rv = pdp_lex_init(&lx, text, len, "uid", &err);
    pdp_value *v = NULL;
    while (rv == BOX_OK && lx.lx_tok.t_kind == PDP_TK_IDENT) {
        if ((rv = box_buf_append(&path, lx.lx_tok.t_text, lx.lx_tok.t_len)) !=
                BOX_OK ||
            (rv = pdp_lex_next(&lx)) != BOX_OK)
            break;
        if (lx.lx_tok.t_kind != PDP_TK_DCOLON) {
            rv = BOX_EINVAL;
            break;
        }
        if ((rv = pdp_lex_next(&lx)) != BOX_OK)
            break;
        if (lx.lx_tok.t_kind == PDP_TK_STR) {
            pdp_token id = lx.lx_tok;
            char *s;
            size_t n;
            if ((rv = pdp_lex_string(&lx, &id, a, false, &s, &n, NULL)) !=
                    BOX_OK ||
                (rv = pdp_lex_next(&lx)) != BOX_OK)
                break;
            if (lx.lx_tok.t_kind != PDP_TK_EOF) {
                rv = BOX_EINVAL;
                break;
            }
            rv = pdp_value_entity(a, path.b_data, path.b_len, s, n, &v);
            break;
        }
        if ((rv = box_buf_puts(&path, "::")) != BOX_OK)
            break;
    }
    box_buf_reset(&err);
    box_buf_reset(&path);
    if (rv == BOX_OK && v == NULL)
        rv = BOX_EINVAL;
    if (rv == BOX_EPARSE)
        rv = BOX_EINVAL;
    if (rv == BOX_OK)
        *out = v;
    return rv;
}

/* An entity from {"type": …, "id": …}. */
static box_err
rj_entity_fields(rj *r, json_object *o, const pdp_value **out)
{
    static const char *const names[] = {"type", "id", NULL};
    json_object *t, *id;
    box_err rv;
    if (!json_object_is_type(o, json_type_object))
        return rj_fail(r, "expected {\"type\": …, \"id\": …}, found %s",
                       jtype(o));
    if ((rv = rj_members(r, o, names)) != BOX_OK)
        return rv;
    if (!json_object_object_get_ex(o, "type", &t) ||
        !json_object_object_get_ex(o, "id", &id))
        return rj_fail(r, "an entity needs both \"type\" and \"id\"");
    const char *ts = NULL, *is = NULL;
    size_t tn = 0, in = 0;
    if ((rv = rj_string(r, t, &ts, &tn)) != BOX_OK ||
        (rv = rj_string(r, id, &is, &in)) != BOX_OK)
        return rv;
    pdp_value *v;
    rv = pdp_value_entity(r->r_a, ts, tn, is, in, &v);
    if (rv == BOX_EINVAL)
        return rj_fail(r, "\"%.*s\" is not an entity type (Ns::Type) or the "
                       "id is not UTF-8", (int)(tn > 200 ? 200 : tn), ts);
    if (rv == BOX_OK)
        *out = v;
    return rv;
}

/* A UID: the .dw spelling, {"type", "id"} or {"__entity": {…}}. */
static box_err
rj_uid(rj *r, json_object *o, const pdp_value **out)
{
    json_object *inner;
    if (json_object_is_type(o, json_type_string)) {
        const char *s = json_object_get_string(o);
        size_t n = (size_t)json_object_get_string_len(o);
        box_err rv = pdp_reqjson_uid(s, n, r->r_a, out);
        if (rv == BOX_EINVAL)
            return rj_fail(r, "\"%.*s\" is not an entity uid "
                           "(Ns::Type::\"id\")", (int)(n > 200 ? 200 : n), s);
        return rv;
    }
    if (json_object_is_type(o, json_type_object) &&
        json_object_object_length(o) == 1 &&
        json_object_object_get_ex(o, "__entity", &inner))
        return rj_entity_fields(r, inner, out);
    return rj_entity_fields(r, o, out);
}

static box_err rj_value(rj *r, json_object *o, unsigned depth,
                        const pdp_value **out);

static box_err
rj_extn(rj *r, json_object *o, const pdp_value **out)
{
    static const char *const names[] = {"fn", "arg", NULL};
    json_object *fn, *arg;
    box_err rv;
    if (!json_object_is_type(o, json_type_object))
        return rj_fail(r, "expected {\"fn\": …, \"arg\": …}, found %s",
                       jtype(o));
    if ((rv = rj_members(r, o, names)) != BOX_OK)
        return rv;
    if (!json_object_object_get_ex(o, "fn", &fn) ||
        !json_object_object_get_ex(o, "arg", &arg))
        return rj_fail(r, "an extension value needs both \"fn\" and \"arg\"");
    const char *fs = NULL, *as = NULL;
    size_t fnl = 0, an = 0;
    if ((rv = rj_string(r, fn, &fs, &fnl)) != BOX_OK ||
        (rv = rj_string(r, arg, &as, &an)) != BOX_OK)
        return rv;
    pdp_method m;
    if (!pdp_ext_lookup(fs, fnl, PDP_XS_FUNCTION, &m))
        return rj_fail(r, "unknown extension function \"%.*s\" (expected "
                       "decimal, ip, datetime or duration)",
                       (int)(fnl > 100 ? 100 : fnl), fs);
    char msg[PDP_EXT_MSG_MAX + 128];
    rv = pdp_ext_construct(m, as, an, r->r_a, out, msg, sizeof msg);
    if (rv == BOX_EINVAL)
        return rj_fail(r, "%s", msg);
    return rv;
}

static box_err
rj_record(rj *r, json_object *o, unsigned depth, const pdp_value **out)
{
    pdp_value *rec = pdp_value_record_new(r->r_a);
    if (rec == NULL)
        return BOX_ENOMEM;
    json_object_object_foreach(o, key, val) {
        size_t was = rj_push(r, key, 0);
        const pdp_value *v;
        box_err rv = rj_value(r, val, depth + 1, &v);
        if (rv == BOX_OK) {
            rv = pdp_value_record_put(r->r_a, rec, key, strlen(key), v);
            if (rv == BOX_EINVAL)
                rv = rj_fail(r, "the member name is not UTF-8");
            else if (rv == BOX_ETOOBIG)
                rv = rj_fail(r, "more than %d members",
                             PDP_VALUE_MAX_FIELDS);
        }
        if (rv != BOX_OK)
            return rv;
        rj_pop(r, was);
    }
    *out = rec;
    return BOX_OK;
}

static box_err
rj_value(rj *r, json_object *o, unsigned depth, const pdp_value **out)
{
    json_object *inner;
    pdp_value *v = NULL;
    box_err rv;
    if (depth > PDP_VALUE_MAX_DEPTH)
        return rj_fail(r, "nests deeper than %d levels", PDP_VALUE_MAX_DEPTH);
    switch (json_object_get_type(o)) {
    case json_type_null:
        return rj_fail(r, "null is not a Cedar value");
    case json_type_boolean:
        v = pdp_value_bool(r->r_a, json_object_get_boolean(o));
        break;
    case json_type_int:
        v = pdp_value_long(r->r_a, json_object_get_int64(o));
        break;
    case json_type_double:
        return rj_fail(r, "%s is not a Cedar value (a Long is an integer; "
                       "write a decimal as {\"__extn\": {\"fn\": \"decimal\", "
                       "\"arg\": \"1.5\"}})", json_object_to_json_string(o));
    case json_type_string:
        rv = pdp_value_string(r->r_a, json_object_get_string(o),
                              (size_t)json_object_get_string_len(o), &v);
        if (rv == BOX_EINVAL)
            return rj_fail(r, "the string is not UTF-8");
        if (rv != BOX_OK)
            return rv;
        break;
    case json_type_array: {
        size_t n = json_object_array_length(o);
        if ((v = pdp_value_set_new(r->r_a)) == NULL)
            return BOX_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            size_t was = rj_push(r, NULL, i);
            const pdp_value *e;
            if ((rv = rj_value(r, json_object_array_get_idx(o, i), depth + 1,
                               &e)) != BOX_OK)
                return rv;
            if ((rv = pdp_value_set_add(r->r_a, v, e)) != BOX_OK)
                return rv == BOX_ETOOBIG
                           ? rj_fail(r, "more than %d elements",
                                     PDP_VALUE_MAX_ITEMS)
                           : rv;
            rj_pop(r, was);
        }
        break;
    }
    case json_type_object:
        if (json_object_object_length(o) == 1 &&
            json_object_object_get_ex(o, "__entity", &inner))
            return rj_entity_fields(r, inner, out);
        if (json_object_object_length(o) == 1 &&
            json_object_object_get_ex(o, "__extn", &inner))
            return rj_extn(r, inner, out);
        return rj_record(r, o, depth, out);
    }
    if (v == NULL)
        return BOX_ENOMEM;
    *out = v;
    return BOX_OK;
}

/* A record-valued member (attrs, tags), or NULL when absent. */
static box_err
rj_record_member(rj *r, json_object *o, const char *name,
                 const pdp_value **out)
{
    json_object *m;
    *out = NULL;
    if (!json_object_object_get_ex(o, name, &m))
        return BOX_OK;
    size_t was = rj_push(r, name, 0);
    if (!json_object_is_type(m, json_type_object))
        return rj_fail(r, "expected an object, found %s", jtype(m));
    box_err rv = rj_value(r, m, 1, out);
    if (rv == BOX_OK && pdp_value_kind_of(*out) != PDP_VAL_RECORD)
        rv = rj_fail(r, "expected a record, found an entity or an extension "
                     "value");
    if (rv == BOX_OK)
        rj_pop(r, was);
    return rv;
}

static box_err
rj_entities(rj *r, json_object *arr, pdp_entities *out)
{
    static const char *const names[] = {"uid", "attrs", "parents", "tags",
                                        NULL};
    if (!json_object_is_type(arr, json_type_array))
        return rj_fail(r, "expected an array of entities, found %s",
                       jtype(arr));
    size_t n = json_object_array_length(arr);
    if (n > PDP_VALUE_MAX_ITEMS)
        return rj_fail(r, "more than %d entities", PDP_VALUE_MAX_ITEMS);
    pdp_entity *es = box_arena_zalloc(r->r_a, (n + 1) * sizeof *es);
    if (es == NULL)
        return BOX_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(arr, i), *m;
        size_t was = rj_push(r, NULL, i);
        box_err rv;
        if (!json_object_is_type(e, json_type_object))
            return rj_fail(r, "expected an entity object, found %s",
                           jtype(e));
        if ((rv = rj_members(r, e, names)) != BOX_OK)
            return rv;
        if (!json_object_object_get_ex(e, "uid", &m))
            return rj_fail(r, "an entity needs a \"uid\"");
        size_t w2 = rj_push(r, "uid", 0);
        if ((rv = rj_uid(r, m, &es[i].et_uid)) != BOX_OK)
            return rv;
        rj_pop(r, w2);
        if ((rv = rj_record_member(r, e, "attrs", &es[i].et_attrs)) !=
                BOX_OK ||
            (rv = rj_record_member(r, e, "tags", &es[i].et_tags)) != BOX_OK)
            return rv;
        if (json_object_object_get_ex(e, "parents", &m)) {
            w2 = rj_push(r, "parents", 0);
            if (!json_object_is_type(m, json_type_array))
                return rj_fail(r, "expected an array of uids, found %s",
                               jtype(m));
            pdp_value *ps = pdp_value_set_new(r->r_a);
            if (ps == NULL)
                return BOX_ENOMEM;
            for (size_t j = 0; j < json_object_array_length(m); j++) {
                size_t w3 = rj_push(r, NULL, j);
                const pdp_value *p;
                if ((rv = rj_uid(r, json_object_array_get_idx(m, j), &p)) !=
                        BOX_OK ||
                    (rv = pdp_value_set_add(r->r_a, ps, p)) != BOX_OK)
                    return rv;
                rj_pop(r, w3);
            }
            es[i].et_parents = ps;
            rj_pop(r, w2);
        }
        rj_pop(r, was);
    }
    out->es_items = es;
    out->es_n = n;
    return BOX_OK;
}

static box_err
rj_uid_member(rj *r, json_object *o, const char *name, const char *dtype,
              const char *did, const pdp_value **out)
{
    json_object *m;
    if (!json_object_object_get_ex(o, name, &m)) {
        if (dtype == NULL)
            return rj_fail(r, "the request needs \"%s\"", name);
        pdp_value *v;
        box_err rv = pdp_value_entity(r->r_a, dtype, strlen(dtype), did,
                                      strlen(did), &v);
        if (rv == BOX_OK)
            *out = v;
        return rv;
    }
    size_t was = rj_push(r, name, 0);
    box_err rv = rj_uid(r, m, out);
    if (rv == BOX_OK)
        rj_pop(r, was);
    return rv;
}

static box_err
rj_request(rj *r, json_object *o, pdp_reqjson *out)
{
    static const char *const names[] = {
        "principal", "action", "resource", "context", "resource_text",
        "entities",  "ts",     NULL};
    json_object *m;
    box_err rv;
    if (!json_object_is_type(o, json_type_object))
        return rj_fail(r, "a request is a JSON object, found %s", jtype(o));
    if ((rv = rj_members(r, o, names)) != BOX_OK ||
        (rv = rj_uid_member(r, o, "principal", "Box::Agent", "self",
                            &out->rj_principal)) != BOX_OK ||
        (rv = rj_uid_member(r, o, "action", NULL, NULL, &out->rj_action)) !=
            BOX_OK ||
        (rv = rj_uid_member(r, o, "resource", "Box::Resource", "unused",
                            &out->rj_resource)) != BOX_OK)
        return rv;
    if (json_object_object_get_ex(o, "context", &m)) {
        size_t was = rj_push(r, "context", 0);
        if (!json_object_is_type(m, json_type_object))
            return rj_fail(r, "expected an object, found %s", jtype(m));
        if ((rv = rj_value(r, m, 1, &out->rj_context)) != BOX_OK)
            return rv;
        if (pdp_value_kind_of(out->rj_context) != PDP_VAL_RECORD)
            return rj_fail(r, "expected a record, found an entity or an "
                           "extension value");
        rj_pop(r, was);
    } else if ((out->rj_context = pdp_value_record_new(r->r_a)) == NULL) {
        return BOX_ENOMEM;
    }
    out->rj_resource_text = "";
    if (json_object_object_get_ex(o, "resource_text", &m)) {
        size_t was = rj_push(r, "resource_text", 0);
        const char *s = NULL;
        size_t n = 0;
        if ((rv = rj_string(r, m, &s, &n)) != BOX_OK)
            return rv;
        if ((out->rj_resource_text = box_arena_strndup(r->r_a, s, n)) == NULL)
            return BOX_ENOMEM;
        out->rj_resource_len = n;
        rj_pop(r, was);
    }
    if (json_object_object_get_ex(o, "entities", &m)) {
        size_t was = rj_push(r, "entities", 0);
        if ((rv = rj_entities(r, m, &out->rj_entities)) != BOX_OK)
            return rv;
        rj_pop(r, was);
    }
    if (json_object_object_get_ex(o, "ts", &m)) {
        size_t was = rj_push(r, "ts", 0);
        if (!json_object_is_type(m, json_type_int))
            return rj_fail(r, "expected an integer (seconds), found %s",
                           jtype(m));
        out->rj_has_ts = true;
        out->rj_ts = json_object_get_int64(m);
        rj_pop(r, was);
    }
    return BOX_OK;
}

box_err
pdp_reqjson_parse(const char *text, size_t len, box_arena *a,
                  pdp_reqjson *out, box_buf *err)
{
    rj r = {.r_a = a, .r_err = err};
    memset(out, 0, sizeof *out);
    if (len > PDP_REQJSON_MAX_BYTES)
        return BOX_ETOOBIG;
    box_err rv = rj_check_integers(&r, text, len);
    if (rv != BOX_OK)
        return rv;
    json_tokener *tok = json_tokener_new_ex(RJ_JSON_DEPTH);
    if (tok == NULL)
        return BOX_ENOMEM;
    json_object *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    while (root != NULL && end < len &&
           (text[end] == ' ' || text[end] == '\t' || text[end] == '\r' ||
            text[end] == '\n'))
        end++;
    if (root == NULL || jerr != json_tokener_success || end != len) {
        const char *why = jerr == json_tokener_continue
                              ? "the text ends inside it"
                          : jerr != json_tokener_success
                              ? json_tokener_error_desc(jerr)
                              : "text after it";
        rv = rj_fail(&r, "not one JSON object: %s (byte %zu)", why, end);
    } else {
        rv = rj_request(&r, root, out);
    }
    json_object_put(root);
    json_tokener_free(tok);
    return rv;
}
