/* SPDX-License-Identifier: Apache-2.0 */
/* Random Cedar cases: Box-shaped requests and policies that read them. */
#include "cd_gen.h"
#include "cd_gen_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * The generator writes policy text directly, one expression at a time,
 * each writer returning the precedence level of what it wrote so its
 * caller can parenthesize exactly where Cedar's grammar needs it (and,
 * now and then, where it does not). Operands are mostly "known": a path
 * into the request or a literal, whose value the generator has in hand,
 * so it can write the operand that makes `==` true, a `like` pattern
 * that matches, a `has` of an attribute that is there. A few percent of
 * operands are of a random kind instead of the one asked for, and a few
 * paths name an attribute that is absent: the type errors and missing
 * attributes the brief asks for.
 */

/* ---- text ---- */

void
putn(gen *g, box_buf *o, const char *s, size_t n)
{
    if (g->g_err == BOX_OK && n > 0)
        g->g_err = box_buf_append(o, s, n);
}

void
put(gen *g, box_buf *o, const char *s)
{
    putn(g, o, s, strlen(s));
}

void __attribute__((format(printf, 3, 4)))
putf(gen *g, box_buf *o, const char *fmt, ...)
{
    if (g->g_err != BOX_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    g->g_err = box_buf_vprintf(o, fmt, ap);
    va_end(ap);
}

/* The length of the UTF-8 character at s[0..n) (1 for a stray byte). */
size_t
u8len(const char *s, size_t n)
{
    unsigned char c = (unsigned char)s[0];
    size_t l = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return l <= n ? l : 1;
}

static uint32_t
u8code(const char *s, size_t l)
{
    const unsigned char *u = (const unsigned char *)s;
    if (l == 1)
        return u[0];
    if (l == 2)
        return (uint32_t)(u[0] & 0x1f) << 6 | (u[1] & 0x3f);
    if (l == 3)
        return (uint32_t)(u[0] & 0x0f) << 12 | (uint32_t)(u[1] & 0x3f) << 6 |
               (u[2] & 0x3f);
    return (uint32_t)(u[0] & 0x07) << 18 | (uint32_t)(u[1] & 0x3f) << 12 |
           (uint32_t)(u[2] & 0x3f) << 6 | (u[3] & 0x3f);
}

/*
 * One character of a Cedar string literal, escaped as Cedar reads it
 * (\n \r \t \\ \0 \' \" \u{…}); printable characters raw or, now and
 * then, as \u{…}. star: a literal `*` inside a `like` pattern (\*).
 */
void
put_char(gen *g, box_buf *o, const char *s, size_t l, bool star)
{
    uint32_t c = u8code(s, l);
    switch (c) {
    case '"':
        put(g, o, "\\\"");
        return;
    case '\\':
        put(g, o, "\\\\");
        return;
    case '\n':
        put(g, o, "\\n");
        return;
    case '\r':
        put(g, o, "\\r");
        return;
    case '\t':
        put(g, o, "\\t");
        return;
    case 0:
        put(g, o, "\\0");
        return;
    case '\'':
        put(g, o, chance(g, 50) ? "\\'" : "'");
        return;
    case '*':
        put(g, o, star ? "\\*" : "*");
        return;
    default:
        break;
    }
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && chance(g, 30)))
        putf(g, o, "\\u{%" PRIx32 "}", c);
    else
        putn(g, o, s, l);
}

void
put_str(gen *g, box_buf *o, const char *s, size_t n)
{
    put(g, o, "\"");
    for (size_t i = 0; i < n;) {
        size_t l = u8len(s + i, n - i);
        put_char(g, o, s + i, l, false);
        i += l;
    }
    put(g, o, "\"");
}

bool
is_ident(const char *k)
{
    static const char *const reserved[] = {"true", "false", "if", "then",
                                           "else", "in", "is", "like",
                                           "has", "__cedar"};
    if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_'))
        return false;
    for (const char *p = k; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    }
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        if (strcmp(k, reserved[i]) == 0)
            return false;
    }
    return true;
}

/* ---- values ---- */

static cd_val *
val_new(gen *g, cd_kind k)
{
    cd_val *v = box_arena_zalloc(g->g_a, sizeof(*v));
    if (v == NULL) {
        g->g_err = BOX_ENOMEM;
        return NULL;
    }
    v->k = k;
    return v;
}

