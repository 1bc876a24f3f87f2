/* SPDX-License-Identifier: Apache-2.0 */
/* bash's arithmetic commands: `(( expr ))` and `for (( init; cond; step ))`. */
#include "sh_internal.h"

#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"

/*
 * Evaluates one arithmetic part; under set -x first prints it as bash
 * does: `+ (( TEXT ))` with TEXT expanded (a for header's part without
 * its leading blanks; an empty part as 1). When the text has $( ) or
 * backquotes, the text printed is the one evaluated, so its commands
 * run once.
 */
static int
arith_eval(sh_ctx *cx, const sh_word *w, bool trim, long long *v)
{
    *v = 1;
    const sh_wpart *p = w != NULL ? w->w_parts : NULL;
    if (!cx->cx_st->st_opt_x)
        return p != NULL ? sh_expand_arith(cx, "((", p, v) : 0;
    const char *t = p != NULL ? p->u.text.s : "1";
    size_t n = p != NULL ? p->u.text.len : 1;
    while (trim && n > 0 && (*t == ' ' || *t == '\t' || *t == '\n')) {
        t++;
        n--;
    }
    bool sub = memchr(t, '`', n) != NULL || memchr(t, '"', n) != NULL,
         dollar = sub;
    for (size_t i = 0; i < n; i++) {
        dollar = dollar || t[i] == '$';
        sub = sub || (t[i] == '$' && i + 1 < n && t[i + 1] == '(');
    }
    char *e = NULL;
    size_t el = 0;
    int rc = 0;
    if (dollar && (rc = sh_expand_dq_text(cx, "arithmetic", SH_DQ_DROP_QUOTES,
                                          t, n, &e, &el)) != 0)
        return rc;
    box_buf line;
    box_buf_init(&line, SH_MAX_INPUT + 64);
    if (sh_put_ps4(cx, &line) == BOX_OK &&
        box_buf_printf(&line, "(( %.*s ))\n", (int)(e ? el : n), e ? e : t) ==
            BOX_OK)
        (void)sh_write(cx, 2, line.b_data, line.b_len);
    box_buf_reset(&line);
    if (p == NULL)
        rc = 0;
    else if (e != NULL && sub)
        rc = sh_arith_in(cx, "((", e, el, v);
    else
        rc = sh_expand_arith(cx, "((", p, v);
    box_free(e);
    return rc;
}

/*
 * One header part or (( )) body: 0 when it evaluates to non-zero, 1 when
 * to zero or on an error (the message led by `((: `, as bash says it;
 * like `let`, an error is not fatal). A NULL part (empty) is true.
 * trim: a for header's part (set -x prints it without leading blanks).
 */
static int
arith_status(sh_ctx *cx, const sh_word *w, bool trim, bool *failed)
{
    *failed = false;
    long long v = 0;
    int st = arith_eval(cx, w, trim, &v);
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
    int st = arith_status(cx, n->u.arith, false, &failed);
    if (failed && st == 2)
        sh_fatal(cx, st);
    return st;
}

int
sh_exec_for_arith(sh_ctx *cx, const sh_node *n)
{
    bool failed;
    int st = arith_status(cx, n->u.for_arith.init, true, &failed);
    if (failed)
        goto fail;
    st = 0;
    cx->cx_loops++;
    for (;;) {
        if (sh_check_stop(cx))
            break;
        int c = arith_status(cx, n->u.for_arith.cond, true, &failed);
        if (failed) {
            st = c;
            break;
        }
        if (c != 0)
            break;
        st = sh_exec_node(cx, n->u.for_arith.body);
        if (sh_loop_after_body(cx))
            break;
        int s = arith_status(cx, n->u.for_arith.step, true, &failed);
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
