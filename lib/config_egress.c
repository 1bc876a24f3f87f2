/* SPDX-License-Identifier: Apache-2.0 */
/* `[egress.NAME]` tables of box.toml: decode, validate, default (§5). */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "box_alloc.h"
#include "box_dest.h"
#include "config_int.h"

/*
 * An `[egress.NAME]` table binds a credential to the destinations it may
 * reach. The decoder reads it the serde way (config.c's helpers and
 * messages); validation then holds it to the contract, and only after
 * every rule has passed are the defaults filled in, so a default can never
 * hide a refusal. `secret.ref` is never shown in a message: a file that
 * writes a literal secret there must not have it echoed to a terminal or
 * a log.
 */

/* ORDER EG_FIELD */
enum eg_field { EG_DESTINATIONS, EG_PROTOCOL, EG_SECRET };
static const char *const egress_fields[] = {
    "destinations",
    "protocol",
    "secret",
    NULL,
};

/* ORDER EG_SECRET */
enum eg_secret {
    SEC_REF,
    SEC_PLACEMENT,
    SEC_HEADER,
    SEC_PREFIX,
    SEC_PARAM,
    SEC_INJECT,
    SEC_PHANTOM_PREFIX
};
static const char *const secret_fields[] = {
    "ref",   "placement", "header",         "prefix",
    "param", "inject",    "phantom_prefix", NULL,
};

/* The `protocol` spellings; "mcp" decodes, so validation can say where
 * such a server goes. */
enum eg_protocol { PROTO_HTTP, PROTO_MCP };
static const char *const protocol_names[] = {"http", "mcp", NULL};

/* ORDER box_config_placement */
static const char *const placement_names[] = {
    [BOX_PLACE_HEADER] = "header",
    [BOX_PLACE_BASIC_AUTH] = "basic_auth",
    [BOX_PLACE_QUERY_PARAM] = "query_param",
    NULL,
};

enum eg_inject { INJECT_PHANTOM, INJECT_ALWAYS };
static const char *const inject_names[] = {"phantom", "always", NULL};

/* ORDER box_config_secret_kind */
static const char *const ref_schemes[] = {
    [BOX_SECRET_ENV] = "env://",
    [BOX_SECRET_AWS] = "aws://",
    [BOX_SECRET_CREDSD] = "credsd://",
};
static const char *const ref_needs[] = {
    [BOX_SECRET_ENV] = "env://NAME needs NAME to be a valid "
                       "environment-variable name",
    [BOX_SECRET_AWS] = "aws://PROFILE needs PROFILE to be one component of "
                       "letters, digits, '.', '_', or '-'",
    [BOX_SECRET_CREDSD] = "credsd://NAME needs NAME to be one component of "
                          "letters, digits, '.', '_', or '-'",
};

/* Names an env:// secret may not take besides cfg_env_reserved's: its
 * phantom would go into every process's environment under that name, and
 * the box sets these itself. */
static const char *const env_box_set[] = {"HOME", "PATH", NULL};
/* Where the placeholders of an aws:// or credsd:// secret go. */
static const char *const env_aws_placeholders[] = {
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    NULL,
};

#define EG_DEFAULT_HEADER "Authorization"
#define EG_DEFAULT_BEARER "Bearer "
#define EG_DEFAULT_PHANTOM_PREFIX "strands_box_"
#define EG_MAX_PHANTOM_PREFIX 64

#define EG_UNRESERVED_RULE "letters, digits, '.', '_', '~' or '-'"

typedef struct eg_entry {
    box_config_egress en_pub;
    bool en_mcp;      // protocol = "mcp"
    bool en_secret;   // a `secret` table was written
    char *en_ref;     // as written; never shown
    bool en_inject;   // secret.inject written
    box_dest *en_dst; // parsed in validation, one per destination
    size_t en_ndst;
} eg_entry;

struct cfg_egress_set {
    eg_entry *es_items;
    size_t es_len;
};

/* ---- decode ---- */

/* secret -> table of ref, placement, header, prefix, param, inject,
 * phantom_prefix */