const cd_val *
v_long(gen *g, int64_t l)
{
    cd_val *v = val_new(g, CD_LONG);
    if (v != NULL)
        v->l = l;
    return v;
}

const cd_val *
v_bool(gen *g, bool b)
{
    cd_val *v = val_new(g, CD_BOOL);
    if (v != NULL)
        v->b = b;
    return v;
}

const cd_val *
v_strn(gen *g, cd_kind k, const char *s, size_t n)
{
    cd_val *v = val_new(g, k);
    if (v == NULL)
        return NULL;
    v->s = box_arena_strndup(g->g_a, s, n);
    v->n = n;
    if (v->s == NULL) {
        g->g_err = BOX_ENOMEM;
        return NULL;
    }
    return v;
}

const cd_val *
v_ent(gen *g, const char *type, const char *id)
{
    cd_val *v = (cd_val *)v_strn(g, CD_ENT, id, strlen(id));
    if (v != NULL)
        v->type = type;
    return v;
}

/* An empty set or record with room for cap members. */
static cd_val *
v_coll(gen *g, cd_kind k, size_t cap)
{
    cd_val *v = val_new(g, k);
    if (v == NULL)
        return NULL;
    v->items = box_arena_zalloc(g->g_a, (cap + 1) * sizeof(*v->items));
    v->keys = box_arena_zalloc(g->g_a, (cap + 1) * sizeof(*v->keys));
    if (v->items == NULL || v->keys == NULL) {
        g->g_err = BOX_ENOMEM;
        return NULL;
    }
    return v;
}

static bool
rec_has(const cd_val *r, const char *key)
{
    for (size_t i = 0; i < r->nitems; i++) {
        if (strcmp(r->keys[i], key) == 0)
            return true;
    }
    return false;
}

/* Adds key -> val unless the key is there already (or val is NULL). */
static void
rec_put(cd_val *r, const char *key, const cd_val *val)
{
    if (r == NULL || val == NULL || rec_has(r, key))
        return;
    r->keys[r->nitems] = key;
    r->items[r->nitems++] = val;
}

const cd_val *
rec_get(const cd_val *r, const char *key)
{
    for (size_t i = 0; r != NULL && r->k == CD_REC && i < r->nitems; i++) {
        if (strcmp(r->keys[i], key) == 0)
            return r->items[i];
    }
    return NULL;
}

/* ---- pools ---- */

typedef struct piece {
    const char *s;
    size_t n;
} piece;
#define P(lit) {lit, sizeof(lit) - 1}

/* Characters strings are made of: the ones `like`, escapes and UTF-8
 * handling can get wrong. */
static const piece alphabet[] = {
    P("a"), P("b"), P("c"), P("*"), P("\\"), P("\""), P("\n"), P(" "),
    P("\t"), P("'"), P("\0"), P("\xc3\xa9"), P("\xe2\x98\x83"),
    P("\xf0\x9f\x98\x80"), P("/"), P("."),
};

static const char *const str_pool[] = {
    "",       "a",          "ab",        "abc",         "/home/u/.ssh/id_rsa",
    "/tmp/x", "a*b",        "*",         "\\",          "x\\y",
    "A*B",    "say \"hi\"", "line\nbr",  "caf\xc3\xa9", "\xe2\x98\x83",
    "echo",   "rm",         "GET",       "POST",        "example.com",
    "AMZN",   "ham and eggs", "TEST_1",  "if",          "a b",
    "\\afterslash", "string*with*stars", "\xf0\x9f\x98\x80 smile",
};

static const char *const key_pool[] = {"a", "b", "c", "x", "n", "path",
                                       "nested", "if", "a b", "\xc3\xa9",
                                       "has", "_k1"};

static const int64_t long_pool[] = {
    0, 1, 2, 3, -1, 7, 10, 100, 255, -100, 1000, 3037000499, 3037000500,
    -3037000500, 4611686018427387904, 9223372036854775807,
    INT64_MIN, -9223372036854775807, 9007199254740991, -9007199254740991,
};

/* Constructor arguments: valid ones first, then ones that must fail
 * (the _BAD counts are how many at the end are invalid). */
