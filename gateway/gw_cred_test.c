/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for gw_cred and gw_scrub: which requests a credential route
 * carries and what it changes; secrets scrubbed from a stream split
 * anywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_arena.h"
#include "box_buf.h"
#include "gw_cred.h"
#include "gw_scrub.h"

#define SECRET "s3cr3t/t0ken+x"
#define PH                                                                     \
    "strands_box_"                                                             \
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* One route of the table under test. */
typedef struct route_def {
    const char *rd_name;
    const char *rd_dest;
    Box__RoutePlacement rd_place;
    const char *rd_header, *rd_prefix, *rd_param;
    bool rd_always;
} route_def;

#define P_HEADER BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_HEADER
#define P_BASIC BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_BASIC_AUTH
#define P_QUERY BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_QUERY_PARAM

static const route_def routes[] = {
    {"gh", "api.github.com", P_HEADER, "Authorization", "Bearer ", "", false},
    {"key", "api.example.com/v1", P_HEADER, "X-Api-Key", "", "", false},
    {"always", "always.test", P_HEADER, "Authorization", "token ", "", true},
    {"basic", "basic.test", P_BASIC, "", "", "", false},
    {"basic-always", "basic-always.test", P_BASIC, "", "", "", true},
    {"query", "maps.test", P_QUERY, "", "", "key", false},
    {"query-always", "q-always.test", P_QUERY, "", "", "key", true},
};
#define NROUTES (sizeof routes / sizeof *routes)

static gw_creds *
creds_make(void)
{
    Box__EgressRoute msgs[NROUTES];
    Box__EgressRoute *ptrs[NROUTES];
    char *dests[NROUTES], *names[NROUTES], *phs[NROUTES];
    for (size_t i = 0; i < NROUTES; i++) {
        box__egress_route__init(&msgs[i]);
        msgs[i].name = (char *)routes[i].rd_name;
        dests[i] = (char *)routes[i].rd_dest;
        msgs[i].n_destinations = 1;
        msgs[i].destinations = &dests[i];
        msgs[i].placement = routes[i].rd_place;
        msgs[i].header = (char *)routes[i].rd_header;
        msgs[i].prefix = (char *)routes[i].rd_prefix;
        msgs[i].param = (char *)routes[i].rd_param;
        msgs[i].always = routes[i].rd_always;
        names[i] = (char *)"TOKEN";
        phs[i] = (char *)PH;
        msgs[i].n_env_names = msgs[i].n_phantoms = 1;
        msgs[i].env_names = &names[i];
        msgs[i].phantoms = &phs[i];
        msgs[i].secret.data = (uint8_t *)SECRET;
        msgs[i].secret.len = strlen(SECRET);
        ptrs[i] = &msgs[i];
    }
    Box__EgressRoutes all = BOX__EGRESS_ROUTES__INIT;
    all.n_routes = NROUTES;
    all.routes = ptrs;
    gw_creds *cs = NULL;
    char *err = NULL;
    assert_int_equal(gw_creds_from_wire(&all, &cs, &err), BOX_OK);
    assert_null(err);
    assert_int_equal(gw_creds_count(cs), NROUTES);
    return cs;
}

/* One request and what the routes make of it. */
typedef struct route_case {
    const char *rc_head; // the request head, without its final CRLF CRLF
    bool rc_tls;
    gw_cred_verdict rc_verdict;
    const char *rc_reason; // REFUSE
    const char *rc_add;    // APPLY: the credential line added (first)
    const char *rc_query;  // APPLY: the query sent, or NULL: as sent
    const char *rc_drop;   // APPLY: a field name dropped
} route_case;

/* base64("x:" PH) and base64("x:" SECRET) */
#define B64_X_PH                                                               \
    "eDpzdHJhbmRzX2JveF8wMTIzNDU2Nzg5YWJjZGVmMDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3" \
    "ODlhYmNkZWYwMTIzNDU2Nzg5YWJjZGVm"
