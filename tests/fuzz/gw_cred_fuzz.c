/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target gw_cred: a request head (as a client sends it inside an
 * intercepted tunnel, or in plaintext) against a table of credential
 * routes of every placement (gw_cred.h). */
#include <stdbool.h>
#include <string.h>

#include "box.pb-c.h"
#include "box_arena.h"
#include "box_fuzz.h"
#include "gw_cred.h"
#include "gw_http.h"

/*
 * Invariants: a refusal gives one of the three reasons; a request no
 * route names passes untouched; a carried request sends no line with a
 * CR, LF or NUL (the secret never splits a field or the request line), a
 * query without a space, '#' or control byte, and asks for identity
 * encoding; the real secret appears only in what a carried request sends.
 * The first input byte picks TLS (bit 0).
 */

#define FZ_SECRET "fz-Secret/+= value"
#define FZ_PH "strands_box_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static gw_creds *
fz_creds(void)
{
    static const struct {
        const char *dest;
        Box__RoutePlacement place;
        const char *header, *prefix, *param;
        bool always;
    } defs[] = {
        {"a.test", BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_HEADER,
         "Authorization", "Bearer ", "", false},
        {"b.test/v1", BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_HEADER, "X-Key",
         "", "", true},
        {"c.test", BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_BASIC_AUTH, "", "",
         "", false},
        {"d.test", BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_BASIC_AUTH, "", "",
         "", true},
        {"e.test", BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_QUERY_PARAM, "", "",
         "key", false},
        {"f.test/*/x", BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_QUERY_PARAM, "",
         "", "key", true},
        {"*.amazonaws.com", BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_SIGV4, "",
         "", "", false},
    };
    enum { N = sizeof defs / sizeof *defs };
    Box__EgressRoute m[N];
    Box__EgressRoute *pm[N];
    char *dests[N];
    char *names[] = {(char *)"T"};
    char *phs[] = {(char *)FZ_PH};
    for (size_t i = 0; i < N; i++) {
        box__egress_route__init(&m[i]);
        m[i].name = (char *)"r";
        dests[i] = (char *)defs[i].dest;
        m[i].n_destinations = 1;
        m[i].destinations = &dests[i];
        m[i].placement = defs[i].place;
        m[i].header = (char *)defs[i].header;
        m[i].prefix = (char *)defs[i].prefix;
        m[i].param = (char *)defs[i].param;
        m[i].always = defs[i].always;
        m[i].n_env_names = m[i].n_phantoms = 1;
        m[i].env_names = names;
        m[i].phantoms = phs;
        m[i].secret.data = (uint8_t *)FZ_SECRET;
        m[i].secret.len = strlen(FZ_SECRET);
        m[i].access_key_id = (char *)"AKIDFUZZ";
        pm[i] = &m[i];
    }
    Box__EgressRoutes all = BOX__EGRESS_ROUTES__INIT;
    all.n_routes = N;
    all.routes = pm;
    gw_creds *cs = NULL;
    char *err = NULL;
    if (gw_creds_from_wire(&all, &cs, &err) != BOX_OK)
        box_fuzz_fail("the fuzz routes did not load");
    return cs;
}

static bool
clean_line(const char *s)
{
    for (; *s; s++)
        if (*s == '\r' || *s == '\n')
            return false;
    return true;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    bool tls = (data[0] & 1) != 0;
    gw_http_opts o = {.ho_intercepted = tls};
    box_arena *a = box_arena_new(GW_HTTP_ARENA_MAX);
    gw_http_parser *p = a ? gw_http_parser_new(a, &o) : NULL;
    if (p == NULL)
        box_fuzz_fail("no parser");
    gw_http_result r = gw_http_parse(p, (const char *)data + 1, size - 1);
    if (r.r_status != GW_HTTP_DONE || r.r_req->rq_method == GW_HTTP_CONNECT) {
        box_arena_free(a);
        return 0;
    }
    gw_creds *cs = fz_creds();
    gw_cred_req q = {.cq_req = r.r_req,
                     .cq_tls = tls,
                     .cq_body = "",
                     .cq_now = 1440938160};
    gw_cred_edit e;
    const char *reason = NULL;
    switch (gw_creds_route(cs, &q, &e, &reason)) {
    case GW_CRED_PASS:
        if (reason != NULL || e.e_nadd != 0 || e.e_ndrop != 0)
            box_fuzz_fail("a request no route names was changed");
        break;
    case GW_CRED_REFUSE:
        if (reason == NULL || (strcmp(reason, GW_CRED_BLOCKED) != 0 &&
                               strcmp(reason, GW_CRED_PLAINTEXT) != 0))
            box_fuzz_fail("a refusal with another reason");
        if (e.e_nadd != 0 || e.e_query != NULL)
            box_fuzz_fail("a refusal left an edit behind");
        break;
    case GW_CRED_APPLY: {
        if (!tls)
            box_fuzz_fail("a secret on a plaintext request");
        bool identity = false;
        for (size_t i = 0; i < e.e_nadd; i++) {
            if (!clean_line(e.e_add[i]) || strchr(e.e_add[i], ':') == NULL)
                box_fuzz_fail("a field line the secret could split");
            identity = identity ||
                       strcmp(e.e_add[i], "Accept-Encoding: identity") == 0;
        }
        if (!identity)
            box_fuzz_fail("a carried request that may get an encoded answer");
        if (e.e_query != NULL)
            for (const char *s = e.e_query; *s; s++)
                if ((unsigned char)*s <= ' ' || *s == '#' || *s == 0x7f)
                    box_fuzz_fail("a query the secret broke");
        if (e.e_nneedles == 0 ||
            memcmp(e.e_needle[0], FZ_SECRET, strlen(FZ_SECRET)) != 0)
            box_fuzz_fail("a carried request whose answer is not scrubbed");
        gw_cred_edit_free(&e);
        break;
    }
    }
    gw_creds_free(cs);
    box_arena_free(a);
    return 0;
}