static const char *const dec_pool[] = {
    "0.0", "1.5", "-1.5", "1.0", "1.00", "0.0001", "-0.0001", "100.0",
    "99.9999", "922337203685477.5807", "-922337203685477.5808", "12.34",
    /* invalid */ "1", "1.", ".1", "0.12345", "1.0.", "abc", "",
    "922337203685477.5808", "-922337203685477.5809", "+1.0", "1e3",
};
#define DEC_BAD 11
static const char *const ip_pool[] = {
    "10.0.0.1", "10.0.0.0/24", "192.168.0.1/24", "192.168.0.8/24",
    "127.0.0.1", "127.0.0.2/8", "127.0.0.1/7", "224.0.0.1", "239.1.2.3/4",
    "::1", "::1/127", "ff00::2", "fe80::1/64", "0.0.0.0/0", "::/0",
    "2001:db8::/32", "2001:db8::1", "255.255.255.255", "::",
    /* invalid */ "192.168.0.1/33", "::ffff:1.2.3.4", "1.2.3", "10.0.0.1/",
    "10.0.0.1/08", "1.2.3.4.5", "::1/129", "abc", "", "1.2.3.256",
    "127.0.0.1/8/24", " 10.0.0.1",
};
#define IP_BAD 12
static const char *const dt_pool[] = {
    "2024-10-15", "2024-10-15T11:35:00Z", "2024-10-15T11:35:00.123Z",
    "2024-10-15T11:35:00+0100", "2024-10-15T11:35:00.001-0530",
    "2025-01-01T01:00:00+0100", "1969-12-31T23:59:59Z", "1970-01-01",
    "0000-01-01", "9999-12-31T23:59:59Z", "2024-02-29", "2025-02-20T22:00:00-0500",
    /* invalid */ "2024-13-01", "2023-02-29", "2024-02-30", "24-01-01",
    "2024-01-01T25:00:00Z", "2024-01-01T00:00:60Z", "2024-01-01T00:00:00",
    "2024-01-01T00:00:00+2400", "2024-01-01 00:00:00Z", "", "2024-1-1",
    "2024-01-01T00:00:00.12Z",
};
#define DT_BAD 12
static const char *const dur_pool[] = {
    "1h30m", "-1d12h", "100ms", "4m70s", "1d2h3m4s5ms", "0ms", "1s", "-42m",
    "24h", "90m", "1d", "9223372036854775807ms", "-9223372036854775808ms",
    /* invalid */ "", "1x", "1h1d", "h", "-", "1h1h", "9223372036854775808ms",
    "106751991167301d", "1.5h", "1 h", "m1",
};
#define DUR_BAD 11

static const char *const actions[] = {
    "fs:read",    "fs:write",     "fs:delete",  "fs:move",
    "fs:other",   "net:connect",  "http:request", "shell:exec",
    "shell:spawn", "mcp:call",
};

typedef struct uid {
    const char *type, *id;
} uid;
/* The entities a case may store, in an order whose later members are
 * the only possible parents of earlier ones (so the hierarchy is a DAG). */
static const uid universe[] = {
    {"Box::Agent", "self"},      {"Box::Agent", "other"},
    {"Box::Resource", "unused"}, {"Box::Resource", "caf\xc3\xa9"},
    {"Box::Group", "admins"},    {"Team", "t\"1"},
    {"Box::Group", "all"},
};
#define NUNIVERSE (sizeof(universe) / sizeof(universe[0]))
static const char *const types[] = {"Box::Agent", "Box::Resource",
                                    "Box::Group", "Team", "Box::Action",
                                    "Box::FsReadOperation", "Agent"};

/* One member of a pool (for cd_expr.c, which cannot see the pools). */
const char *
pick_key(gen *g)
{
    return PICK(g, key_pool);
}

const char *
pick_action(gen *g)
{
    return PICK(g, actions);
}

const char *
pick_type(gen *g)
{
    return PICK(g, types);
}

int64_t
pick_long(gen *g)
{
    return PICK(g, long_pool);
}

void
pick_char(gen *g, const char **s, size_t *n)
{
    piece p = PICK(g, alphabet);
    *s = p.s;
    *n = p.n;
}