#define B64_X_SECRET "eDpzM2NyM3QvdDBrZW4reA=="
#define B64_SECRET_ONLY "OnMzY3IzdC90MGtlbit4"

static const route_case cases[] = {
    // header placement with the phantom: swapped
    {"GET /user HTTP/1.1\r\nHost: api.github.com\r\nAuthorization: Bearer " PH,
     true, GW_CRED_APPLY, NULL, "Authorization: Bearer " SECRET, NULL,
     "Authorization"},
    // the phantom anywhere in the value (GitHub's `token X`)
    {"GET /user HTTP/1.1\r\nHost: api.github.com\r\nauthorization: token " PH,
     true, GW_CRED_APPLY, NULL, "Authorization: token " SECRET, NULL,
     "authorization"},
    // no placeholder, a wrong one, a plain request
    {"GET /user HTTP/1.1\r\nHost: api.github.com", true, GW_CRED_REFUSE,
     GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET /user HTTP/1.1\r\nHost: api.github.com\r\nAuthorization: Bearer "
     "ghp_real",
     true, GW_CRED_REFUSE, GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET http://api.github.com/user HTTP/1.1\r\nHost: api.github.com\r\n"
     "Authorization: Bearer " PH,
     false, GW_CRED_REFUSE, GW_CRED_PLAINTEXT, NULL, NULL, NULL},
    // a destination no route names: as sent, phantom and all
    {"GET /user HTTP/1.1\r\nHost: github.com\r\nAuthorization: Bearer " PH,
     true, GW_CRED_PASS, NULL, NULL, NULL, NULL},
    {"GET /x HTTP/1.1\r\nHost: api.github.com:8443\r\nAuthorization: "
     "Bearer " PH,
     true, GW_CRED_PASS, NULL, NULL, NULL, NULL},
    // a path prefix: whole segments
    {"GET /v1/things?a=b HTTP/1.1\r\nHost: api.example.com\r\nX-Api-Key: " PH,
     true, GW_CRED_APPLY, NULL, "X-Api-Key: " SECRET, NULL, "X-Api-Key"},
    {"GET /v1 HTTP/1.1\r\nHost: api.example.com\r\nX-Api-Key: " PH, true,
     GW_CRED_APPLY, NULL, "X-Api-Key: " SECRET, NULL, NULL},
    {"GET /v10 HTTP/1.1\r\nHost: api.example.com", true, GW_CRED_PASS, NULL,
     NULL, NULL, NULL},
    {"GET /v2/x HTTP/1.1\r\nHost: api.example.com", true, GW_CRED_PASS, NULL,
     NULL, NULL, NULL},
    // always: whatever was sent
    {"GET / HTTP/1.1\r\nHost: always.test", true, GW_CRED_APPLY, NULL,
     "Authorization: token " SECRET, NULL, NULL},
    {"GET / HTTP/1.1\r\nHost: always.test\r\nAuthorization: x", true,
     GW_CRED_APPLY, NULL, "Authorization: token " SECRET, NULL,
     "Authorization"},
    {"GET http://always.test/ HTTP/1.1\r\nHost: always.test", false,
     GW_CRED_REFUSE, GW_CRED_PLAINTEXT, NULL, NULL, NULL},
    // basic_auth
    {"GET / HTTP/1.1\r\nHost: basic.test\r\nAuthorization: Basic " B64_X_PH,
     true, GW_CRED_APPLY, NULL, "Authorization: Basic " B64_X_SECRET, NULL,
     NULL},
    {"GET / HTTP/1.1\r\nHost: basic.test", true, GW_CRED_REFUSE,
     GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET / HTTP/1.1\r\nHost: basic.test\r\nAuthorization: Basic "
     "eDp5", // x:y
     true, GW_CRED_REFUSE, GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET / HTTP/1.1\r\nHost: basic.test\r\nAuthorization: Basic !!!!", true,
     GW_CRED_REFUSE, GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET / HTTP/1.1\r\nHost: basic-always.test", true, GW_CRED_APPLY, NULL,
     "Authorization: Basic " B64_SECRET_ONLY, NULL, NULL},
    {"GET / HTTP/1.1\r\nHost: basic-always.test\r\nAuthorization: Basic "
     "eDp5",
     true, GW_CRED_APPLY, NULL, "Authorization: Basic " B64_X_SECRET, NULL,
     NULL},
    // query_param: percent-encoded in place; order kept
    {"GET /geo?a=1&key=" PH "&b=2 HTTP/1.1\r\nHost: maps.test", true,
     GW_CRED_APPLY, NULL, NULL, "a=1&key=s3cr3t%2Ft0ken%2Bx&b=2", NULL},
    {"GET /geo?a=1 HTTP/1.1\r\nHost: maps.test", true, GW_CRED_REFUSE,
     GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET /geo HTTP/1.1\r\nHost: maps.test", true, GW_CRED_REFUSE,
     GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET /geo?key=real HTTP/1.1\r\nHost: maps.test", true, GW_CRED_REFUSE,
     GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET /geo?key=" PH "&key=other HTTP/1.1\r\nHost: maps.test", true,
     GW_CRED_REFUSE, GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET /geo?keyx=" PH " HTTP/1.1\r\nHost: maps.test", true, GW_CRED_REFUSE,
     GW_CRED_BLOCKED, NULL, NULL, NULL},
    {"GET /geo?a=1&key=x HTTP/1.1\r\nHost: q-always.test", true, GW_CRED_APPLY,
     NULL, NULL, "a=1&key=s3cr3t%2Ft0ken%2Bx", NULL},
    {"GET /geo HTTP/1.1\r\nHost: q-always.test", true, GW_CRED_APPLY, NULL,
     NULL, "key=s3cr3t%2Ft0ken%2Bx", NULL},
};

