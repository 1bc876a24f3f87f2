/* SPDX-License-Identifier: Apache-2.0 */
/* bash's arithmetic commands: `(( expr ))` and `for (( init; cond; step ))`. */
#include "sh_internal.h"

/*
 * One header part or (( )) body: 0 when it evaluates to non-zero, 1 when
 * to zero or on an error (the message led by `((: `, as bash says it;
 * like `let`, an error is not fatal). A NULL part (empty) is true.
 */
static int
arith_status(sh_ctx *cx, const sh_word *w, bool *failed)
{
    *failed = false;
    if (w == NULL || w->w_parts == NULL)
        return 0;
    long long v = 0;
    int st = sh_expand_arith(cx, "((", w->w_parts, &v);
    if (st != 0) {
        *failed = true;
        // nounset inside is fatal as in $(( )) (spec §3.2)
        return st == 2 ? 2 : 1;
    }
    return v != 0 ? 0 : 1;
}

int
sh_exec_arith_cmd(sh_ctx *cx, const sh_node *n)
{
    bool failed;
    int st = arith_status(cx, n->u.arith, &failed);
    if (failed && st == 2)
        sh_fatal(cx, st);
    return st;
}

int
sh_exec_for_arith(sh_ctx *cx, const sh_node *n)
{
    bool failed;
    int st = arith_status(cx, n->u.for_arith.init, &failed);
    if (failed)
        goto fail;
    st = 0;
    cx->cx_loops++;
    for (;;) {
        if (sh_check_stop(cx))
            break;
        int c = arith_status(cx, n->u.for_arith.cond, &failed);
        if (failed) {
            st = c;
            break;
        }
        if (c != 0)
            break;
        st = sh_exec_node(cx, n->u.for_arith.body);
        if (sh_loop_after_body(cx))
            break;
        int s = arith_status(cx, n->u.for_arith.step, &failed);
        if (failed) {
            st = s;
            break;
        }
    }
    cx->cx_loops--;
    if (!failed)
        return st;
fail:
    if (st == 2)
        sh_fatal(cx, st);
    return st;
}