const char *
ext_text(gen *g, cd_kind k, bool valid)
{
    const char *const *pool;
    size_t n, bad;
    switch (k) {
    case CD_DEC:
        pool = dec_pool, n = sizeof(dec_pool) / sizeof(*pool), bad = DEC_BAD;
        break;
    case CD_IP:
        pool = ip_pool, n = sizeof(ip_pool) / sizeof(*pool), bad = IP_BAD;
        break;
    case CD_DT:
        pool = dt_pool, n = sizeof(dt_pool) / sizeof(*pool), bad = DT_BAD;
        break;
    default:
        pool = dur_pool, n = sizeof(dur_pool) / sizeof(*pool), bad = DUR_BAD;
        break;
    }
    return pool[below(g, (uint32_t)(valid ? n - bad : n))];
}

/* A random string: from the pool, or a few characters of the alphabet. */
const cd_val *
rand_str(gen *g)
{
    if (chance(g, 55)) {
        const char *s = PICK(g, str_pool);
        return v_strn(g, CD_STR, s, strlen(s));
    }
    char b[64];
    size_t n = 0, want = below(g, 6);
    for (size_t i = 0; i < want; i++) {
        piece p = PICK(g, alphabet);
        memcpy(b + n, p.s, p.n);
        n += p.n;
    }
    return v_strn(g, CD_STR, b, n);
}

static int64_t
rand_req_long(gen *g)
{
    if (chance(g, 80))
        return (int64_t)below(g, 30) - 5;
    static const int64_t big[] = {9007199254740991, -9007199254740991,
                                  3037000499, -3037000500, 4294967296};
    return PICK(g, big);
}

const cd_val *
rand_uid(gen *g)
{
    uid u = PICK(g, universe);
    return v_ent(g, u.type, u.id);
}

/* A random request value of kind k. */
const cd_val *
rand_kval(gen *g, cd_kind k, int depth)
{
    if (depth <= 0 && (k == CD_SET || k == CD_REC))
        k = CD_LONG;
    switch (k) {
    case CD_BOOL:
        return v_bool(g, chance(g, 50));
    case CD_LONG:
        return v_long(g, rand_req_long(g));
    case CD_STR:
        return rand_str(g);
    case CD_ENT:
        return rand_uid(g);
    case CD_SET: {
        size_t n = below(g, 4);
        cd_val *s = v_coll(g, CD_SET, n);
        cd_kind ek = (cd_kind)below(g, CD_NKINDS);
        for (size_t i = 0; s != NULL && i < n; i++) {
            const cd_val *e;
            if (ek == CD_LONG)
                e = v_long(g, (int64_t)below(g, 6));
            else if (ek == CD_STR)
                e = rand_str(g);
            else if (ek == CD_ENT)
                e = rand_uid(g);
            else
                e = rand_val(g, depth - 1);
            if (e != NULL)
                s->items[s->nitems++] = e;
        }
        return s;
    }
    case CD_REC: {
        size_t n = below(g, 4);
        cd_val *r = v_coll(g, CD_REC, n);
        for (size_t i = 0; i < n; i++)
            rec_put(r, PICK(g, key_pool), rand_val(g, depth - 1));
        return r;
    }
    default: {
        const char *t = ext_text(g, k, true);
        return v_strn(g, k, t, strlen(t));
    }
    }
}

/* A random request value (a context member, an attribute, a tag). */
const cd_val *
rand_val(gen *g, int depth)
{
    return rand_kval(g, (cd_kind)below(g, CD_NKINDS), depth);
}

/* ---- the request: Box's actions and their context shapes ---- */

static const cd_val *
fs_input(gen *g, const char *act)
{
    static const char *const read_ops[] = {"read_content", "read_metadata",
                                           "enumerate", "exec"};
    static const char *const write_ops[] = {"write_content", "create_dir",
                                            "symlink"};
    cd_val *in = v_coll(g, CD_REC, 3);
    rec_put(in, "path", chance(g, 70) ? v_strn(g, CD_STR, "/home/u/x.txt", 13)
                                      : rand_str(g));
    const char *type = "Box::FsReadOperation", *op = PICK(g, read_ops);
    if (strcmp(act, "fs:write") == 0)
        type = "Box::FsWriteOperation", op = PICK(g, write_ops);
    else if (strcmp(act, "fs:delete") == 0)
        type = "Box::FsDeleteOperation", op = "remove_file";
    else if (strcmp(act, "fs:move") == 0)
        type = "Box::FsMoveOperation", op = "rename";
    else if (strcmp(act, "fs:other") == 0)
        type = "Box::FsOtherOperation", op = "other";
    rec_put(in, "operation", v_ent(g, type, op));
    return in;
}

