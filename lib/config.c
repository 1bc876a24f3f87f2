/* SPDX-License-Identifier: Apache-2.0 */
/* Loads box.toml: parse, decode, then check the contract (box-spec §5). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "config_int.h"
#include "config_reach.h"
#include "toml.h"

/*
 * Three passes, in the order the reference loader (serde + validate) runs
 * them, so the first error a file reports is the one it would report there:
 *   1. TOML parse (toml.c);
 *   2. decode: every key known (in source order), every type right,
 *      required keys present; errors carry line and column;
 *   3. validate: the contract's rules on the decoded values, in the order
 *      name, [agent], each [tool.NAME], each [egress.NAME], box_dir,
 *      policy.
 * The loader never touches the filesystem beyond reading the file itself;
 * box_config_check_paths does the rest on request.
 */

/* Messages may quote a whole string from the file, escaped (up to six
 * bytes for one), so their cap follows the input cap. */
#define CFG_MAX_MESSAGE (8u * TOML_MAX_INPUT)

struct box_config {
    char *bc_path;
    char *bc_name;
    char *bc_box_dir;
    char *bc_policy; // resolved; NULL when absent
    box_config_process *bc_agent;
    box_config_process *bc_tools;
    size_t bc_ntools;
    cfg_egress_set *bc_egress; // NULL when the file has no `egress` key
};

/* ORDER CFG_TOP */
static const char *const top_fields[TOP_COUNT + 1] = {
    "name",   "box_dir", "policy",    "agent", "tool",
    "egress", "mcp",     "telemetry", NULL,
};

/* ORDER CFG_PROC */
enum cfg_proc {
    PROC_COMMAND,
    PROC_WORKSPACE,
    PROC_ENV,
    PROC_FILESYSTEM,
    PROC_NETWORK,
    PROC_SHELLS,
    PROC_COUNT
};

static const char *const process_fields[PROC_COUNT + 1] = {
    "command", "workspace", "env", "filesystem", "network", "shells", NULL,
};

/* ORDER BOX_SHELLS */
static const char *const shells_names[] = {"all", "path-only", NULL};

static const char *const network_fields[] = {"contain_egress", NULL};

/* ORDER BOX_GRANT */
static const char *const grant_keys[BOX_GRANT_COUNT + 1] = {
    [BOX_GRANT_READ] = "read",
    [BOX_GRANT_WRITE] = "write",
    [BOX_GRANT_READ_FILE] = "read_file",
    [BOX_GRANT_WRITE_FILE] = "write_file",
    [BOX_GRANT_LIST] = "list",
    [BOX_GRANT_METADATA] = "metadata",
    [BOX_GRANT_EXEC] = "exec",
    [BOX_GRANT_DENY] = "deny",
    [BOX_GRANT_COUNT] = NULL,
};

/* Names the box sets in every process's environment, so a table may not. */
static const char *const env_box_owned[] = {
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "NO_PROXY",
    "no_proxy",
    "SSL_CERT_FILE",
    "NODE_EXTRA_CA_CERTS",
    "NODE_USE_ENV_PROXY",
    "CODEX_CA_CERTIFICATE",
    "AWS_CA_BUNDLE",
    "REQUESTS_CA_BUNDLE",
    "GIT_SSL_CAINFO",
    "PWD",
    "USER",
    NULL,
};

/* Names that make a runtime load code before the workload's first line. */
static const char *const env_loader_hooks[] = {
    "NODE_OPTIONS",      "BASH_ENV",      "ENV",      "RUBYOPT",
    "PERL5LIB",          "PERL5OPT",      "GEM_PATH", "CLASSPATH",
    "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", NULL,
};

/* Whole families, by prefix: loader hooks, and the box's OTLP exporter. */
static const char *const env_reserved_prefixes[] = {
    "LD_", "DYLD_", "PYTHON", "OTEL_EXPORTER_OTLP_", NULL,
};

/* ---- messages ---- */

void
cx_drop_quotes(cfg_ctx *cx)
{
    for (size_t i = 0; i < cx->cx_nquotes; i++)
        box_free(cx->cx_quotes[i]);
    cx->cx_nquotes = 0;
}

static box_err
cx_vfail(cfg_ctx *cx, box_err rv, const char *prefix_fmt, toml_pos *at,
         const char *fmt, va_list ap)
{
    box_buf b;
    box_err brv = BOX_OK;
    box_buf_init(&b, CFG_MAX_MESSAGE);
    if (cx->cx_msg != NULL)
        goto out;
    if (cx->cx_nomem) {
        rv = BOX_ENOMEM;
        goto out;
    }
    if (prefix_fmt != NULL)
        brv = box_buf_printf(&b, prefix_fmt, cx->cx_path, (unsigned)at->line,
                             (unsigned)at->column);
    if (brv == BOX_OK)
        brv = box_buf_vprintf(&b, fmt, ap);
    if (brv == BOX_OK)
        cx->cx_msg = box_buf_take(&b);
    if (cx->cx_msg == NULL)
        rv = BOX_ENOMEM;
out:
    box_buf_reset(&b);
    cx_drop_quotes(cx);
    return rv;
}

box_err
cx_fail(cfg_ctx *cx, box_err rv, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rv = cx_vfail(cx, rv, NULL, NULL, fmt, ap);
    va_end(ap);
    return rv;
}

box_err
cx_parse_fail(cfg_ctx *cx, toml_pos at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    box_err rv = cx_vfail(
        cx, BOX_EPARSE,
        "cannot parse config file %s: line %u, column %u: ", &at, fmt, ap);
    va_end(ap);
    return rv;
}

/* Decodes one UTF-8 character at s (the text was validated by the TOML
 * parser, or is ours); returns its length. */
static size_t
utf8_decode(const char *s, size_t len, uint32_t *cp)
{
    unsigned char c = (unsigned char)s[0];
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n > len)
        n = 1;
    if (n == 1) {
        *cp = c;
        return 1;
    }
    uint32_t v = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++)
        v = (v << 6) | ((unsigned char)s[i] & 0x3F);
    *cp = v;
    return n;
}

