/* SPDX-License-Identifier: Apache-2.0 */
/* sort -c / -C: reads the input line by line and stops at the first line
 * out of order, as GNU does (an endless sorted stream is read on). */
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_sort.h"
#include "sh_internal.h"

#define SORT_CHECK_LINE_MAX (256u << 20) // one line held whole: 256 MiB

/* "sort: NAME:N: disorder: LINE" and the delimiter, LINE whole. */
static void
check_report(sh_ctx *cx, const char *name, uintmax_t n, const box_buf *line,
             char eol)
{
    char head[512];
    snprintf(head, sizeof head, SH_PREFIX "sort: %s:%ju: disorder: ", name, n);
    (void)sh_puts(cx, 2, head);
    (void)sh_write(cx, 2, line->b_len > 0 ? line->b_data : "", line->b_len);
    (void)sh_write(cx, 2, &eol, 1);
}

/* Makes the comparison's scratch room for lines of up to len bytes. */
static bool
check_scratch(sort_order *o, char **scratch, size_t len)
{
    if (len < o->so_scratch_len)
        return true;
    size_t want =
        len + 1 > 2 * o->so_scratch_len ? len + 1 : 2 * o->so_scratch_len;
    char *ns = box_realloc(*scratch, 2 * want);
    if (ns == NULL)
        return false;
    *scratch = ns;
    o->so_scratch_len = want;
    o->so_scratch[0] = ns;
    o->so_scratch[1] = ns + want;
    return true;
}

static void
check_line(const sort_order *o, const box_buf *b, sort_line *l)
{
    l->sl_text = b->b_len > 0 ? b->b_data : "";
    l->sl_len = b->b_len;
    sort_key_locate(o, l);
}

int
sort_check(sh_ctx *cx, sort_conf *c, const char *name)
{
    int st;
    char *scratch = NULL;
    box_buf lines[2];
    box_buf_init(&lines[0], SORT_CHECK_LINE_MAX);
    box_buf_init(&lines[1], SORT_CHECK_LINE_MAX);
    sh_input *in = sh_input_open(cx, "sort: cannot read", name, &st);
    if (in == NULL)
        return st == BOX_STATUS_FAULT ? st : SORT_FAIL;
    sh_input_quiet(in);
    c->sc_order.so_scratch_len = 0;
    box_buf *prev = &lines[0], *cur = &lines[1];
    sort_line a, b;
    int rc;
    st = 0;
    for (uintmax_t n = 1;; n++) {
        rc = sh_check_stop(cx) ? -1 : sh_input_record(in, c->sc_eol, cur);
        if (rc <= 0)
            break;
        if (!check_scratch(&c->sc_order, &scratch, cur->b_len)) {
            rc = -2;
            break;
        }
        check_line(&c->sc_order, cur, &b);
        int d = n > 1 ? sort_compare(&c->sc_order, &a, &b) : -1;
        if (d > 0 || (d == 0 && c->sc_unique)) {
            if (c->sc_check == 'c')
                check_report(cx, name, n, cur, c->sc_eol);
            st = 1;
            break;
        }
        box_buf *t = prev;
        prev = cur;
        cur = t;
        check_line(&c->sc_order, prev, &a); // its bytes stay where they are
    }
    if (rc < 0 && sh_check_stop(cx))
        st = cx->cx_status;
    else if (rc == -2)
        st = sh_cmd_err(cx, "sort", SORT_FAIL, "memory exhausted");
    else if (rc == -1)
        st = sh_cmd_err(cx, "sort", SORT_FAIL, "read failed: %s: %s", name,
                        strerror(sh_input_errno(in)));
    sh_input_close(in);
    box_buf_reset(&lines[0]);
    box_buf_reset(&lines[1]);
    box_free(scratch);
    return st;
}