static const cd_val *
shell_input(gen *g)
{
    static const char *const progs[] = {"echo", "rm", "git", "cat"};
    cd_val *in = v_coll(g, CD_REC, 7);
    const char *p = PICK(g, progs);
    rec_put(in, "command", v_strn(g, CD_STR, p, strlen(p)));
    rec_put(in, "program", v_strn(g, CD_STR, p, strlen(p)));
    if (chance(g, 60))
        rec_put(in, "arg1", rand_str(g));
    if (chance(g, 30))
        rec_put(in, "arg2", rand_str(g));
    rec_put(in, "arg_count", v_long(g, (int64_t)below(g, 4)));
    rec_put(in, "cwd", v_strn(g, CD_STR, "/home/u", 7));
    if (chance(g, 30)) {
        cd_val *s = v_coll(g, CD_SET, 2);
        if (s != NULL) {
            s->items[s->nitems++] = rand_str(g);
            if (chance(g, 50))
                s->items[s->nitems++] = rand_str(g);
        }
        rec_put(in, "credential_reads", s);
    }
    return in;
}

static const cd_val *
net_input(gen *g, bool http)
{
    static const char *const hosts[] = {"example.com", "api.example.com",
                                        "10.0.0.1", "localhost"};
    cd_val *in = v_coll(g, CD_REC, 6);
    const char *h = PICK(g, hosts);
    rec_put(in, "host", v_strn(g, CD_STR, h, strlen(h)));
    rec_put(in, "port", v_long(g, chance(g, 50) ? 443 : rand_req_long(g)));
    if (!http) {
        if (chance(g, 50))
            rec_put(in, "ip", v_strn(g, CD_STR, "10.0.0.1", 8));
        return in;
    }
    const char *m = chance(g, 50) ? "GET" : "POST";
    rec_put(in, "method", v_strn(g, CD_STR, m, strlen(m)));
    rec_put(in, "path", rand_str(g));
    rec_put(in, "body_bytes", v_long(g, rand_req_long(g)));
    rec_put(in, "intercepted", v_bool(g, chance(g, 50)));
    return in;
}

static const cd_val *
mcp_input(gen *g)
{
    cd_val *in = v_coll(g, CD_REC, 5);
    rec_put(in, "server", v_strn(g, CD_STR, "files", 5));
    rec_put(in, "method", v_strn(g, CD_STR, "tools/call", 10));
    if (chance(g, 60))
        rec_put(in, "tool", rand_str(g));
    if (chance(g, 30))
        rec_put(in, "uri", rand_str(g));
    return in;
}

static const cd_val *
gen_context(gen *g, const char *act)
{
    cd_val *ctx = v_coll(g, CD_REC, 5);
    const cd_val *in;
    if (strncmp(act, "fs:", 3) == 0)
        in = fs_input(g, act);
    else if (strncmp(act, "shell:", 6) == 0)
        in = shell_input(g);
    else if (strcmp(act, "mcp:call") == 0)
        in = mcp_input(g);
    else
        in = net_input(g, strcmp(act, "http:request") == 0);
    rec_put(ctx, "input", in);
    if (chance(g, 40)) {
        cd_val *out = v_coll(g, CD_REC, 1);
        if (strncmp(act, "fs:", 3) == 0)
            rec_put(out, "result",
                    v_ent(g, "Box::FsResponseResult", "completed"));
        else
            rec_put(out, "status", v_long(g, chance(g, 50) ? 0 : 200));
        rec_put(ctx, "output", out);
    }
    if (chance(g, 50)) {
        cd_val *sys = v_coll(g, CD_REC, 1);
        const char *t = ext_text(g, CD_DT, true);
        rec_put(sys, "now", v_strn(g, CD_DT, t, strlen(t)));
        rec_put(ctx, "system", sys);
    }
    if (chance(g, 60))
        rec_put(ctx, "extra", rand_val(g, 3));
    if (chance(g, 30))
        rec_put(ctx, PICK(g, key_pool), rand_val(g, 2));
    return ctx;
}

/* The entity store: some of the universe, each with attributes, tags
 * and parents later in the universe's order (or outside the store). */