static bool
is_control_cp(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

/* Appends one character the way Rust's `{:?}` escapes it inside quote q
 * (`"` for a str, `'` for a char). */
static box_err
put_debug_char(box_buf *b, const char *s, size_t n, uint32_t cp, char q)
{
    switch (cp) {
    case '\t':
        return box_buf_puts(b, "\\t");
    case '\r':
        return box_buf_puts(b, "\\r");
    case '\n':
        return box_buf_puts(b, "\\n");
    case '\\':
        return box_buf_puts(b, "\\\\");
    case '\0':
        return box_buf_puts(b, "\\0");
    default:
        break;
    }
    if (cp == (uint32_t)q)
        return box_buf_printf(b, "\\%c", q);
    if (is_control_cp(cp))
        return box_buf_printf(b, "\\u{%x}", (unsigned)cp);
    return box_buf_append(b, s, n);
}

/* s as Rust's `{:?}` shows a str: "a\tb". Owned by cx until the next
 * message; "" (and cx_nomem set) when it cannot be built. */
const char *
cx_quote(cfg_ctx *cx, const char *s, size_t len)
{
    box_buf b;
    box_err rv = BOX_OK;
    box_buf_init(&b, CFG_MAX_MESSAGE);
    if (cx->cx_nquotes == CFG_MAX_QUOTES) {
        cx->cx_nomem = true;
        return "";
    }
    rv = box_buf_putc(&b, '"');
    for (size_t i = 0; i < len && rv == BOX_OK;) {
        uint32_t cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        rv = put_debug_char(&b, s + i, n, cp, '"');
        i += n;
    }
    if (rv == BOX_OK)
        rv = box_buf_putc(&b, '"');
    char *q = rv == BOX_OK ? box_buf_take(&b) : NULL;
    box_buf_reset(&b);
    if (q == NULL) {
        cx->cx_nomem = true;
        return "";
    }
    cx->cx_quotes[cx->cx_nquotes++] = q;
    return q;
}

/* One character as Rust's `{:?}` shows a char: '/', '\t', '\u{1b}'. */
static const char *
cx_quote_char(cfg_ctx *cx, const char *s, size_t n, uint32_t cp)
{
    box_buf b;
    box_buf_init(&b, 64);
    box_err rv = box_buf_putc(&b, '\'');
    if (rv == BOX_OK)
        rv = put_debug_char(&b, s, n, cp, '\'');
    if (rv == BOX_OK)
        rv = box_buf_putc(&b, '\'');
    char *q = rv == BOX_OK ? box_buf_take(&b) : NULL;
    box_buf_reset(&b);
    if (q == NULL || cx->cx_nquotes == CFG_MAX_QUOTES) {
        box_free(q);
        cx->cx_nomem = true;
        return "";
    }
    cx->cx_quotes[cx->cx_nquotes++] = q;
    return q;
}

/* s with control characters escaped and no quotes, for keys and labels
 * shown inside backticks. */
const char *
cx_plain(cfg_ctx *cx, const char *s, size_t len)
{
    const char *q = cx_quote(cx, s, len);
    if (cx->cx_nomem)
        return "";
    // Drop the quotes again: only the control-character escapes matter
    // here; an escaped `"` keeps its backslash, which is still readable.
    char *p = cx->cx_quotes[cx->cx_nquotes - 1];
    size_t n = strlen(q);
    memmove(p, p + 1, n - 2);
    p[n - 2] = '\0';
    return p;
}

/* ---- decode ---- */

int
cfg_field_index(const char *const *fields, const char *key, size_t len)
{
    for (int i = 0; fields[i] != NULL; i++)
        if (strlen(fields[i]) == len && memcmp(fields[i], key, len) == 0)
            return i;
    return -1;
}

/* serde's list of what it expected: `a`, `a` or `b`, or one of `a`, `b`,
 * `c`. Owned by the caller; NULL when it cannot be built. */
static char *
expected_list(const char *const *names)
{
    box_buf b;
    box_err rv = BOX_OK;
    size_t n = 0;
    while (names[n] != NULL)
        n++;
    box_buf_init(&b, 4096);
    rv = box_buf_puts(&b, n > 2 ? "one of " : "");
    for (size_t k = 0; k < n && rv == BOX_OK; k++) {
        const char *sep = k == 0 ? "" : (n == 2 ? " or " : ", ");
        rv = box_buf_printf(&b, "%s`%s`", sep, names[k]);
    }
    char *list = rv == BOX_OK ? box_buf_take(&b) : NULL;
    box_buf_reset(&b);
    return list;
}

/* serde's "unknown field `x`, expected ..." at the key. */
box_err
cfg_unknown_field(cfg_ctx *cx, const toml_value *t, size_t i,
                  const char *const *fields)
{
    size_t klen;
    const char *key = toml_table_key(t, i, &klen);
    char *list = expected_list(fields);
    if (list == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    box_err rv = cx_parse_fail(cx, toml_table_key_pos(t, i),
                               "unknown field `%s`, expected %s",
                               cx_plain(cx, key, klen), list);
    box_free(list);
    return rv;
}

/* serde's "unknown variant `x`, expected ..." at the value, a string. */
static box_err
unknown_variant(cfg_ctx *cx, const toml_value *v, const char *const *names)
{
    size_t len;
    const char *s = toml_string(v, &len);
    char *list = expected_list(names);
    if (list == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    box_err rv = cx_parse_fail(cx, toml_value_pos(v),
                               "unknown variant `%s`, expected %s",
                               cx_plain(cx, s, len), list);
    box_free(list);
    return rv;
}

box_err
cfg_missing_field(cfg_ctx *cx, const toml_value *t, const char *field)
{
    return cx_parse_fail(cx, toml_value_pos(t), "missing field `%s`", field);
}

/* serde's "invalid type: <what was found>, expected <what>". */
box_err
cfg_invalid_type(cfg_ctx *cx, const toml_value *v, const char *expected)
{
    toml_pos at = toml_value_pos(v);
    switch (toml_value_kind(v)) {
    case TOML_STRING: {
        size_t full;
        const char *s = toml_string(v, &full);
        size_t len = full;
        if (len > 64) { // enough to recognise it
            len = 64;
            while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
                len--;
        }
        bool cut = len < full;
        return cx_parse_fail(cx, at, "invalid type: string %s%s, expected %s",
                             cx_quote(cx, s, len), cut ? "..." : "", expected);
    }
    case TOML_INTEGER:
        return cx_parse_fail(cx, at,
                             "invalid type: integer `%lld`, expected %s",
                             (long long)toml_integer(v), expected);
    case TOML_BOOL:
        return cx_parse_fail(cx, at, "invalid type: boolean `%s`, expected %s",
                             toml_bool(v) ? "true" : "false", expected);
    case TOML_ARRAY:
        return cx_parse_fail(cx, at, "invalid type: array, expected %s",
                             expected);
    case TOML_TABLE:
        break;
    }
    return cx_parse_fail(cx, at, "invalid type: table, expected %s", expected);
}

/* A string the box will use as a C string (path, name, argument, env). */
box_err
cfg_decode_string(cfg_ctx *cx, const toml_value *v, char **out)
{
    if (toml_value_kind(v) != TOML_STRING)
        return cfg_invalid_type(cx, v, "a string");
    size_t len;
    const char *s = toml_string(v, &len);
    if (memchr(s, '\0', len) != NULL)
        return cx_parse_fail(cx, toml_value_pos(v),
                             "invalid value: string %s holds a NUL "
                             "character, which no path, name, argument or "
                             "variable can carry",
                             cx_quote(cx, s, len));
    if ((*out = box_strndup(s, len)) == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    return BOX_OK;
}

/* A unit enum spelled as a string: *out is the index of v in names. */
box_err
cfg_decode_variant(cfg_ctx *cx, const toml_value *v, const char *const *names,
                   int *out)
{
    if (toml_value_kind(v) != TOML_STRING)
        return cfg_invalid_type(cx, v, "a string");
    size_t len;
    const char *s = toml_string(v, &len);
    if ((*out = cfg_field_index(names, s, len)) < 0)
        return unknown_variant(cx, v, names);
    return BOX_OK;
}

void
cfg_strv_free(box_config_strv *sv)
{
    for (size_t i = 0; i < sv->sv_len; i++)
        box_free(sv->sv_items[i]);
    box_free(sv->sv_items);
    sv->sv_items = NULL;
    sv->sv_len = 0;
}

/* string-array -> '[' { string } ']' */
box_err
cfg_decode_strv(cfg_ctx *cx, const toml_value *v, box_config_strv *out)
{
    if (toml_value_kind(v) != TOML_ARRAY)
        return cfg_invalid_type(cx, v, "an array of strings");
    size_t n = toml_array_len(v); // at most TOML_MAX_ARRAY_LEN
    cfg_strv_free(out);           // a repeated key cannot reach here
    if ((out->sv_items = box_calloc(n + 1, sizeof(char *))) == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        box_err rv =
            cfg_decode_string(cx, toml_array_at(v, i), &out->sv_items[i]);
        if (rv != BOX_OK)
            return rv; // the items so far are freed with the record
        out->sv_len++;
    }
    return BOX_OK;
}

static void
process_clear(box_config_process *p)
{
    box_free(p->pr_table);
    box_free(p->pr_label);
    cfg_strv_free(&p->pr_command);
    box_free(p->pr_workspace);
    for (size_t i = 0; i < p->pr_nenv; i++) {
        box_free(p->pr_env[i].ev_name);
        box_free(p->pr_env[i].ev_value);
    }
    box_free(p->pr_env);
    for (int g = 0; g < BOX_GRANT_COUNT; g++)
        cfg_strv_free(&p->pr_fs[g]);
    memset(p, 0, sizeof(*p));
}

bool
cfg_valid_env_name(const char *s, size_t len)
{
    if (len == 0 || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') ||
                      (s[0] >= 'a' && s[0] <= 'z')))
        return false;
    for (size_t i = 1; i < len; i++) {
        char c = s[i];
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9')))
            return false;
    }
    return true;
}

static box_err
env_invalid_name(cfg_ctx *cx, const box_config_process *p, const char *name,
                 size_t len)
{
    return cx_fail(cx, BOX_ECONFIG,
                   "invalid `%s` table: `env` name %s is not a valid "
                   "environment-variable name",
                   p->pr_table, cx_quote(cx, name, len));
}

/* env -> table of string = string */
static box_err
decode_env(cfg_ctx *cx, const toml_value *v, box_config_process *p)
{
    if (toml_value_kind(v) != TOML_TABLE)
        return cfg_invalid_type(cx, v, "a table of strings");
    size_t n = toml_table_len(v);
    if ((p->pr_env = box_calloc(n, sizeof(*p->pr_env))) == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t klen;
        const char *key = toml_table_key(v, i, &klen);
        // A NUL would cut the C string short and change the name, so it
        // is refused now; every other name is judged in validation.
        if (memchr(key, '\0', klen) != NULL)
            return env_invalid_name(cx, p, key, klen);
        box_config_envvar *ev = &p->pr_env[p->pr_nenv];
        box_err rv = cfg_decode_string(cx, toml_table_at(v, i), &ev->ev_value);
        if (rv != BOX_OK)
            return rv;
        if ((ev->ev_name = box_strndup(key, klen)) == NULL) {
            box_free(ev->ev_value);
            ev->ev_value = NULL;
            return cx_fail(cx, BOX_ENOMEM, "out of memory");
        }
        p->pr_nenv++;
    }
    return BOX_OK;
}

/* The reference loader names a list a tool no longer takes, and what
 * replaced it, rather than calling it unknown. Only `metadata` is such a
 * list: a tool's `exec` names the programs it may run besides its own
 * command (box-spec §5 as amended by issue 17 item 9). */
static box_err
removed_tool_list(cfg_ctx *cx, box_config_grant g)
{
    const char *key = grant_keys[g];
    const char *why = "a tool tests existence and reads metadata across the "
                      "operator home by default";
    return cx_fail(cx, BOX_ECONFIG,
                   "%s carries `[tool.<name>.filesystem] %s`, which this "
                   "build does not read; write nothing \xe2\x80\x94 %s, so it "
                   "states no `%s` list; only `[agent.filesystem]` takes "
                   "`%s` instead. Edit the configuration, or select an "
                   "empty `box_dir` to rebuild a stored record",
                   cx->cx_path, key, why, key, key);
}

/* filesystem -> table of list-name = string-array */
static box_err
decode_filesystem(cfg_ctx *cx, const toml_value *v, box_config_process *p)
{
    if (toml_value_kind(v) != TOML_TABLE)
        return cfg_invalid_type(cx, v, "a table");
    for (size_t i = 0; i < toml_table_len(v); i++) {
        size_t klen;
        const char *key = toml_table_key(v, i, &klen);
        int g = cfg_field_index(grant_keys, key, klen);
        if (g < 0)
            return cfg_unknown_field(cx, v, i, grant_keys);
        if (p->pr_label != NULL && g == BOX_GRANT_METADATA)
            return removed_tool_list(cx, (box_config_grant)g);
        box_err rv = cfg_decode_strv(cx, toml_table_at(v, i), &p->pr_fs[g]);
        if (rv != BOX_OK)
            return rv;
    }
    return BOX_OK;
}

/* network -> { contain_egress = bool } */
static box_err
decode_network(cfg_ctx *cx, const toml_value *v, box_config_process *p)
{
    if (toml_value_kind(v) != TOML_TABLE)
        return cfg_invalid_type(cx, v, "a table");
    p->pr_network = true;
    for (size_t i = 0; i < toml_table_len(v); i++) {
        size_t klen;
        const char *key = toml_table_key(v, i, &klen);
        if (cfg_field_index(network_fields, key, klen) < 0)
            return cfg_unknown_field(cx, v, i, network_fields);
        const toml_value *b = toml_table_at(v, i);
        if (toml_value_kind(b) != TOML_BOOL)
            return cfg_invalid_type(cx, b, "a boolean");
        p->pr_contain_egress = toml_bool(b);
    }
    return BOX_OK;
}

/* process -> table of command, workspace, env, filesystem, network
 * p->pr_table and p->pr_label are set by the caller. */
static box_err
decode_process(cfg_ctx *cx, const toml_value *v, box_config_process *p)
{
    bool have_command = false;
    box_err rv = BOX_OK;
    if (toml_value_kind(v) != TOML_TABLE)
        return cfg_invalid_type(cx, v, "a table");
    p->pr_contain_egress = true;
    p->pr_shells = BOX_SHELLS_ALL;
    for (size_t i = 0; i < toml_table_len(v) && rv == BOX_OK; i++) {
        size_t klen;
        const char *key = toml_table_key(v, i, &klen);
        const toml_value *f = toml_table_at(v, i);
        switch (cfg_field_index(process_fields, key, klen)) {
        case PROC_COMMAND:
            rv = cfg_decode_strv(cx, f, &p->pr_command);
            have_command = true;
            break;
        case PROC_WORKSPACE:
            rv = cfg_decode_string(cx, f, &p->pr_workspace);
            break;
        case PROC_ENV:
            rv = decode_env(cx, f, p);
            break;
        case PROC_FILESYSTEM:
            rv = decode_filesystem(cx, f, p);
            break;
        case PROC_NETWORK:
            rv = decode_network(cx, f, p);
            break;
        case PROC_SHELLS: {
            int k = 0;
            if ((rv = cfg_decode_variant(cx, f, shells_names, &k)) == BOX_OK) {
                p->pr_shells = (box_config_shells)k;
                p->pr_shells_set = true;
            }
            break;
        }
        default:
            rv = cfg_unknown_field(cx, v, i, process_fields);
            break;
        }
    }
    if (rv == BOX_OK && !have_command)
        rv = cfg_missing_field(cx, v, "command");
    return rv;
}

/* tool -> table of NAME = process */
static box_err
decode_tools(cfg_ctx *cx, const toml_value *v, box_config *c)
{
    if (toml_value_kind(v) != TOML_TABLE)
        return cfg_invalid_type(cx, v, "a table");
    size_t n = toml_table_len(v);
    if ((c->bc_tools = box_calloc(n, sizeof(*c->bc_tools))) == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t klen;
        const char *label = toml_table_key(v, i, &klen);
        box_config_process *p = &c->bc_tools[c->bc_ntools++];
        p->pr_table = box_asprintf("[tool.%s]", cx_plain(cx, label, klen));
        cx_drop_quotes(cx);
        p->pr_label = box_strndup(label, klen);
        if (cx->cx_nomem || p->pr_table == NULL || p->pr_label == NULL)
            return cx_fail(cx, BOX_ENOMEM, "out of memory");
        // A NUL would shorten the label as a C string; refuse it now with
        // the message validation gives any label outside the rules.
        if (memchr(label, '\0', klen) != NULL)
            return cx_fail(cx, BOX_ECONFIG, "invalid `%s` table: %s",
                           p->pr_table, CFG_LABEL_RULE);
        box_err rv = decode_process(cx, toml_table_at(v, i), p);
        if (rv != BOX_OK)
            return rv;
    }
    return BOX_OK;
}

/* box.toml -> table of the eight top-level keys */
static box_err
decode_top(cfg_ctx *cx, const toml_value *root, box_config *c)
{
    box_err rv = BOX_OK;
    for (size_t i = 0; i < toml_table_len(root) && rv == BOX_OK; i++) {
        size_t klen;
        const char *key = toml_table_key(root, i, &klen);
        const toml_value *v = toml_table_at(root, i);
        int f = cfg_field_index(top_fields, key, klen);
        if (f < 0)
            return cfg_unknown_field(cx, root, i, top_fields);
        cx->cx_section[f] = true;
        switch (f) {
        case TOP_NAME:
            rv = cfg_decode_string(cx, v, &c->bc_name);
            break;
        case TOP_BOX_DIR:
            rv = cfg_decode_string(cx, v, &c->bc_box_dir);
            break;
        case TOP_POLICY:
            rv = cfg_decode_string(cx, v, &c->bc_policy);
            break;
        case TOP_AGENT:
            if ((c->bc_agent = box_calloc(1, sizeof(*c->bc_agent))) == NULL ||
                (c->bc_agent->pr_table = box_strdup("[agent]")) == NULL)
                return cx_fail(cx, BOX_ENOMEM, "out of memory");
            rv = decode_process(cx, v, c->bc_agent);
            break;
        case TOP_TOOL:
            rv = decode_tools(cx, v, c);
            break;
        case TOP_EGRESS:
            rv = cfg_egress_decode(cx, v, &c->bc_egress);
            break;
        default: // mcp, telemetry: refused after decoding
            break;
        }
    }
    if (rv != BOX_OK)
        return rv;
    if (c->bc_name == NULL)
        return cfg_missing_field(cx, root, "name");
    if (c->bc_box_dir == NULL)
        return cfg_missing_field(cx, root, "box_dir");
    for (int f = TOP_MCP; f <= TOP_TELEMETRY; f++)
        if (cx->cx_section[f])
            return cx_fail(cx, BOX_ENOTSUP, "`[%s]` is not supported yet",
                           top_fields[f]);
    return BOX_OK;
}

/* ---- validate ---- */

static bool
nameable(uint32_t cp)
{
    return (cp >= 'A' && cp <= 'Z') || (cp >= 'a' && cp <= 'z') ||
           (cp >= '0' && cp <= '9') || cp == '.' || cp == '_' || cp == '-';
}

/* The first character outside [A-Za-z0-9._-], or NULL. */
static const char *
first_unnameable(const char *s, size_t *n, uint32_t *cp)
{
    size_t len = strlen(s);
    for (size_t i = 0; i < len; i += *n) {
        *n = utf8_decode(s + i, len - i, cp);
        if (!nameable(*cp))
            return s + i;
    }
    return NULL;
}

/* name -> one path component of [A-Za-z0-9._-], 1..32 bytes, not . or .. */
static box_err
validate_name(cfg_ctx *cx, const char *name)
{
    size_t len = strlen(name);
    const char *reason;
    char *own = NULL;
    size_t n;
    uint32_t cp;
    const char *bad;
    if (len == 0) {
        reason = "it is empty";
    } else if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        reason = "it names a relative directory";
    } else if (len > BOX_CONFIG_MAX_NAME) {
        own = box_asprintf("it is %zu bytes; a name may be at most %d, so it "
                           "stays one readable label in a record and in "
                           "telemetry",
                           len, BOX_CONFIG_MAX_NAME);
        if ((reason = own) == NULL)
            return cx_fail(cx, BOX_ENOMEM, "out of memory");
    } else if ((bad = first_unnameable(name, &n, &cp)) != NULL) {
        own = box_asprintf("it contains %s", cx_quote_char(cx, bad, n, cp));
        if ((reason = own) == NULL)
            return cx_fail(cx, BOX_ENOMEM, "out of memory");
    } else {
        return BOX_OK;
    }
    box_err rv = cx_fail(cx, BOX_ECONFIG,
                         "box name %s is invalid: %s; use one component of "
                         "letters, digits, '.', '_', or '-'",
                         cx_quote(cx, name, len), reason);
    box_free(own);
    return rv;
}

/* label -> one component of [A-Za-z0-9._-], not . or .. (no length cap) */
bool
cfg_valid_label(const char *l)
{
    size_t n;
    uint32_t cp;
    return l[0] != '\0' && strcmp(l, ".") != 0 && strcmp(l, "..") != 0 &&
           first_unnameable(l, &n, &cp) == NULL;
}

static box_err
validate_label(cfg_ctx *cx, const box_config_process *p)
{
    if (cfg_valid_label(p->pr_label))
        return BOX_OK;
    return cx_fail(cx, BOX_ECONFIG, "invalid `%s` table: %s", p->pr_table,
                   CFG_LABEL_RULE);
}

/* How many components Rust's Path::components yields for a relative path:
 * empty parts and `.` vanish, except a `.` that starts the path. */
static size_t
path_components(const char *s)
{
    size_t n = 0;
    const char *p = s;
    while (*p != '\0') {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && !(len == 1 && *p == '.' && p != s))
            n++;
        if (e == NULL)
            break;
        p = e + 1;
    }
    return n;
}

static bool
has_dotdot(const char *s)
{
    for (const char *p = s;;) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.')
            return true;
        if (e == NULL)
            return false;
        p = e + 1;
    }
}

