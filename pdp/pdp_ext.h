/* SPDX-License-Identifier: Apache-2.0 */
/* Cedar's built-in functions and methods (one table), and the extension
 * types decimal, ipaddr, datetime and duration (dogwood-spec §3.6). */
#ifndef PDP_EXT_H
#define PDP_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_buf.h"
#include "box_err.h"
#include "pdp_ast.h"
#include "pdp_value.h"

/*
 * Every call a policy can write, `f(x)` or `x.m(…)`, is a row of one
 * table indexed by pdp_method (ORDER PDP_M). The parser resolves names
 * and checks arity from it, the validator types calls from its kinds,
 * and the evaluator checks operand kinds from it and runs xf_impl. The
 * set methods and the tag methods have no xf_impl: they need the
 * evaluator's equality and entity store. Nothing here keeps state.
 */

typedef enum pdp_ext_style {
    PDP_XS_METHOD,   // recv.m(args)
    PDP_XS_FUNCTION, // f(args): the extension constructors
} pdp_ext_style;

/* An operand or a result: Bool and the i64 kinds (Long, decimal,
 * datetime, duration) by value, every other kind by pointer (borrowed,
 * or built in the evaluator's scratch arena). */
typedef struct pdp_xv {
    uint8_t k; // pdp_value_kind
    union {
        bool b;
        int64_t l;
        const pdp_value *v;
    } u;
} pdp_xv;

/* In a row's kind columns: any kind (or no argument). */
#define PDP_XK_ANY 0xff
/* Longest text an extension operation writes into msg. */
#define PDP_EXT_MSG_MAX 384

/*
 * An extension operation on operands already checked against the row's
 * kinds (functions get their argument as recv; arg is NULL for arity 0).
 * BOX_OK with *out set; BOX_EINVAL with msg holding the extension's own
 * text ("`1` is not a well-formed decimal value"), which the caller
 * wraps as "error while evaluating `<xf_ext>` extension function: …";
 * BOX_ENOMEM.
 */
typedef box_err (*pdp_ext_impl)(const pdp_xv *recv, const pdp_xv *arg,
                                box_arena *a, pdp_xv *out, char *msg,
                                size_t msglen);

typedef struct pdp_ext_fn {
    const char *xf_name;  // as written: "lessThan", "decimal"
    pdp_ext_style xf_style;
    uint8_t xf_arity;     // arguments besides the receiver
    uint8_t xf_recv;      // kind of the receiver (functions: the argument)
    uint8_t xf_arg;       // kind of the argument, PDP_XK_ANY when unchecked
    uint8_t xf_result;    // kind of the result, PDP_XK_ANY for getTag
    const char *xf_ext;   // the name Cedar's extension errors carry
    pdp_ext_impl xf_impl; // NULL: computed by the evaluator
} pdp_ext_fn;

/* The row of m (never NULL for m < PDP_M_COUNT). */
const pdp_ext_fn *pdp_ext_fn_of(pdp_method m);
/* The call named s[0..n) of that style; false when there is none. */
bool pdp_ext_lookup(const char *s, size_t n, pdp_ext_style style,
                    pdp_method *out);

/*
 * Runs constructor m (PDP_M_DECIMAL, _IP, _DATETIME, _DURATION) on the
 * string s[0..n): BOX_OK with *out built in a; BOX_EINVAL with msg set
 * to Cedar's whole text, "error while evaluating `decimal` extension
 * function: …"; BOX_ENOMEM.
 */
box_err pdp_ext_construct(pdp_method m, const char *s, size_t n, box_arena *a,
                          const pdp_value **out, char *msg,
                          size_t msglen) BOX_WARN_UNUSED;

/* ---- the literal formats (pdp_ext_lit.c) ---- */

/*
 * Each parser reads the whole string s[0..n) and returns BOX_OK with the
 * value, or BOX_EINVAL with the extension's text in msg (as Cedar words
 * it, e.g. "invalid date pattern"). Grammars: §3.6.
 */
box_err pdp_ext_parse_decimal(const char *s, size_t n, int64_t *out,
                              char *msg, size_t msglen) BOX_WARN_UNUSED;
box_err pdp_ext_parse_ip(const char *s, size_t n, pdp_ipaddr *out, char *msg,
                         size_t msglen) BOX_WARN_UNUSED;
box_err pdp_ext_parse_datetime(const char *s, size_t n, int64_t *out,
                               char *msg, size_t msglen) BOX_WARN_UNUSED;
box_err pdp_ext_parse_duration(const char *s, size_t n, int64_t *out,
                               char *msg, size_t msglen) BOX_WARN_UNUSED;

/*
 * Appends the constructor call that makes v (an extension value):
 * decimal("-1.0500") (always four digits), ip("10.0.0.1/24") (always the
 * prefix; IPv6 compressed, lowercase, never dotted), duration("90000ms")
 * (Cedar's own form), datetime("2024-10-15T11:35:00Z") (".SSS" only
 * when the milliseconds are not zero; outside years 0000..9999, where no
 * literal can say it, Cedar's datetime("1970-01-01").offset(duration(…))).
 * Every text parses back to an equal value.
 */
box_err pdp_ext_format(const pdp_value *v, box_buf *out) BOX_WARN_UNUSED;

#endif