static box_err
decode_secret(cfg_ctx *cx, const toml_value *v, eg_entry *e)
{
    box_config_egress *eg = &e->en_pub;
    box_err rv = BOX_OK;
    int k;
    if (toml_value_kind(v) != TOML_TABLE)
        return cfg_invalid_type(cx, v, "a table");
    e->en_secret = true;
    for (size_t i = 0; i < toml_table_len(v) && rv == BOX_OK; i++) {
        size_t klen;
        const char *key = toml_table_key(v, i, &klen);
        const toml_value *f = toml_table_at(v, i);
        switch (cfg_field_index(secret_fields, key, klen)) {
        case SEC_REF:
            rv = cfg_decode_string(cx, f, &e->en_ref);
            break;
        case SEC_PLACEMENT:
            if ((rv = cfg_decode_variant(cx, f, placement_names, &k)) == BOX_OK)
                eg->eg_placement = (box_config_placement)k;
            break;
        case SEC_HEADER:
            rv = cfg_decode_string(cx, f, &eg->eg_header);
            break;
        case SEC_PREFIX:
            rv = cfg_decode_string(cx, f, &eg->eg_prefix);
            break;
        case SEC_PARAM:
            rv = cfg_decode_string(cx, f, &eg->eg_param);
            break;
        case SEC_INJECT:
            if ((rv = cfg_decode_variant(cx, f, inject_names, &k)) == BOX_OK) {
                e->en_inject = true;
                eg->eg_always = k == INJECT_ALWAYS;
            }
            break;
        case SEC_PHANTOM_PREFIX:
            rv = cfg_decode_string(cx, f, &eg->eg_phantom_prefix);
            break;
        default:
            rv = cfg_unknown_field(cx, v, i, secret_fields);
            break;
        }
    }
    return rv;
}

/* egress-table -> table of destinations, protocol, secret */
static box_err
decode_entry(cfg_ctx *cx, const toml_value *v, eg_entry *e)
{
    bool have_destinations = false;
    box_err rv = BOX_OK;
    int k;
    if (toml_value_kind(v) != TOML_TABLE)
        return cfg_invalid_type(cx, v, "a table");
    for (size_t i = 0; i < toml_table_len(v) && rv == BOX_OK; i++) {
        size_t klen;
        const char *key = toml_table_key(v, i, &klen);
        const toml_value *f = toml_table_at(v, i);
        switch (cfg_field_index(egress_fields, key, klen)) {
        case EG_DESTINATIONS:
            rv = cfg_decode_strv(cx, f, &e->en_pub.eg_destinations);
            have_destinations = true;
            break;
        case EG_PROTOCOL:
            if ((rv = cfg_decode_variant(cx, f, protocol_names, &k)) == BOX_OK)
                e->en_mcp = k == PROTO_MCP;
            break;
        case EG_SECRET:
            rv = decode_secret(cx, f, e);
            break;
        default:
            rv = cfg_unknown_field(cx, v, i, egress_fields);
            break;
        }
    }
    if (rv == BOX_OK && !have_destinations)
        rv = cfg_missing_field(cx, v, "destinations");
    return rv;
}

box_err
cfg_egress_decode(cfg_ctx *cx, const toml_value *v, cfg_egress_set **out)
{
    cfg_egress_set *s;
    *out = NULL;
    if (toml_value_kind(v) != TOML_TABLE)
        return cfg_invalid_type(cx, v, "a table");
    size_t n = toml_table_len(v);
    if ((s = box_calloc(1, sizeof(*s))) == NULL ||
        (s->es_items = box_calloc(n, sizeof(*s->es_items))) == NULL) {
        box_free(s);
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    }
    *out = s;
    for (size_t i = 0; i < n; i++) {
        size_t klen;
        const char *label = toml_table_key(v, i, &klen);
        eg_entry *e = &s->es_items[s->es_len++];
        box_config_egress *eg = &e->en_pub;
        eg->eg_table = box_asprintf("[egress.%s]", cx_plain(cx, label, klen));
        cx_drop_quotes(cx);
        eg->eg_label = box_strndup(label, klen);
        if (cx->cx_nomem || eg->eg_table == NULL || eg->eg_label == NULL)
            return cx_fail(cx, BOX_ENOMEM, "out of memory");
        // A NUL would shorten the label as a C string; refused now with
        // the message validation gives any label outside the rules.
        if (memchr(label, '\0', klen) != NULL)
            return cx_fail(cx, BOX_ECONFIG, "invalid `%s` table: %s",
                           eg->eg_table, CFG_LABEL_RULE);
        box_err rv = decode_entry(cx, toml_table_at(v, i), e);
        if (rv != BOX_OK)
            return rv;
    }
    return BOX_OK;
}