/* The path as Rust compares paths: by components, so `/a//b/`, `/a/./b`
 * and `/a/b` are one path. The caller frees it; NULL on failure. */
static char *
path_normal(const char *s)
{
    size_t len = strlen(s);
    char *out = box_alloc(len + 1);
    if (out == NULL)
        return NULL;
    size_t o = 0;
    if (s[0] == '/')
        out[o++] = '/';
    for (const char *p = s; *p != '\0';) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n > 0 && !(n == 1 && *p == '.' && p != s)) {
            if (o > 0 && out[o - 1] != '/')
                out[o++] = '/';
            memcpy(out + o, p, n);
            o += n;
        }
        if (e == NULL)
            break;
        p = e + 1;
    }
    out[o] = '\0';
    return out;
}

static box_err
entry_refused(cfg_ctx *cx, const box_config_process *p, const char *entry,
              const char *reason)
{
    return cx_fail(cx, BOX_ECONFIG, "`%s` filesystem entry %s is refused: %s",
                   p->pr_table, cx_quote(cx, entry, strlen(entry)), reason);
}

/* entry -> ( '/' | '~' | '~/' ) path, exact (no pattern or control
 * character) and without a `..` component. */
static box_err
validate_entry_spelling(cfg_ctx *cx, const box_config_process *p,
                        box_config_grant g, const char *entry)
{
    const char *key = grant_keys[g];
    char *reason = NULL;
    size_t len = strlen(entry);
    box_err rv;
    if (len == 0) {
        reason = box_asprintf("`filesystem.%s` path is empty", key);
        goto refuse;
    }
    for (size_t i = 0, n; i < len; i += n) {
        uint32_t cp;
        n = utf8_decode(entry + i, len - i, &cp);
        if (is_control_cp(cp)) {
            const char *q = cx_quote_char(cx, entry + i, n, cp);
            reason = box_asprintf("`filesystem.%s` path contains the control "
                                  "character %s; a path must be exact",
                                  key, q);
            goto refuse;
        }
        if (cp != 0 && cp < 0x80 && strchr("*?[]{}", (int)cp) != NULL) {
            reason = box_asprintf("`filesystem.%s` path contains the pattern "
                                  "character '%c'; a path must be exact, "
                                  "never a pattern",
                                  key, (char)cp);
            goto refuse;
        }
    }
    if (!(strcmp(entry, "~") == 0 || strncmp(entry, "~/", 2) == 0 ||
          entry[0] == '/')) {
        reason = box_asprintf("`filesystem.%s` path must be absolute or start "
                              "with `~/`, so a checked-in configuration "
                              "holds in every clone",
                              key);
        goto refuse;
    }
    if (has_dotdot(entry)) {
        reason = box_asprintf("`filesystem.%s` path carries `..`; name the "
                              "path it means",
                              key);
        goto refuse;
    }
    return BOX_OK;
refuse:
    if (reason == NULL || cx->cx_nomem) {
        box_free(reason);
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    }
    rv = entry_refused(cx, p, entry, reason);
    box_free(reason);
    return rv;
}