static void
test_routes(void **state)
{
    (void)state;
    gw_creds *cs = creds_make();
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const route_case *rc = &cases[i];
        char head[2048];
        snprintf(head, sizeof head, "%s\r\n\r\n", rc->rc_head);
        box_arena *a = box_arena_new(GW_HTTP_ARENA_MAX);
        gw_http_opts ho = {.ho_intercepted = rc->rc_tls};
        gw_http_parser *p = gw_http_parser_new(a, &ho);
        gw_http_result r = gw_http_parse(p, head, strlen(head));
        if (r.r_status != GW_HTTP_DONE)
            fail_msg("case %zu: the head did not parse: %s", i,
                     r.r_reason ? r.r_reason : "?");
        gw_cred_edit e;
        const char *reason = NULL;
        gw_cred_req q = {.cq_req = r.r_req, .cq_tls = rc->rc_tls};
        gw_cred_verdict v = gw_creds_route(cs, &q, &e, &reason);
        if (v != rc->rc_verdict)
            fail_msg("case %zu: verdict %d, want %d (%s)", i, (int)v,
                     (int)rc->rc_verdict, reason ? reason : "");
        if (v == GW_CRED_REFUSE)
            assert_string_equal(reason, rc->rc_reason);
        if (v == GW_CRED_APPLY) {
            // The credential line first when there is one; identity
            // asked for always.
            bool identity = false;
            for (size_t k = 0; k < e.e_nadd; k++)
                identity = identity ||
                           strcmp(e.e_add[k], "Accept-Encoding: identity") == 0;
            assert_true(identity);
            assert_true(gw_cred_edit_drops(&e, 0, "accept-encoding"));
            if (rc->rc_add != NULL) {
                assert_true(e.e_nadd >= 2);
                assert_string_equal(e.e_add[0], rc->rc_add);
            }
            if (rc->rc_query != NULL) {
                assert_true(e.e_query_set);
                assert_string_equal(e.e_query, rc->rc_query);
            } else {
                assert_false(e.e_query_set);
            }
            if (rc->rc_drop != NULL)
                assert_true(gw_cred_edit_drops(&e, 0, rc->rc_drop));
            assert_true(e.e_nneedles >= 1);
            assert_memory_equal(e.e_needle[0], SECRET, strlen(SECRET));
            gw_cred_edit_free(&e);
        }
        box_arena_free(a);
    }
    gw_creds_free(cs);
}