/* ---- validate ---- */

static bool
in_list(const char *const *list, const char *s)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

/* [A-Za-z0-9._~-], RFC 3986's unreserved characters: safe in a query
 * name and in a token, with nothing to escape. */
static bool
unreserved(const char *s, size_t min, size_t max)
{
    size_t n = strlen(s);
    if (n < min || n > max)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '~' ||
              c == '-'))
            return false;
    }
    return true;
}

/* token -> 1* tchar (RFC 9110 §5.6.2): a header field name. */
static bool
http_token(const char *s)
{
    static const char extra[] = "!#$%&'*+-.^_`|~";
    if (s[0] == '\0')
        return false;
    for (const char *p = s; *p != '\0'; p++) {
        char c = *p;
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || strchr(extra, c) != NULL))
            return false;
    }
    return true;
}

/* A header value's prefix goes out as written: no control character (no
 * header splitting) and no brace (the gateway's placeholders use them). */
static bool
prefix_ok(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++)
        if (*p < 0x20 || *p == 0x7F || *p == '{' || *p == '}')
            return false;
    return true;
}

/* The scheme of ref (its index in ref_schemes) and *name after it; -1
 * for anything else, a literal secret included. */
static int
ref_kind(const char *ref, const char **name)
{
    for (size_t k = 0; k < sizeof(ref_schemes) / sizeof(ref_schemes[0]); k++) {
        size_t n = strlen(ref_schemes[k]);
        if (strncmp(ref, ref_schemes[k], n) == 0) {
            *name = ref + n;
            return (int)k;
        }
    }
    return -1;
}

/* Some table of the file, before or after this one, has an aws:// or a
 * credsd:// secret. */
static bool
has_aws_kind(const cfg_egress_set *s)
{
    const char *name;
    for (size_t i = 0; i < s->es_len; i++) {
        const char *ref = s->es_items[i].en_ref;
        int k = ref != NULL ? ref_kind(ref, &name) : -1;
        if (k == BOX_SECRET_AWS || k == BOX_SECRET_CREDSD)
            return true;
    }
    return false;
}

/* secret.ref -> env://NAME | aws://PROFILE | credsd://NAME */
static box_err
validate_ref(cfg_ctx *cx, const cfg_egress_set *s, eg_entry *e)
{
    box_config_egress *eg = &e->en_pub;
    const char *t = eg->eg_table;
    const char *name = NULL;
    int kind = ref_kind(e->en_ref, &name);
    if (kind < 0)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.ref must be env://NAME, "
                       "aws://PROFILE or credsd://NAME; a literal secret is "
                       "refused",
                       t);
    eg->eg_kind = (box_config_secret_kind)kind;
    bool ok = eg->eg_kind == BOX_SECRET_ENV
                  ? cfg_valid_env_name(name, strlen(name))
                  : cfg_valid_label(name);
    if (!ok)
        return cx_fail(cx, BOX_ECONFIG, "invalid `%s` table: secret.ref %s", t,
                       ref_needs[eg->eg_kind]);
    if (eg->eg_kind == BOX_SECRET_ENV &&
        (cfg_env_reserved(name) || in_list(env_box_set, name)))
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.ref names %s, which the "
                       "box sets itself, so a table cannot claim it",
                       t, cx_quote(cx, name, strlen(name)));
    if (eg->eg_kind == BOX_SECRET_ENV && in_list(env_aws_placeholders, name) &&
        has_aws_kind(s))
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.ref names %s, which holds "
                       "the placeholder of an aws:// or credsd:// secret",
                       t, cx_quote(cx, name, strlen(name)));
    if ((eg->eg_ref_name = box_strdup(name)) == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    return BOX_OK;
}

/* The secret's rules, after secret.ref: what only an env:// secret takes,
 * then each written string. */