/* One list: every entry well spelled, and no path listed twice. */
static box_err
validate_list(cfg_ctx *cx, const box_config_process *p, box_config_grant g)
{
    const box_config_strv *l = &p->pr_fs[g];
    char **norm = NULL;
    box_err rv = BOX_OK;
    if ((norm = box_calloc(l->sv_len, sizeof(char *))) == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    for (size_t i = 0; i < l->sv_len; i++) {
        const char *entry = l->sv_items[i];
        if ((rv = validate_entry_spelling(cx, p, g, entry)) != BOX_OK)
            goto out;
        if ((norm[i] = path_normal(entry)) == NULL) {
            rv = cx_fail(cx, BOX_ENOMEM, "out of memory");
            goto out;
        }
        // Quadratic, but a list holds at most TOML_MAX_ARRAY_LEN entries.
        for (size_t j = 0; j < i; j++) {
            if (strcmp(norm[j], norm[i]) != 0)
                continue;
            char *reason = box_asprintf(
                "`filesystem.%s` already lists %s", grant_keys[g],
                cx_quote(cx, l->sv_items[j], strlen(l->sv_items[j])));
            if (reason == NULL || cx->cx_nomem)
                rv = cx_fail(cx, BOX_ENOMEM, "out of memory");
            else
                rv = entry_refused(cx, p, entry, reason);
            box_free(reason);
            goto out;
        }
    }
out:
    for (size_t i = 0; i < l->sv_len; i++)
        box_free(norm[i]);
    box_free(norm);
    return rv;
}

bool
cfg_env_reserved(const char *name)
{
    for (size_t i = 0; env_reserved_prefixes[i] != NULL; i++)
        if (strncmp(name, env_reserved_prefixes[i],
                    strlen(env_reserved_prefixes[i])) == 0)
            return true;
    for (size_t i = 0; env_loader_hooks[i] != NULL; i++)
        if (strcmp(name, env_loader_hooks[i]) == 0)
            return true;
    for (size_t i = 0; env_box_owned[i] != NULL; i++)
        if (strcmp(name, env_box_owned[i]) == 0)
            return true;
    return false;
}

/* The ProcessSpec rules, in the reference order: network (agent), shells
 * (tools), command, workspace, env names, HOME and TMPDIR, then the eight
 * lists. */
static box_err
validate_process(cfg_ctx *cx, const box_config_process *p)
{
    const char *t = p->pr_table;
    box_err rv;
    if (p->pr_label == NULL && p->pr_network)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: `network` is refused on "
                       "`[agent]`: the agent always reaches the network "
                       "through the egress gateway, and only a "
                       "`[tool.<name>]` or a stdio `[mcp.<name>]` takes "
                       "`network.contain_egress`",
                       t);
    // A tool's leaf keeps the host's shells (box-spec §1: a tool's bash
    // is the host's, inside the tool's sandbox); only the agent's sandbox
    // has the box's alias over them.
    if (p->pr_label != NULL && p->pr_shells_set)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: `shells` is refused on "
                       "`[tool.<name>]`: a tool runs the host's own shells "
                       "inside its sandbox, and only `[agent]` takes "
                       "`shells` (\"all\" or \"path-only\")",
                       t);
    if (p->pr_command.sv_len == 0)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: `command` must name a program as "
                       "its first entry",
                       t);
    const char *prog = p->pr_command.sv_items[0];
    if (prog[0] == '\0')
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: `command` element 0 is empty", t);
    if (prog[0] != '/' && path_components(prog) > 1)
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: `command` element 0 %s is a "
                       "relative path; write an absolute path, or a bare "
                       "name that `env.PATH` resolves",
                       t, cx_quote(cx, prog, strlen(prog)));
    if (p->pr_workspace != NULL && p->pr_workspace[0] != '/')
        return cx_fail(cx, BOX_ECONFIG,
                       "invalid `%s` table: `workspace` must be absolute: %s",
                       t, p->pr_workspace);
    for (size_t i = 0; i < p->pr_nenv; i++) {
        const char *name = p->pr_env[i].ev_name;
        if (!cfg_valid_env_name(name, strlen(name)))
            return env_invalid_name(cx, p, name, strlen(name));
        if (cfg_env_reserved(name))
            return cx_fail(cx, BOX_ECONFIG,
                           "invalid `%s` table: `env` name %s is set by the "
                           "box itself, so a table cannot claim it",
                           t, cx_quote(cx, name, strlen(name)));
    }
    static const char *const absolute_env[] = {"HOME", "TMPDIR"};
    for (size_t k = 0; k < 2; k++) {
        for (size_t i = 0; i < p->pr_nenv; i++) {
            const box_config_envvar *ev = &p->pr_env[i];
            if (strcmp(ev->ev_name, absolute_env[k]) != 0 ||
                ev->ev_value[0] == '/')
                continue;
            return cx_fail(cx, BOX_ECONFIG,
                           "invalid `%s` table: `env.%s` must be an absolute "
                           "path: %s",
                           t, absolute_env[k],
                           cx_quote(cx, ev->ev_value, strlen(ev->ev_value)));
        }
    }
    for (int g = 0; g < BOX_GRANT_COUNT; g++)
        if ((rv = validate_list(cx, p, (box_config_grant)g)) != BOX_OK)
            return rv;
    return BOX_OK;
}

