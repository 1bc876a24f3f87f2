/* SPDX-License-Identifier: Apache-2.0 */
/* What cd_gen.c (requests, values) and cd_expr.c (policies) share. */
#ifndef CD_GEN_INT_H
#define CD_GEN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_buf.h"
#include "cd_gen.h"

#define CD_TEXT_MAX (1u << 20) // one policy set, and every scratch text
#define CD_MAX_DEPTH 4
#define CD_MAX_PATHS 160

/* Cedar's precedence levels, loosest first (dogwood-spec §2.3). */
enum { L_IF, L_OR, L_AND, L_REL, L_ADD, L_MUL, L_UN, L_MEM, L_PRI };

typedef struct cd_path {
    const char *p_text; // how a policy reads it: context.input["a b"]
    const cd_val *p_val;
} cd_path;

typedef struct gen {
    uint64_t g_rng;
    box_arena *g_a;
    cd_case *g_c;
    box_err g_err; // the first failure; every writer is a no-op after it
    cd_path g_paths[CD_MAX_PATHS];
    size_t g_npaths;
    unsigned g_unary; // unary operators in the chain being written
} gen;

/* ---- randomness (splitmix64) ---- */

static inline uint64_t
mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t
rnd(gen *g)
{
    g->g_rng += 0x9e3779b97f4a7c15ULL;
    return mix64(g->g_rng);
}

static inline uint32_t
below(gen *g, uint32_t n)
{
    return n == 0 ? 0 : (uint32_t)(rnd(g) % n);
}

static inline bool
chance(gen *g, unsigned pct)
{
    return below(g, 100) < pct;
}

#define PICK(g, arr) ((arr)[below((g), sizeof(arr) / sizeof((arr)[0]))])

/* ---- text (cd_gen.c): every writer is a no-op once g_err is set ---- */

void putn(gen *g, box_buf *o, const char *s, size_t n);
void put(gen *g, box_buf *o, const char *s);
void putf(gen *g, box_buf *o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The length of the UTF-8 character at s[0..n) (1 for a stray byte). */
size_t u8len(const char *s, size_t n);
/* One character as Cedar reads it in a string; star: a literal `*` of a
 * `like` pattern (written \*). */
void put_char(gen *g, box_buf *o, const char *s, size_t l, bool star);
/* A Cedar string literal of s[0..n). */
void put_str(gen *g, box_buf *o, const char *s, size_t n);
/* An identifier Cedar takes after `.` or in `has` (not reserved). */
bool is_ident(const char *k);
/* Type::"id" */
void ent_lit(gen *g, box_buf *o, const cd_val *e);
/* `.key`, or `["key"]` (always for a non-identifier). */
void put_access(gen *g, box_buf *o, const char *key);

/* ---- values and pools (cd_gen.c) ---- */

const cd_val *v_long(gen *g, int64_t l);
const cd_val *v_bool(gen *g, bool b);
const cd_val *v_strn(gen *g, cd_kind k, const char *s, size_t n);
const cd_val *v_ent(gen *g, const char *type, const char *id);
const cd_val *rec_get(const cd_val *r, const char *key);
const cd_val *rand_str(gen *g);
const cd_val *rand_uid(gen *g);
const cd_val *rand_val(gen *g, int depth);
const cd_val *rand_kval(gen *g, cd_kind k, int depth);
/* An extension constructor's argument for kind k: a valid one, or any. */
const char *ext_text(gen *g, cd_kind k, bool valid);
const char *pick_key(gen *g);
const char *pick_action(gen *g);
const char *pick_type(gen *g);
int64_t pick_long(gen *g);
void pick_char(gen *g, const char **s, size_t *n);
/* The stored entity of uid u, or NULL. */
const cd_entity *find_entity(const cd_case *c, const cd_val *u);
/* A random path into the request to a value of kind k, or NULL. */
const cd_path *path_of(gen *g, cd_kind k);

/* ---- policies (cd_expr.c) ---- */

/* Appends policy number i of the case, reading the request's paths. */
void cd_gen_policy(gen *g, box_buf *o, unsigned i);

#endif