/* aws://: a request the client signed with the placeholder key id is
 * signed again with the real key; any other is refused. */
static void
test_sigv4_route(void **state)
{
    (void)state;
    Box__EgressRoute m = BOX__EGRESS_ROUTE__INIT;
    Box__EgressRoute *pm = &m;
    char *dest = (char *)"*.amazonaws.com";
    char *names[] = {(char *)"AWS_ACCESS_KEY_ID",
                     (char *)"AWS_SECRET_ACCESS_KEY"};
    char *phs[] = {(char *)PH, (char *)PH "2"};
    m.name = (char *)"aws";
    m.n_destinations = 1;
    m.destinations = &dest;
    m.placement = BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_SIGV4;
    m.n_env_names = m.n_phantoms = 2;
    m.env_names = names;
    m.phantoms = phs;
    m.secret.data = (uint8_t *)"wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    m.secret.len = strlen((char *)m.secret.data);
    m.access_key_id = (char *)"AKIDEXAMPLE";
    m.session_token.data = (uint8_t *)"TOKEN-REAL";
    m.session_token.len = 10;
    Box__EgressRoutes all = BOX__EGRESS_ROUTES__INIT;
    all.n_routes = 1;
    all.routes = &pm;
    gw_creds *cs = NULL;
    char *err = NULL;
    assert_int_equal(gw_creds_from_wire(&all, &cs, &err), BOX_OK);
    static const struct {
        const char *head;
        gw_cred_verdict v;
    } sv[] = {
        {"GET /bucket/key HTTP/1.1\r\nHost: s3.us-west-2.amazonaws.com\r\n"
         "X-Amz-Date: 20150830T123600Z\r\nAuthorization: AWS4-HMAC-SHA256 "
         "Credential=" PH "/20150830/us-west-2/s3/aws4_request, "
         "SignedHeaders=host;x-amz-date, Signature=00\r\nX-Mine: kept",
         GW_CRED_APPLY},
        {"GET /bucket/key HTTP/1.1\r\nHost: s3.us-west-2.amazonaws.com\r\n"
         "Authorization: AWS4-HMAC-SHA256 Credential=AKIAREAL/20150830/"
         "us-west-2/s3/aws4_request, SignedHeaders=host, Signature=00",
         GW_CRED_REFUSE},
        {"GET /bucket/key HTTP/1.1\r\nHost: s3.us-west-2.amazonaws.com",
         GW_CRED_REFUSE},
        // a destination under the route that names no AWS scope
        {"GET / HTTP/1.1\r\nHost: example.amazonaws.com\r\nAuthorization: "
         "AWS4-HMAC-SHA256 Credential=" PH "/x/y/z/aws4_request, "
         "SignedHeaders=host, Signature=00",
         GW_CRED_REFUSE},
    };
    for (size_t i = 0; i < sizeof sv / sizeof *sv; i++) {
        char head[2048];
        snprintf(head, sizeof head, "%s\r\n\r\n", sv[i].head);
        box_arena *a = box_arena_new(GW_HTTP_ARENA_MAX);
        gw_http_opts ho = {.ho_intercepted = true};
        gw_http_result r =
            gw_http_parse(gw_http_parser_new(a, &ho), head, strlen(head));
        assert_int_equal(r.r_status, GW_HTTP_DONE);
        gw_cred_req q = {.cq_req = r.r_req, .cq_tls = true, .cq_now = 1440938160};
        gw_cred_edit e;
        const char *reason = NULL;
        gw_cred_verdict v = gw_creds_route(cs, &q, &e, &reason);
        if (v != sv[i].v)
            fail_msg("case %zu: verdict %d (%s)", i, (int)v,
                     reason ? reason : "");
        if (v == GW_CRED_REFUSE)
            assert_string_equal(reason, GW_CRED_BLOCKED);
        if (v == GW_CRED_APPLY) {
            bool auth = false, token = false, host = false;
            for (size_t k = 0; k < e.e_nadd; k++) {
                auth = auth || strncmp(e.e_add[k],
                                       "Authorization: AWS4-HMAC-SHA256 "
                                       "Credential=AKIDEXAMPLE/20150830/"
                                       "us-west-2/s3/aws4_request",
                                       80) == 0;
                token = token ||
                        strcmp(e.e_add[k], "X-Amz-Security-Token: TOKEN-REAL") ==
                            0;
                host = host ||
                       strcmp(e.e_add[k], "Host: s3.us-west-2.amazonaws.com") == 0;
            }
            assert_true(auth && token && host);
            // The client's signature fields go; its own fields stay.
            for (size_t k = 0; k < r.r_req->rq_nfields; k++) {
                const char *n = r.r_req->rq_fields[k].f_name;
                bool dropped = gw_cred_edit_drops(&e, k, n);
                assert_int_equal(dropped, strcmp(n, "X-Mine") != 0 &&
                                              strcmp(n, "Host") != 0);
            }
            // Both the key and the token are scrubbed from the answer.
            assert_int_equal(e.e_nneedles, 2);
            assert_memory_equal(e.e_needle[1], "TOKEN-REAL", 10);
            gw_cred_edit_free(&e);
        }
        box_arena_free(a);
    }
    gw_creds_free(cs);
}