/* policy -> absolute as written, else joined to the config's directory. */
static box_err
resolve_policy(cfg_ctx *cx, box_config *c)
{
    if (c->bc_policy == NULL || c->bc_policy[0] == '/')
        return BOX_OK;
    if (c->bc_policy[0] == '\0')
        return cx_fail(cx, BOX_ECONFIG,
                       "`policy` is empty; name the policy file, or leave "
                       "the key out so the box denies everything");
    const char *slash = strrchr(c->bc_path, '/');
    size_t dirlen = slash ? (size_t)(slash - c->bc_path) : 0;
    char *joined =
        box_asprintf("%.*s/%s", (int)dirlen, c->bc_path, c->bc_policy);
    if (joined == NULL)
        return cx_fail(cx, BOX_ENOMEM, "out of memory");
    box_free(c->bc_policy);
    c->bc_policy = joined;
    return BOX_OK;
}

static box_err
validate(cfg_ctx *cx, box_config *c)
{
    box_err rv;
    if ((rv = validate_name(cx, c->bc_name)) != BOX_OK)
        return rv;
    if (c->bc_agent != NULL &&
        (rv = validate_process(cx, c->bc_agent)) != BOX_OK)
        return rv;
    for (size_t i = 0; i < c->bc_ntools; i++) {
        if ((rv = validate_label(cx, &c->bc_tools[i])) != BOX_OK ||
            (rv = validate_process(cx, &c->bc_tools[i])) != BOX_OK)
            return rv;
    }
    if (c->bc_egress != NULL &&
        (rv = cfg_egress_validate(cx, c->bc_egress)) != BOX_OK)
        return rv;
    if (c->bc_box_dir[0] != '/')
        return cx_fail(cx, BOX_ECONFIG, "`box_dir` must be absolute: %s",
                       c->bc_box_dir);
    return resolve_policy(cx, c);
}

