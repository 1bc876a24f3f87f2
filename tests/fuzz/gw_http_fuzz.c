/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target gw_http: a request head as a client sends it to the
 * gateway's proxy port (gw_http.h). */
#include <stdbool.h>
#include <string.h>

#include "box_arena.h"
#include "box_fuzz.h"
#include "gw_addr.h"
#include "gw_http.h"

/*
 * Invariants: the input read in one call and read one byte a call give
 * the same answer (status, bytes used, code, reason and request); DONE
 * uses no more bytes than given; a refusal has a status in {400, 414,
 * 431, 501, 505} and a reason; a canonical path starts with '/', has no
 * '?' and no "." or ".." segment, and is its own canonical form; a
 * canonical host is its own canonical host. The first input byte picks
 * whether the head arrives inside an intercepted tunnel.
 */

static bool
same_str(const char *a, size_t an, const char *b, size_t bn)
{
    if ((a == NULL) != (b == NULL))
        return false;
    return a == NULL || (an == bn && memcmp(a, b, an) == 0);
}

static void
check_same(const gw_http_result *x, const gw_http_result *y)
{
    if (x->r_status != y->r_status)
        box_fuzz_fail("one-shot and byte-at-a-time status differ");
    if (x->r_status == GW_HTTP_BAD &&
        (x->r_code != y->r_code || strcmp(x->r_reason, y->r_reason) != 0))
        box_fuzz_fail("one-shot and byte-at-a-time refusal differ");
    if (x->r_status != GW_HTTP_DONE)
        return;
    const gw_http_req *a = x->r_req, *b = y->r_req;
    if (x->r_used != y->r_used || a->rq_method != b->rq_method ||
        a->rq_minor != b->rq_minor || a->rq_form != b->rq_form ||
        a->rq_has_authority != b->rq_has_authority ||
        (a->rq_has_authority &&
         !gw_addr_authority_eq(&a->rq_authority, &b->rq_authority)) ||
        !same_str(a->rq_path, a->rq_path_len, b->rq_path, b->rq_path_len) ||
        !same_str(a->rq_query, a->rq_query_len, b->rq_query, b->rq_query_len) ||
        a->rq_nfields != b->rq_nfields ||
        a->rq_has_content_length != b->rq_has_content_length ||
        a->rq_content_length != b->rq_content_length ||
        a->rq_chunked != b->rq_chunked ||
        a->rq_keep_alive != b->rq_keep_alive ||
        a->rq_expect_continue != b->rq_expect_continue ||
        !same_str(a->rq_proxy_auth, a->rq_proxy_auth_len, b->rq_proxy_auth,
                  b->rq_proxy_auth_len))
        box_fuzz_fail("one-shot and byte-at-a-time requests differ");
    for (size_t i = 0; i < a->rq_nfields; i++) {
        const gw_http_field *f = &a->rq_fields[i], *g = &b->rq_fields[i];
        if (!same_str(f->f_name, f->f_name_len, g->f_name, g->f_name_len) ||
            !same_str(f->f_value, f->f_value_len, g->f_value, g->f_value_len))
            box_fuzz_fail("one-shot and byte-at-a-time fields differ");
    }
}

static void
check_path(const char *p, size_t n)
{
    if (n == 0 || p[0] != '/' || strlen(p) != n)
        box_fuzz_fail("a canonical path not starting with '/'");
    if (memchr(p, '?', n) != NULL)
        box_fuzz_fail("a canonical path with a '?'");
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && p[j] != '/')
            j++;
        size_t sl = j - i - 1;
        if ((sl == 1 && p[i + 1] == '.') ||
            (sl == 2 && p[i + 1] == '.' && p[i + 2] == '.'))
            box_fuzz_fail("a dot segment in a canonical path");
        i = j;
    }
    char again[GW_HTTP_LINE_MAX + 2];
    size_t an = 0;
    const char *why = NULL;
    if (n > GW_HTTP_LINE_MAX ||
        gw_http_path_canon(p, n, again, &an, &why) != BOX_OK ||
        !same_str(p, n, again, an))
        box_fuzz_fail("a canonical path that canonicalizes to another");
}

static void
check_host(const gw_authority *a)
{
    const gw_host *h = &a->a_host;
    gw_host again;
    const char *why = NULL;
    char lit[GW_ADDR_TEXT_MAX + 2];
    const char *s = h->h_text;
    size_t n = h->h_len;
    if (a->a_port == 0)
        box_fuzz_fail("an authority with port 0");
    if (h->h_kind == GW_HOST_IPV6) { // canonical text, read back in brackets
        lit[0] = '[';
        memcpy(lit + 1, h->h_text, n);
        lit[n + 1] = ']';
        s = lit;
        n += 2;
    }
    if (gw_addr_host(s, n, &again, &why) != BOX_OK ||
        again.h_kind != h->h_kind || again.h_len != h->h_len ||
        memcmp(again.h_text, h->h_text, h->h_len) != 0)
        box_fuzz_fail("a canonical host that canonicalizes to another");
}

static void
check_one(const gw_http_result *r, size_t size)
{
    if (r->r_status == GW_HTTP_BAD) {
        if (r->r_code != 400 && r->r_code != 414 && r->r_code != 431 &&
            r->r_code != 501 && r->r_code != 505)
            box_fuzz_fail("a refusal with another status");
        if (r->r_reason == NULL || r->r_reason[0] == '\0' ||
            strchr(r->r_reason, '\n') != NULL)
            box_fuzz_fail("a refusal without a one-line reason");
    }
    if (r->r_status != GW_HTTP_DONE)
        return;
    if (r->r_used == 0 || r->r_used > size || r->r_used > GW_HTTP_HEAD_MAX)
        box_fuzz_fail("DONE used more bytes than given");
    const gw_http_req *q = r->r_req;
    if (q->rq_form != GW_HTTP_FORM_AUTHORITY)
        check_path(q->rq_path, q->rq_path_len);
    else if (q->rq_path != NULL)
        box_fuzz_fail("a CONNECT request with a path");
    if (q->rq_has_authority)
        check_host(&q->rq_authority);
    if (q->rq_nfields > GW_HTTP_FIELDS_MAX)
        box_fuzz_fail("more fields than the limit");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    gw_http_opts o = {.ho_intercepted = (data[0] & 1) != 0};
    const char *buf = (const char *)data + 1;
    size_t n = size - 1;
    box_arena *a1 = box_arena_new(GW_HTTP_ARENA_MAX);
    box_arena *a2 = box_arena_new(GW_HTTP_ARENA_MAX);
    gw_http_parser *p1 = a1 ? gw_http_parser_new(a1, &o) : NULL;
    gw_http_parser *p2 = a2 ? gw_http_parser_new(a2, &o) : NULL;
    if (p1 == NULL || p2 == NULL)
        box_fuzz_fail("no parser");
    gw_http_result one = gw_http_parse(p1, buf, n);
    gw_http_result bytes = {.r_status = GW_HTTP_MORE};
    for (size_t i = 0; i <= n && bytes.r_status == GW_HTTP_MORE; i++)
        bytes = gw_http_parse(p2, buf, i);
    if (one.r_status == GW_HTTP_NOMEM || bytes.r_status == GW_HTTP_NOMEM)
        box_fuzz_fail("an arena of GW_HTTP_ARENA_MAX ran out");
    check_one(&one, n);
    check_same(&one, &bytes);
    box_arena_free(a1);
    box_arena_free(a2);
    return 0;
}