/* A route that cannot be honoured is refused at load, naming it. */
static void
test_bad_routes(void **state)
{
    (void)state;
    static const struct {
        const char *dest;
        Box__RoutePlacement place;
        const char *header, *param, *secret, *phantom;
        const char *want;
    } bad[] = {
        {"a.test", P_HEADER, "X", "", "", PH, "its secret is empty"},
        {"a.test", P_HEADER, "X", "", "s", "", "it has no placeholder"},
        {"a.test", P_QUERY, "", "", "s", PH, "query_param needs a param"},
        {"a.test", P_HEADER, "", "", "s", PH, "header placement needs"},
        {"a.test:0", P_HEADER, "X", "", "s", PH, "destination \"a.test:0\""},
        {"a.test", BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_UNSPECIFIED, "X", "",
         "s", PH, "its placement is not one"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        Box__EgressRoute m = BOX__EGRESS_ROUTE__INIT;
        Box__EgressRoute *pm = &m;
        char *dest = (char *)bad[i].dest, *ph = (char *)bad[i].phantom;
        char *name = (char *)"T";
        m.name = (char *)"bad";
        m.n_destinations = 1;
        m.destinations = &dest;
        m.placement = bad[i].place;
        m.header = (char *)bad[i].header;
        m.param = (char *)bad[i].param;
        m.n_phantoms = m.n_env_names = 1;
        m.phantoms = &ph;
        m.env_names = &name;
        m.secret.data = (uint8_t *)bad[i].secret;
        m.secret.len = strlen(bad[i].secret);
        Box__EgressRoutes all = BOX__EGRESS_ROUTES__INIT;
        all.n_routes = 1;
        all.routes = &pm;
        gw_creds *cs = NULL;
        char *err = NULL;
        assert_int_equal(gw_creds_from_wire(&all, &cs, &err), BOX_EINVAL);
        assert_null(cs);
        assert_non_null(err);
        if (strstr(err, bad[i].want) == NULL ||
            strncmp(err, "credential route bad: ", 22) != 0)
            fail_msg("case %zu: %s", i, err);
        box_free(err);
    }
}

/* The scrubbed stream is the same however it is split. */
static void
test_scrub_splits(void **state)
{
    (void)state;
    const char *needles[] = {"SECRET", "U0VDUkVU"};
    size_t lens[] = {6, 8};
    static const struct {
        const char *in, *want;
    } cases2[] = {
        {"", ""},
        {"no secret here", "no secret here"},
        {"SECRET", GW_SCRUB_MARK},
        {"aSECRETb", "a" GW_SCRUB_MARK "b"},
        {"SECRETSECRET", GW_SCRUB_MARK GW_SCRUB_MARK},
        {"SECRE", "SECRE"},
        {"SSECRET", "S" GW_SCRUB_MARK},
        {"x U0VDUkVU y SECRET", "x " GW_SCRUB_MARK " y " GW_SCRUB_MARK},
        {"SECRESECRET", "SECRE" GW_SCRUB_MARK},
    };
    for (size_t i = 0; i < sizeof cases2 / sizeof *cases2; i++) {
        size_t n = strlen(cases2[i].in);
        // Every split into two pieces, and a byte at a time.
        for (size_t cut = 0; cut <= n + 1; cut++) {
            gw_scrub s;
            gw_scrub_init(&s, needles, lens, 2);
            box_buf out;
            box_buf_init(&out, 4096);
            if (cut <= n) {
                assert_int_equal(gw_scrub_feed(&s, cases2[i].in, cut, &out),
                                 BOX_OK);
                assert_int_equal(
                    gw_scrub_feed(&s, cases2[i].in + cut, n - cut, &out),
                    BOX_OK);
            } else {
                for (size_t k = 0; k < n; k++)
                    assert_int_equal(
                        gw_scrub_feed(&s, cases2[i].in + k, 1, &out), BOX_OK);
            }
            assert_int_equal(gw_scrub_end(&s, &out), BOX_OK);
            assert_int_equal(out.b_len, strlen(cases2[i].want));
            assert_memory_equal(out.b_data, cases2[i].want, out.b_len);
            box_buf_reset(&out);
            gw_scrub_free(&s);
        }
        box_buf all;
        box_buf_init(&all, 4096);
        assert_int_equal(gw_scrub_all(needles, lens, 2, cases2[i].in, n, &all),
                         BOX_OK);
        assert_int_equal(all.b_len, strlen(cases2[i].want));
        box_buf_reset(&all);
    }
}

/* A long stream fed in large pieces: every copy found, nothing else
 * changed. */
static void
test_scrub_long(void **state)
{
    (void)state;
    const char *needles[] = {SECRET};
    size_t lens[] = {strlen(SECRET)};
    box_buf in, want, out;
    box_buf_init(&in, 1u << 24);
    box_buf_init(&want, 1u << 24);
    box_buf_init(&out, 1u << 24);
    for (int i = 0; i < 20000; i++) {
        char filler[64];
        int k = snprintf(filler, sizeof filler, "line %d ", i);
        assert_int_equal(box_buf_append(&in, filler, (size_t)k), BOX_OK);
        assert_int_equal(box_buf_append(&want, filler, (size_t)k), BOX_OK);
        if (i % 7 == 0) {
            assert_int_equal(box_buf_puts(&in, SECRET), BOX_OK);
            assert_int_equal(box_buf_puts(&want, GW_SCRUB_MARK), BOX_OK);
        }
    }
    gw_scrub s;
    gw_scrub_init(&s, needles, lens, 1);
    for (size_t off = 0; off < in.b_len; off += 40000) {
        size_t n = in.b_len - off < 40000 ? in.b_len - off : 40000;
        assert_int_equal(gw_scrub_feed(&s, in.b_data + off, n, &out), BOX_OK);
    }
    assert_int_equal(gw_scrub_end(&s, &out), BOX_OK);
    assert_int_equal(out.b_len, want.b_len);
    assert_memory_equal(out.b_data, want.b_data, want.b_len);
    gw_scrub_free(&s);
    box_buf_reset(&in);
    box_buf_reset(&want);
    box_buf_reset(&out);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routes),
        cmocka_unit_test(test_bad_routes),
        cmocka_unit_test(test_sigv4_route),
        cmocka_unit_test(test_scrub_splits),
        cmocka_unit_test(test_scrub_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