/* ---- load ---- */

void
box_config_free(box_config *c)
{
    if (c == NULL)
        return;
    box_free(c->bc_path);
    box_free(c->bc_name);
    box_free(c->bc_box_dir);
    box_free(c->bc_policy);
    if (c->bc_agent != NULL)
        process_clear(c->bc_agent);
    box_free(c->bc_agent);
    for (size_t i = 0; i < c->bc_ntools; i++)
        process_clear(&c->bc_tools[i]);
    box_free(c->bc_tools);
    cfg_egress_free(c->bc_egress);
    box_free(c);
}

/* Hands the context's message to the caller; "out of memory" when there
 * is none (the only way a failure can lack one). */
static char *
cx_take_message(cfg_ctx *cx)
{
    char *m = cx->cx_msg;
    cx->cx_msg = NULL;
    cx_drop_quotes(cx);
    return m != NULL ? m : box_strdup("out of memory");
}

box_err
box_config_parse(const char *text, size_t len, const char *config_path,
                 box_config **out, char **err)
{
    cfg_ctx cx;
    box_config *c = NULL;
    toml_doc *doc = NULL;
    char *terr = NULL;
    box_err rv;

    if (out != NULL)
        *out = NULL;
    if (err != NULL)
        *err = NULL;
    if (text == NULL || config_path == NULL || out == NULL || err == NULL)
        return BOX_EINVAL;
    memset(&cx, 0, sizeof(cx));
    cx.cx_path = config_path;
    rv = BOX_ENOMEM;
    if ((c = box_calloc(1, sizeof(*c))) == NULL ||
        (c->bc_path = box_strdup(config_path)) == NULL)
        goto out;
    if ((rv = toml_parse(text, len, &doc, &terr)) != BOX_OK) {
        if (terr != NULL)
            rv = cx_fail(&cx, rv, "cannot parse config file %s: %s",
                         config_path, terr);
        goto out;
    }
    if ((rv = decode_top(&cx, toml_root(doc), c)) != BOX_OK)
        goto out;
    if ((rv = validate(&cx, c)) != BOX_OK)
        goto out;
    *out = c;
    c = NULL;
out:
    if (rv != BOX_OK)
        *err = cx_take_message(&cx);
    box_free(cx.cx_msg);
    cx_drop_quotes(&cx);
    box_free(terr);
    toml_free(doc);
    box_config_free(c);
    return rv;
}