static void
gen_entities(gen *g, cd_case *c)
{
    c->c_entities = NULL;
    c->c_nentities = 0;
    if (chance(g, 40))
        return;
    cd_entity *es = box_arena_zalloc(g->g_a, NUNIVERSE * sizeof(*es));
    if (es == NULL) {
        g->g_err = BOX_ENOMEM;
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < NUNIVERSE; i++) {
        bool often = (i == 0 || i == 2); // self and unused
        if (!chance(g, often ? 70 : 40))
            continue;
        cd_entity *e = &es[n++];
        e->uid = v_ent(g, universe[i].type, universe[i].id);
        if (chance(g, 75)) {
            cd_val *attrs = v_coll(g, CD_REC, 4);
            size_t na = below(g, 5);
            for (size_t j = 0; j < na; j++)
                rec_put(attrs, PICK(g, key_pool), rand_val(g, 2));
            if (chance(g, 30))
                rec_put(attrs, "owner", rand_uid(g));
            e->attrs = attrs;
        }
        if (chance(g, 40)) {
            cd_val *tags = v_coll(g, CD_REC, 3);
            size_t nt = 1 + below(g, 3);
            for (size_t j = 0; j < nt; j++)
                rec_put(tags, PICK(g, key_pool), rand_val(g, 1));
            e->tags = tags;
        }
        e->parents = box_arena_zalloc(g->g_a, NUNIVERSE * sizeof(cd_val *));
        if (e->parents == NULL) {
            g->g_err = BOX_ENOMEM;
            return;
        }
        for (size_t j = i + 1; j < NUNIVERSE; j++) {
            if (chance(g, 30))
                e->parents[e->nparents++] =
                    v_ent(g, universe[j].type, universe[j].id);
        }
    }
    c->c_entities = es;
    c->c_nentities = n;
}

const cd_entity *
find_entity(const cd_case *c, const cd_val *u)
{
    for (size_t i = 0; i < c->c_nentities; i++) {
        const cd_val *x = c->c_entities[i].uid;
        if (strcmp(x->type, u->type) == 0 && x->n == u->n &&
            memcmp(x->s, u->s, u->n) == 0)
            return &c->c_entities[i];
    }
    return NULL;
}

/* ---- paths: what a policy can read, and the value it finds there ---- */

static const char *
text_dup(gen *g, const box_buf *b)
{
    char *s = box_arena_strndup(g->g_a, b->b_data != NULL ? b->b_data : "",
                                b->b_len);
    if (s == NULL)
        g->g_err = BOX_ENOMEM;
    return s;
}

void
ent_lit(gen *g, box_buf *o, const cd_val *e)
{
    put(g, o, e->type);
    put(g, o, "::");
    put_str(g, o, e->s, e->n);
}

/* Appends `.key` or `["key"]` (always the latter for a non-identifier). */
void
put_access(gen *g, box_buf *o, const char *key)
{
    if (is_ident(key) && chance(g, 80)) {
        put(g, o, ".");
        put(g, o, key);
    } else {
        put(g, o, "[");
        put_str(g, o, key, strlen(key));
        put(g, o, "]");
    }
}

static void
add_path(gen *g, const char *text, const cd_val *v, int depth)
{
    if (text == NULL || v == NULL || g->g_npaths >= CD_MAX_PATHS)
        return;
    g->g_paths[g->g_npaths].p_text = text;
    g->g_paths[g->g_npaths++].p_val = v;
    if (v->k == CD_ENT && depth < 3) { // principal.owner.a: a stored entity
        const cd_entity *e = find_entity(g->g_c, v);
        v = e != NULL ? e->attrs : NULL;
        if (v == NULL)
            return;
    }
    if (v->k != CD_REC || depth >= 4)
        return;
    for (size_t i = 0; i < v->nitems; i++) {
        box_buf b;
        box_buf_init(&b, CD_TEXT_MAX);
        put(g, &b, text);
        put_access(g, &b, v->keys[i]);
        add_path(g, text_dup(g, &b), v->items[i], depth + 1);
        box_buf_reset(&b);
    }
}