static box_err
validate_secret(cfg_ctx *cx, const box_config_egress *eg, bool inject_set)
{
    const char *t = eg->eg_table;
    bool env = eg->eg_kind == BOX_SECRET_ENV;
    const char *place = placement_names[eg->eg_placement];
    if (!env && eg->eg_placement != BOX_PLACE_HEADER)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.placement \"%s\" needs an "
                       "env:// secret.ref",
                       t, place);
    if (eg->eg_placement == BOX_PLACE_QUERY_PARAM && eg->eg_param == NULL)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.placement \"query_param\" "
                       "needs secret.param",
                       t);
    if (eg->eg_placement != BOX_PLACE_QUERY_PARAM && eg->eg_param != NULL)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.param applies only to "
                       "secret.placement \"query_param\"",
                       t);
    if (!env && inject_set && eg->eg_always)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.inject \"always\" needs an "
                       "env:// secret.ref",
                       t);
    if (!env && eg->eg_phantom_prefix != NULL)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.phantom_prefix applies "
                       "only to an env:// secret.ref",
                       t);
    if (eg->eg_param != NULL && !unreserved(eg->eg_param, 1, SIZE_MAX))
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.param %s must be one or "
                       "more of " EG_UNRESERVED_RULE,
                       t, cx_quote(cx, eg->eg_param, strlen(eg->eg_param)));
    if (eg->eg_phantom_prefix != NULL &&
        !unreserved(eg->eg_phantom_prefix, 1, EG_MAX_PHANTOM_PREFIX))
        return cx_fail(
            cx, BOX_ECONFIG,
            "invalid `%s` table: secret.phantom_prefix %s must be "
            "1 to 64 of " EG_UNRESERVED_RULE,
            t,
            cx_quote(cx, eg->eg_phantom_prefix, strlen(eg->eg_phantom_prefix)));
    if (eg->eg_header != NULL && !http_token(eg->eg_header))
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.header %s is not an HTTP "
                       "field name",
                       t, cx_quote(cx, eg->eg_header, strlen(eg->eg_header)));
    if (eg->eg_prefix != NULL && !prefix_ok(eg->eg_prefix))
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: secret.prefix %s may hold no "
                       "control character, '{' or '}'",
                       t, cx_quote(cx, eg->eg_prefix, strlen(eg->eg_prefix)));
    return BOX_OK;
}

/* Each destination parsed, then held against those before it: in its own
 * table, then in every earlier table (a request names one credential at
 * most). */
static box_err
validate_destinations(cfg_ctx *cx, const cfg_egress_set *s, size_t at)
{
    eg_entry *e = &s->es_items[at];
    const box_config_strv *dv = &e->en_pub.eg_destinations;
    const char *t = e->en_pub.eg_table;
    if (dv->sv_len == 0)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: destinations is empty; name one "
                       "or more",
                       t);
    size_t before = 0;
    for (size_t k = 0; k < at; k++)
        before += s->es_items[k].en_ndst;
    if (dv->sv_len > BOX_CONFIG_MAX_DESTINATIONS - before)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: the file names more than %d "
                       "destinations in all, the most a box holds",
                       t, BOX_CONFIG_MAX_DESTINATIONS);
    if ((e->en_dst = box_calloc(dv->sv_len, sizeof(*e->en_dst))) == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    for (size_t i = 0; i < dv->sv_len; i++) {
        const char *text = dv->sv_items[i];
        const char *why = NULL;
        box_err rv = box_dest_parse(text, &e->en_dst[i], &why);
        if (rv == BOX_ENOMEM)
            return cx_fail(cx, BOX_ENOMEM, "out of memory");
        if (rv != BOX_OK)
            return cx_fail(cx, BOX_ECONFIG,
                           "invalid `%s` table: destination %s is refused: "
                           "%s",
                           t, cx_quote(cx, text, strlen(text)), why);
        e->en_ndst++;
        for (size_t j = 0; j < i; j++)
            if (box_dest_overlap(&e->en_dst[j], &e->en_dst[i]))
                return cx_fail(
                    cx, BOX_ECONFIG,
                    "invalid `%s` table: destinations %s and %s "
                    "overlap; a request may fall under one "
                    "destination at most",
                    t, cx_quote(cx, dv->sv_items[j], strlen(dv->sv_items[j])),
                    cx_quote(cx, text, strlen(text)));
        for (size_t k = 0; k < at; k++) {
            const eg_entry *o = &s->es_items[k];
            for (size_t j = 0; j < o->en_ndst; j++) {
                if (!box_dest_overlap(&o->en_dst[j], &e->en_dst[i]))
                    continue;
                const char *ot = o->en_pub.eg_destinations.sv_items[j];
                return cx_fail(cx, BOX_ECONFIG,
                               "invalid `%s` table: destination %s overlaps "
                               "%s of `%s`; a request may carry one "
                               "credential at most",
                               t, cx_quote(cx, text, strlen(text)),
                               cx_quote(cx, ot, strlen(ot)),
                               o->en_pub.eg_table);
            }
        }
    }
    return BOX_OK;
}