/* Reads at most TOML_MAX_INPUT bytes of fd; EFBIG past that. */
static int
read_capped(int fd, char **out, size_t *len)
{
    box_buf b;
    char chunk[8192];
    box_buf_init(&b, TOML_MAX_INPUT);
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            box_buf_reset(&b);
            return e;
        }
        if (n == 0)
            break;
        box_err rv = box_buf_append(&b, chunk, (size_t)n);
        if (rv != BOX_OK) {
            box_buf_reset(&b);
            return rv == BOX_ETOOBIG ? EFBIG : ENOMEM;
        }
    }
    *len = b.b_len;
    if ((*out = box_buf_take(&b)) == NULL)
        return ENOMEM;
    return 0;
}

box_err
box_config_load(const char *path, box_config **out, char **err)
{
    cfg_ctx cx;
    char canon[PATH_MAX];
    char *text = NULL;
    size_t len = 0;
    int fd = -1;
    box_err rv;
    struct stat st;

    if (out != NULL)
        *out = NULL;
    if (err != NULL)
        *err = NULL;
    if (path == NULL || out == NULL || err == NULL)
        return BOX_EINVAL;
    memset(&cx, 0, sizeof(cx));
    cx.cx_path = path;
    if (realpath(path, canon) == NULL) {
        rv = cx_fail(&cx, BOX_EIO, "cannot read config file %s: %s", path,
                     strerror(errno));
        goto out;
    }
    // O_NONBLOCK so a FIFO cannot stall the open; it is refused below.
    fd = open(canon, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 || fstat(fd, &st) != 0) {
        rv = cx_fail(&cx, BOX_EIO, "cannot read config file %s: %s", canon,
                     strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rv = cx_fail(&cx, BOX_ECONFIG,
                     "configuration source %s is not a regular file", canon);
        goto out;
    }
    if (st.st_nlink != 1) {
        rv = cx_fail(&cx, BOX_ECONFIG,
                     "configuration source %s has more than one filesystem "
                     "name",
                     canon);
        goto out;
    }
    int e = read_capped(fd, &text, &len);
    if (e != 0) {
        rv = cx_fail(&cx, e == ENOMEM ? BOX_ENOMEM : BOX_EIO,
                     "cannot read config file %s: %s", canon, strerror(e));
        goto out;
    }
    rv = box_config_parse(text, len, canon, out, err);
out:
    if (rv != BOX_OK && *err == NULL)
        *err = cx_take_message(&cx);
    box_free(cx.cx_msg);
    box_free(text);
    if (fd >= 0)
        close(fd);
    return rv;
}

/* ---- accessors ---- */

const char *
box_config_path(const box_config *c)
{
    return c->bc_path;
}

const char *
box_config_name(const box_config *c)
{
    return c->bc_name;
}

const char *
box_config_box_dir(const box_config *c)
{
    return c->bc_box_dir;
}

const char *
box_config_policy(const box_config *c)
{
    return c->bc_policy;
}

const box_config_process *
box_config_agent(const box_config *c)
{
    return c->bc_agent;
}

size_t
box_config_tool_count(const box_config *c)
{
    return c->bc_ntools;
}

const box_config_process *
box_config_tool(const box_config *c, size_t i)
{
    return i < c->bc_ntools ? &c->bc_tools[i] : NULL;
}

const box_config_process *
box_config_tool_find(const box_config *c, const char *label)
{
    for (size_t i = 0; i < c->bc_ntools; i++)
        if (strcmp(c->bc_tools[i].pr_label, label) == 0)
            return &c->bc_tools[i];
    return NULL;
}

size_t
box_config_egress_count(const box_config *c)
{
    return c->bc_egress != NULL ? cfg_egress_count(c->bc_egress) : 0;
}

const box_config_egress *
box_config_egress_get(const box_config *c, size_t i)
{
    return c->bc_egress != NULL ? cfg_egress_get(c->bc_egress, i) : NULL;
}

const char *
box_config_grant_key(box_config_grant g)
{
    if ((int)g < 0 || g >= BOX_GRANT_COUNT)
        return "unknown";
    return grant_keys[g];
}

/* ---- filesystem checks ---- */

/* Joins the canonical home and the rest of a `~` entry. */
static char *
expand_home(const char *home, const char *entry)
{
    if (strcmp(entry, "~") == 0)
        return box_strdup(home);
    if (strcmp(home, "/") == 0)
        return box_strdup(entry + 1);
    return box_asprintf("%s%s", home, entry + 1);
}

/* box_dir -> exists, or its parent is a directory it can be created in */
static box_err
check_box_dir(cfg_ctx *cx, const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cx_fail(cx, BOX_ECONFIG, "box path is not a directory: %s",
                           dir);
        return BOX_OK;
    }
    int e = errno;
    if (e == ENOENT) {
        size_t len = strlen(dir);
        while (len > 1 && dir[len - 1] == '/')
            len--;
        while (len > 0 && dir[len - 1] != '/')
            len--;
        while (len > 1 && dir[len - 1] == '/')
            len--;
        char *parent = box_strndup(dir, len);
        if (parent == NULL)
            return cx_fail(cx, BOX_ENOMEM, "out of memory");
        if (stat(parent, &st) != 0)
            e = errno;
        else if (!S_ISDIR(st.st_mode))
            e = ENOTDIR;
        else
            e = 0;
        box_free(parent);
        if (e == 0)
            return BOX_OK;
    }
    return cx_fail(cx, BOX_ECONFIG, "cannot create box directory %s: %s", dir,
                   strerror(e));
}

/* workspace -> an existing directory that is not the operator's home */
static box_err
check_workspace(cfg_ctx *cx, const char *ws, const struct stat *home)
{
    char resolved[PATH_MAX];
    struct stat st;
    if (realpath(ws, resolved) == NULL)
        return cx_fail(cx, BOX_ECONFIG,
                       "cannot settle the project this box belongs to: "
                       "cannot resolve %s: %s",
                       ws, strerror(errno));
    if (stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode))
        return cx_fail(cx, BOX_ECONFIG,
                       "cannot settle the project this box belongs to: %s is "
                       "not a directory",
                       resolved);
    if (st.st_dev == home->st_dev && st.st_ino == home->st_ino)
        return cx_fail(cx, BOX_ECONFIG,
                       "cannot settle the project this box belongs to: %s is "
                       "the operator's home, which is not a workspace: a "
                       "policy scoped to it would permit writes across every "
                       "harness's stored credentials, and the box would not "
                       "start. Make a directory for the workspace and work "
                       "there",
                       ws);
    return BOX_OK;
}