static void
collect_paths(gen *g, const cd_case *c)
{
    g->g_npaths = 0;
    add_path(g, "context", c->c_context, 0);
    add_path(g, "principal", c->c_principal, 0);
    add_path(g, "action", c->c_action, 0);
    add_path(g, "resource", c->c_resource, 0);
    // Attributes read through an entity literal: Box::Group::"admins".a
    for (size_t i = 0; i < c->c_nentities; i++) {
        const cd_entity *e = &c->c_entities[i];
        if (e->attrs == NULL || e->attrs->nitems == 0 || !chance(g, 50))
            continue;
        box_buf b;
        box_buf_init(&b, CD_TEXT_MAX);
        ent_lit(g, &b, e->uid);
        put_access(g, &b, e->attrs->keys[0]);
        add_path(g, text_dup(g, &b), e->attrs->items[0], 1);
        box_buf_reset(&b);
    }
}

/* A random path to a value of kind k, or NULL. */
const cd_path *
path_of(gen *g, cd_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < g->g_npaths; i++)
        n += g->g_paths[i].p_val->k == k;
    if (n == 0)
        return NULL;
    size_t want = below(g, (uint32_t)n);
    for (size_t i = 0; i < g->g_npaths; i++) {
        if (g->g_paths[i].p_val->k == k && want-- == 0)
            return &g->g_paths[i];
    }
    return NULL;
}

box_err
cd_case_gen(cd_case *c, box_arena *a, uint64_t seed, uint64_t index)
{
    gen g;
    memset(&g, 0, sizeof(g));
    g.g_rng = mix64(seed ^ mix64(index + 0x5eedULL));
    g.g_a = a;
    g.g_c = c;
    c->c_seed = seed;
    c->c_index = index;
    box_buf_init(&c->c_policies, CD_TEXT_MAX);

    const char *act = PICK(&g, actions);
    // Now and then an action of another type with a Box action's id: the
    // rules' action scopes must not match it.
    static const char *const act_types[] = {"Action", "Other::Action",
                                            "Box::Agent"};
    c->c_action = v_ent(&g, chance(&g, 92) ? "Box::Action"
                                           : PICK(&g, act_types), act);
    c->c_principal = chance(&g, 70) ? v_ent(&g, "Box::Agent", "self")
                                    : rand_uid(&g);
    c->c_resource = chance(&g, 70) ? v_ent(&g, "Box::Resource", "unused")
                                   : rand_uid(&g);
    c->c_context = gen_context(&g, act);
    gen_entities(&g, c);
    if (g.g_err != BOX_OK)
        return g.g_err;
    collect_paths(&g, c);
    c->c_npolicies = 1 + below(&g, chance(&g, 15) ? CD_MAX_POLICIES : 4);
    for (unsigned i = 0; i < c->c_npolicies; i++) {
        cd_gen_policy(&g, &c->c_policies, i);
        if (i + 1 < c->c_npolicies)
            put(&g, &c->c_policies, "\n");
    }
    return g.g_err;
}

void
cd_case_free(cd_case *c)
{
    box_buf_reset(&c->c_policies);
}

/* ---- JSON ---- */

static box_err
json_str(box_buf *out, const char *s, size_t n)
{
    box_err rv = box_buf_putc(out, '"');
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\')
            rv = box_buf_printf(out, "\\%c", ch);
        else if (ch < 0x20 || ch == 0x7f)
            rv = box_buf_printf(out, "\\u%04x", ch);
        else
            rv = box_buf_putc(out, (char)ch);
    }
    return rv == BOX_OK ? box_buf_putc(out, '"') : rv;
}

static box_err
json_uid(const cd_val *v, box_buf *out)
{
    box_err rv = box_buf_puts(out, "{\"type\":");
    if (rv == BOX_OK)
        rv = json_str(out, v->type, strlen(v->type));
    if (rv == BOX_OK)
        rv = box_buf_puts(out, ",\"id\":");
    if (rv == BOX_OK)
        rv = json_str(out, v->s, v->n);
    return rv == BOX_OK ? box_buf_putc(out, '}') : rv;
}