/* The defaults of box-spec §5, for what the table left out. */
static box_err
fill_defaults(cfg_ctx *cx, box_config_egress *eg)
{
    if (eg->eg_header == NULL &&
        (eg->eg_header = box_strdup(EG_DEFAULT_HEADER)) == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    if (eg->eg_prefix == NULL) {
        bool bearer = eg->eg_placement == BOX_PLACE_HEADER &&
                      strcasecmp(eg->eg_header, EG_DEFAULT_HEADER) == 0;
        if ((eg->eg_prefix = box_strdup(bearer ? EG_DEFAULT_BEARER : "")) ==
            NULL)
            return cx_fail(cx, BOX_ENOMEM, "out of memory");
    }
    if (eg->eg_phantom_prefix == NULL &&
        (eg->eg_phantom_prefix = box_strdup(EG_DEFAULT_PHANTOM_PREFIX)) == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    return BOX_OK;
}

/* egress-table rules, in order: label, protocol, destinations, secret. */
static box_err
validate_entry(cfg_ctx *cx, const cfg_egress_set *s, size_t at)
{
    eg_entry *e = &s->es_items[at];
    box_config_egress *eg = &e->en_pub;
    const char *t = eg->eg_table;
    box_err rv;
    if (!cfg_valid_label(eg->eg_label))
        return cx_fail(cx, BOX_ECONFIG, "invalid `%s` table: %s", t,
                       CFG_LABEL_RULE);
    if (e->en_mcp)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: protocol \"mcp\" is not an egress "
                       "protocol; use [mcp.%s] type = \"http\"",
                       t, eg->eg_label);
    if ((rv = validate_destinations(cx, s, at)) != BOX_OK)
        return rv;
    if (!e->en_secret || e->en_ref == NULL)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: an entry with no secret declares "
                       "only a destination, which policy already decides; "
                       "give it a secret, or set protocol = \"mcp\" for a "
                       "remote MCP server",
                       t);
    if ((rv = validate_ref(cx, s, e)) != BOX_OK ||
        (rv = validate_secret(cx, eg, e->en_inject)) != BOX_OK)
        return rv;
    return fill_defaults(cx, eg);
}

box_err
cfg_egress_validate(cfg_ctx *cx, cfg_egress_set *s)
{
    box_err rv;
    for (size_t i = 0; i < s->es_len; i++)
        if ((rv = validate_entry(cx, s, i)) != BOX_OK)
            return rv;
    return BOX_OK;
}

/* ---- the set ---- */

size_t
cfg_egress_count(const cfg_egress_set *s)
{
    return s->es_len;
}

const box_config_egress *
cfg_egress_get(const cfg_egress_set *s, size_t i)
{
    return i < s->es_len ? &s->es_items[i].en_pub : NULL;
}

void
cfg_egress_free(cfg_egress_set *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->es_len; i++) {
        eg_entry *e = &s->es_items[i];
        box_config_egress *eg = &e->en_pub;
        box_free(eg->eg_table);
        box_free(eg->eg_label);
        cfg_strv_free(&eg->eg_destinations);
        box_free(eg->eg_ref_name);
        box_free(eg->eg_header);
        box_free(eg->eg_prefix);
        box_free(eg->eg_param);
        box_free(eg->eg_phantom_prefix);
        box_free(e->en_ref);
        for (size_t j = 0; j < e->en_ndst; j++)
            box_dest_free(&e->en_dst[j]);
        box_free(e->en_dst);
    }
    box_free(s->es_items);
    box_free(s);
}