/* The reason an entry's path is refused, or NULL (and *rv BOX_OK) when it
 * passes; *rv is BOX_ENOMEM when the reason cannot be built. */
static char *
entry_path_reason(box_config_grant g, const char *lexical, box_err *rv)
{
    struct stat st;
    char resolved[PATH_MAX];
    char *r = NULL;
    *rv = BOX_OK;
    if (lstat(lexical, &st) != 0) {
        if (g == BOX_GRANT_DENY)
            r = box_asprintf("%s does not exist yet, and the Linux namespace "
                             "backend cannot refuse a path that is not "
                             "there; create it first, or deny an existing "
                             "directory above it",
                             lexical);
        else
            r = box_asprintf("%s is not there: %s. A grant on a path that "
                             "does not exist grants nothing and says so "
                             "nowhere",
                             lexical, strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
        r = box_asprintf("%s is a symbolic link. A grant carries the "
                         "identity the kernel checks, so a link renders a "
                         "rule that matches nothing; name what it points at",
                         lexical);
    } else if (g == BOX_GRANT_DENY) {
        return NULL; // a deny needs no more than to be there
    } else if (realpath(lexical, resolved) == NULL) {
        r = box_asprintf("cannot resolve %s: %s", lexical, strerror(errno));
    } else if (strcmp(resolved, lexical) != 0) {
        r = box_asprintf("%s is not the path the kernel checks, which is %s. "
                         "A grant carries the identity it acts on, so name "
                         "that path instead",
                         lexical, resolved);
    } else if ((g == BOX_GRANT_READ_FILE || g == BOX_GRANT_WRITE_FILE) &&
               S_ISDIR(st.st_mode)) {
        r = box_asprintf("%s is a directory; `%s` names one file, and a tree "
                         "belongs in `%s`",
                         resolved, grant_keys[g],
                         g == BOX_GRANT_READ_FILE ? "read" : "write");
    } else if (g == BOX_GRANT_LIST && !S_ISDIR(st.st_mode)) {
        r = box_asprintf("%s is a file, and `list` enumerates a directory "
                         "tree",
                         resolved);
    } else if (g == BOX_GRANT_METADATA && !S_ISDIR(st.st_mode)) {
        r = box_asprintf("%s is a file, and a file's metadata comes with the "
                         "`read_file` or `exec` grant that names it",
                         resolved);
    } else if (g == BOX_GRANT_EXEC && !S_ISDIR(st.st_mode) &&
               !(S_ISREG(st.st_mode) && (st.st_mode & 0111) != 0)) {
        r = box_asprintf("%s is not an executable regular file", resolved);
    } else {
        return NULL;
    }
    if (r == NULL)
        *rv = BOX_ENOMEM;
    return r;
}

/* Every entry of one table: its path (entry_path_reason), then what it
 * reaches (config_reach.c), one entry at a time in contract order. */
static box_err
check_process_entries(cfg_ctx *cx, const box_config_process *p,
                      const char *home, const cfg_reach *reach)
{
    for (int g = 0; g < BOX_GRANT_COUNT; g++) {
        const box_config_strv *l = &p->pr_fs[g];
        for (size_t i = 0; i < l->sv_len; i++) {
            const char *entry = l->sv_items[i];
            char *lexical =
                entry[0] == '~' ? expand_home(home, entry) : box_strdup(entry);
            if (lexical == NULL)
                return cx_fail(cx, BOX_ENOMEM, "out of memory");
            box_err rv;
            char *reason = entry_path_reason((box_config_grant)g, lexical, &rv);
            // The path is canonical and there once it passes.
            if (rv == BOX_OK && reason == NULL)
                reason =
                    cfg_reach_reason(reach, (box_config_grant)g, lexical, &rv);
            box_free(lexical);
            if (rv != BOX_OK)
                return cx_fail(cx, rv, "out of memory");
            if (reason == NULL)
                continue;
            rv = entry_refused(cx, p, entry, reason);
            box_free(reason);
            return rv;
        }
    }
    return BOX_OK;
}

box_err
box_config_check_paths(const box_config *c, const char *home,
                       const char *programs, char **err)
{
    cfg_ctx cx;
    char home_canon[PATH_MAX];
    struct stat home_st;
    cfg_reach *reach = NULL;
    char *why = NULL;
    box_err rv;

    if (err != NULL)
        *err = NULL;
    if (c == NULL || err == NULL)
        return BOX_EINVAL;
    memset(&cx, 0, sizeof(cx));
    cx.cx_path = c->bc_path;
    if (home == NULL || home[0] == '\0') {
        rv = cx_fail(&cx, BOX_ECONFIG, "HOME is not set");
        goto out;
    }
    if (realpath(home, home_canon) == NULL || stat(home_canon, &home_st) != 0) {
        rv = cx_fail(&cx, BOX_ECONFIG,
                     "cannot resolve the operator's home %s: %s", home,
                     strerror(errno));
        goto out;
    }
    if ((rv = check_box_dir(&cx, c->bc_box_dir)) != BOX_OK)
        goto out;
    if (c->bc_agent != NULL && c->bc_agent->pr_workspace != NULL &&
        (rv = check_workspace(&cx, c->bc_agent->pr_workspace, &home_st)) !=
            BOX_OK)
        goto out;
    for (size_t i = 0; i < c->bc_ntools; i++)
        if (c->bc_tools[i].pr_workspace != NULL &&
            (rv = check_workspace(&cx, c->bc_tools[i].pr_workspace,
                                  &home_st)) != BOX_OK)
            goto out;
    if ((rv = cfg_reach_open(c->bc_path, c->bc_policy, c->bc_box_dir, programs, &reach,
                             &why)) != BOX_OK) {
        rv = cx_fail(&cx, rv, "%s", why != NULL ? why : "out of memory");
        goto out;
    }
    // Every table that starts a process: the agent, then each tool
    // (`[mcp.*]` joins here when the loader accepts it).
    if (c->bc_agent != NULL &&
        (rv = check_process_entries(&cx, c->bc_agent, home_canon, reach)) !=
            BOX_OK)
        goto out;
    for (size_t i = 0; i < c->bc_ntools; i++)
        if ((rv = check_process_entries(&cx, &c->bc_tools[i], home_canon,
                                        reach)) != BOX_OK)
            goto out;
    rv = BOX_OK;
out:
    if (rv != BOX_OK)
        *err = cx_take_message(&cx);
    box_free(cx.cx_msg);
    box_free(why);
    cfg_reach_free(reach);
    return rv;
}