box_err
cd_val_json(const cd_val *v, box_buf *out)
{
    box_err rv = BOX_OK;
    switch (v->k) {
    case CD_BOOL:
        return box_buf_puts(out, v->b ? "true" : "false");
    case CD_LONG:
        return box_buf_printf(out, "%" PRId64, v->l);
    case CD_STR:
        return json_str(out, v->s, v->n);
    case CD_ENT:
        rv = box_buf_puts(out, "{\"__entity\":");
        if (rv == BOX_OK)
            rv = json_uid(v, out);
        return rv == BOX_OK ? box_buf_putc(out, '}') : rv;
    case CD_SET:
        rv = box_buf_putc(out, '[');
        for (size_t i = 0; i < v->nitems && rv == BOX_OK; i++) {
            if (i > 0)
                rv = box_buf_putc(out, ',');
            if (rv == BOX_OK)
                rv = cd_val_json(v->items[i], out);
        }
        return rv == BOX_OK ? box_buf_putc(out, ']') : rv;
    case CD_REC:
        rv = box_buf_putc(out, '{');
        for (size_t i = 0; i < v->nitems && rv == BOX_OK; i++) {
            if (i > 0)
                rv = box_buf_putc(out, ',');
            if (rv == BOX_OK)
                rv = json_str(out, v->keys[i], strlen(v->keys[i]));
            if (rv == BOX_OK)
                rv = box_buf_putc(out, ':');
            if (rv == BOX_OK)
                rv = cd_val_json(v->items[i], out);
        }
        return rv == BOX_OK ? box_buf_putc(out, '}') : rv;
    default:
        rv = box_buf_printf(out, "{\"__extn\":{\"fn\":\"%s\",\"arg\":",
                            cd_kind_ctor(v->k));
        if (rv == BOX_OK)
            rv = json_str(out, v->s, v->n);
        return rv == BOX_OK ? box_buf_puts(out, "}}") : rv;
    }
}

box_err
cd_case_json(const cd_case *c, box_buf *out)
{
    box_err rv = box_buf_printf(out, "{\"i\":%" PRIu64 ",\"policies\":",
                                c->c_index);
    if (rv == BOX_OK)
        rv = json_str(out, c->c_policies.b_data, c->c_policies.b_len);
    const struct {
        const char *name;
        const cd_val *v;
    } uids[] = {{"principal", c->c_principal},
                {"action", c->c_action},
                {"resource", c->c_resource}};
    for (size_t i = 0; i < 3 && rv == BOX_OK; i++) {
        rv = box_buf_printf(out, ",\"%s\":", uids[i].name);
        if (rv == BOX_OK)
            rv = json_uid(uids[i].v, out);
    }
    if (rv == BOX_OK)
        rv = box_buf_puts(out, ",\"context\":");
    if (rv == BOX_OK)
        rv = cd_val_json(c->c_context, out);
    if (rv == BOX_OK)
        rv = box_buf_puts(out, ",\"entities\":[");
    for (size_t i = 0; i < c->c_nentities && rv == BOX_OK; i++) {
        const cd_entity *e = &c->c_entities[i];
        rv = box_buf_puts(out, i > 0 ? ",{\"uid\":" : "{\"uid\":");
        if (rv == BOX_OK)
            rv = json_uid(e->uid, out);
        if (rv == BOX_OK)
            rv = box_buf_puts(out, ",\"attrs\":");
        if (rv == BOX_OK)
            rv = e->attrs != NULL ? cd_val_json(e->attrs, out)
                                  : box_buf_puts(out, "{}");
        if (rv == BOX_OK && e->tags != NULL) {
            rv = box_buf_puts(out, ",\"tags\":");
            if (rv == BOX_OK)
                rv = cd_val_json(e->tags, out);
        }
        if (rv == BOX_OK)
            rv = box_buf_puts(out, ",\"parents\":[");
        for (size_t j = 0; j < e->nparents && rv == BOX_OK; j++) {
            if (j > 0)
                rv = box_buf_putc(out, ',');
            if (rv == BOX_OK)
                rv = json_uid(e->parents[j], out);
        }
        if (rv == BOX_OK)
            rv = box_buf_puts(out, "]}");
    }
    return rv == BOX_OK ? box_buf_puts(out, "]}") : rv;
}

const char *
cd_kind_name(cd_kind k)
{
    /* ORDER CD_KIND */
    static const char *const names[CD_NKINDS] = {
        "bool", "long", "string", "set", "record", "entity",
        "decimal", "ipaddr", "datetime", "duration"};
    return (unsigned)k < CD_NKINDS ? names[k] : "?";
}

const char *
cd_kind_ctor(cd_kind k)
{
    switch (k) {
    case CD_DEC:
        return "decimal";
    case CD_IP:
        return "ip";
    case CD_DT:
        return "datetime";
    case CD_DUR:
        return "duration";
    default:
        return NULL;
    }
}
