/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for box_dest: spellings, matches and overlaps, as tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box_alloc.h"
#include "box_dest.h"

/* A spelling and what it parses to; ps_why set for a refusal. */
typedef struct parse_case {
    const char *ps_text;
    const char *ps_host;
    bool ps_wildcard;
    unsigned ps_port;
    const char *ps_path;
    const char *ps_why;
} parse_case;

#define OK(t, h, w, port, path)                                                \
    {                                                                          \
        t, h, w, port, path, NULL                                              \
    }
#define NO(t, why)                                                             \
    {                                                                          \
        t, NULL, false, 0, NULL, why                                           \
    }

#define STAR_WHY                                                               \
    "`*` may only lead the host as `*.` or stand for a whole path segment"
#define HOSTCHAR_WHY                                                           \
    "the host holds a character other than letters, digits, '-', '_' and '.'"

static const parse_case parse_cases[] = {
    OK("api.github.com", "api.github.com", false, 0, ""),
    OK("API.GitHub.COM.", "api.github.com", false, 0, ""),
    OK("a.com:443", "a.com", false, 443, ""),
    OK("a.com:1", "a.com", false, 1, ""),
    OK("a.com:65535", "a.com", false, 65535, ""),
    OK("a.com:08443", "a.com", false, 8443, ""),
    OK("api.github.com/repos", "api.github.com", false, 0, "/repos"),
    OK("api.github.com/repos/", "api.github.com", false, 0, "/repos"),
    OK("h/", "h", false, 0, ""),
    OK("h:8443/v1/x", "h", false, 8443, "/v1/x"),
    OK("h/*/x", "h", false, 0, "/*/x"),
    OK("h/*", "h", false, 0, "/*"),
    OK("h/Case/%41", "h", false, 0, "/Case/%41"), // paths keep their case
    OK("*.x.com", "x.com", true, 0, ""),
    OK("*.X.com.:8080/a", "x.com", true, 8080, "/a"),
    OK("*.com", "com", true, 0, ""),
    OK("localhost", "localhost", false, 0, ""),
    OK("127.0.0.1:8080", "127.0.0.1", false, 8080, ""),
    OK("_srv.a-b.com", "_srv.a-b.com", false, 0, ""),
    NO("", "it is empty"),
    NO("a.com b", "it holds a space or a control character"),
    NO("a.com\t", "it holds a space or a control character"),
    NO("a\x7f.com", "it holds a space or a control character"),
    NO("https://a.com", "it is a URL; write the host alone, without a scheme"),
    NO("a.com/x?y=1",
       "it holds a query or a fragment; a destination ends at its path"),
    NO("a.com/#f",
       "it holds a query or a fragment; a destination ends at its path"),
    NO("*", "`*` alone would match every host"),
    NO("*:443", "`*` alone would match every host"),
    NO("*/x", "`*` alone would match every host"),
    NO("*.", "the host is empty"),
    NO("*.*.x.com", STAR_WHY),
    NO("a.*.com", STAR_WHY),
    NO("a*.com", STAR_WHY),
    NO("x.com*", STAR_WHY),
    NO("h/a*", STAR_WHY),
    NO("h/**/x", STAR_WHY),
    NO(":443", "the host is empty"),
    NO("/x", "the host is empty"),
    NO(".", "the host is empty"),
    NO("a..com", "the host has an empty label"),
    NO(".a.com", "the host has an empty label"),
    NO("a.com..", "the host has an empty label"),
    NO("user@a.com", HOSTCHAR_WHY),
    NO("[::1]:443", HOSTCHAR_WHY),
    NO("a\xc3\xa9.com", HOSTCHAR_WHY),
    NO("a.com:0", "port 0 is not a port"),
    NO("a.com:00", "port 0 is not a port"),
    NO("a.com:65536", "the port is past 65535"),
    NO("a.com:99999999999999999999", "the port is past 65535"),
    NO("a.com:", "the port is empty"),
    NO("a.com:/x", "the port is empty"),
    NO("a.com:-1", "the port is not a decimal number"),
    NO("a.com:44a", "the port is not a decimal number"),
    NO("a.com:443:1", "the port is not a decimal number"),
    NO("h//x", "the path has an empty segment"),
    NO("h//", "the path has an empty segment"),
    NO("h/a//", "the path has an empty segment"),
    NO("h/./x", "the path has a '.' or '..' segment, which no canonical "
                "request path holds"),
    NO("h/x/..", "the path has a '.' or '..' segment, which no canonical "
                 "request path holds"),
};

static void
test_parse(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        const parse_case *pc = &parse_cases[i];
        box_dest d;
        const char *why = NULL;
        box_err rv = box_dest_parse(pc->ps_text, &d, &why);
        if (pc->ps_why != NULL) {
            if (rv != BOX_EINVAL || why == NULL || strcmp(why, pc->ps_why) != 0)
                fail_msg("%s: want refusal \"%s\", got %d \"%s\"", pc->ps_text,
                         pc->ps_why, (int)rv, why ? why : "");
            assert_null(d.d_host);
            assert_null(d.d_path);
            continue;
        }
        if (rv != BOX_OK)
            fail_msg("%s: refused: %s", pc->ps_text, why ? why : "");
        assert_string_equal(d.d_host, pc->ps_host);
        assert_int_equal(d.d_wildcard, pc->ps_wildcard);
        assert_int_equal(d.d_port, pc->ps_port);
        assert_string_equal(d.d_path, pc->ps_path);
        box_dest_free(&d);
        assert_null(d.d_host);
    }
}

/* A destination, a request, and whether the request falls under it. */
typedef struct match_case {
    const char *mc_dest;
    const char *mc_host;
    unsigned mc_port;
    const char *mc_path;
    bool mc_match;
} match_case;

static const match_case match_cases[] = {
    {"api.github.com", "api.github.com", 443, "/", true},
    {"api.github.com", "api.github.com", 80, "/x/y", true},
    {"api.github.com", "api.github.com", 8443, "/", false},
    {"api.github.com", "github.com", 443, "/", false},
    {"api.github.com", "xapi.github.com", 443, "/", false},
    {"api.github.com", "a.api.github.com", 443, "/", false},
    {"api.github.com", "api.github.com.", 443, "/", true},
    {"api.github.com", "API.github.com", 443, "/", true},
    {"a.com:443", "a.com", 443, "/", true},
    {"a.com:443", "a.com", 80, "/", false},
    {"a.com:8443", "a.com", 8443, "/", true},
    {"a.com:8443", "a.com", 443, "/", false},
    {"*.x.com", "a.x.com", 443, "/", true},
    {"*.x.com", "b.a.x.com", 443, "/", true},
    {"*.x.com", "x.com", 443, "/", false},
    {"*.x.com", ".x.com", 443, "/", false},
    {"*.x.com", "ax.com", 443, "/", false},
    {"*.x.com", "a.x.com.evil", 443, "/", false},
    {"h/repos", "h", 443, "/repos", true},
    {"h/repos", "h", 443, "/repos/", true},
    {"h/repos", "h", 443, "/repos/a/b", true},
    {"h/repos", "h", 443, "/reposx", false},
    {"h/repos", "h", 443, "/", false},
    {"h/repos", "h", 443, "/Repos", false},
    {"h/repos", "h", 443, "/repos?x=1", true},
    {"h/repos", "h", 443, "/reposx?x=/repos", false},
    {"h/a/b", "h", 443, "/a", false},
    {"h/a/b", "h", 443, "/a/b", true},
    {"h/*/x", "h", 443, "/a/x", true},
    {"h/*/x", "h", 443, "/a/x/y", true},
    {"h/*/x", "h", 443, "/a/b/x", false},
    {"h/*/x", "h", 443, "//x", false},
    {"h/*/x", "h", 443, "/a", false},
    {"h/*", "h", 443, "/a", true},
    {"h/*", "h", 443, "/", false},
    {"h:8443/v1", "h", 8443, "/v1/x", true},
    {"h:8443/v1", "h", 443, "/v1/x", false},
    {"h", "h", 443, "", true},
    {"h/a", "h", 443, "", false},
};

static void
test_match(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++) {
        const match_case *mc = &match_cases[i];
        box_dest d;
        const char *why = NULL;
        assert_int_equal(box_dest_parse(mc->mc_dest, &d, &why), BOX_OK);
        bool got = box_dest_match(&d, mc->mc_host, mc->mc_port, mc->mc_path);
        if (got != mc->mc_match)
            fail_msg("%s vs %s:%u%s: want %s", mc->mc_dest, mc->mc_host,
                     mc->mc_port, mc->mc_path, mc->mc_match ? "match" : "none");
        box_dest_free(&d);
    }
}

/* Two destinations and whether some request falls under both; the table
 * is read both ways round. */
typedef struct overlap_case {
    const char *oc_a;
    const char *oc_b;
    bool oc_overlap;
} overlap_case;

static const overlap_case overlap_cases[] = {
    {"api.github.com", "api.github.com/repos", true},
    {"api.github.com", "API.github.com.", true},
    {"a.com:443", "a.com", true},
    {"a.com:80", "a.com", true},
    {"a.com:8443", "a.com", false},
    {"a.com:8443", "a.com:8443", true},
    {"a.com:8443", "a.com:8444", false},
    {"*.x.com", "a.x.com", true},
    {"*.x.com", "b.a.x.com/p", true},
    {"x.com", "*.x.com", false},
    {"*.x.com", "*.x.com", true},
    {"*.x.com", "*.a.x.com", true},
    {"*.x.com", "*.y.com", false},
    {"*.x.com", "*.ax.com", false},
    {"*.com", "a.x.com", true},
    {"h/a", "h/b", false},
    {"h/a", "h/a/b", true},
    {"h/a", "h/ab", false},
    {"h/*/x", "h/a/x", true},
    {"h/*/x", "h/a/y", false},
    {"h/*/x", "h/a", true},
    {"h/*/x", "h/*/y", false},
    {"h/*", "h/a/b", true},
    {"h/a/*/c", "h/*/b/d", false},
    {"h/a/*/c", "h/*/b/c/d", true},
    {"h:8443/a", "h/a", false},
    {"a.com", "b.com", false},
    {"*.x.com:8443/a", "q.x.com:8443/a/b", true},
    {"*.x.com:8443/a", "q.x.com:8443/b", false},
};

static void
check_overlap(const char *a, const char *b, bool want)
{
    box_dest da, db;
    const char *why = NULL;
    assert_int_equal(box_dest_parse(a, &da, &why), BOX_OK);
    assert_int_equal(box_dest_parse(b, &db, &why), BOX_OK);
    if (box_dest_overlap(&da, &db) != want)
        fail_msg("%s vs %s: want %s", a, b, want ? "overlap" : "apart");
    box_dest_free(&da);
    box_dest_free(&db);
}

static void
test_overlap(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(overlap_cases) / sizeof(overlap_cases[0]);
         i++) {
        check_overlap(overlap_cases[i].oc_a, overlap_cases[i].oc_b,
                      overlap_cases[i].oc_overlap);
        check_overlap(overlap_cases[i].oc_b, overlap_cases[i].oc_a,
                      overlap_cases[i].oc_overlap);
    }
}

/* An overlap answer agrees with matching: where two destinations are
 * said to overlap, one probe request falls under both; where they are
 * said not to, no probe falls under both. */
static void
test_overlap_agrees_with_match(void **state)
{
    (void)state;
    static const char *const hosts[] = {"h",       "a.com",     "x.com",
                                        "a.x.com", "b.a.x.com", "q.x.com"};
    static const unsigned ports[] = {443, 80, 8443};
    static const char *const paths[] = {"/",    "/a",     "/a/b",     "/a/x",
                                        "/b/x", "/a/b/c", "/a/b/c/d", "/repos"};
    for (size_t i = 0; i < sizeof(overlap_cases) / sizeof(overlap_cases[0]);
         i++) {
        box_dest a, b;
        const char *why = NULL;
        bool both = false;
        assert_int_equal(box_dest_parse(overlap_cases[i].oc_a, &a, &why),
                         BOX_OK);
        assert_int_equal(box_dest_parse(overlap_cases[i].oc_b, &b, &why),
                         BOX_OK);
        for (size_t h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++)
            for (size_t p = 0; p < sizeof(ports) / sizeof(ports[0]); p++)
                for (size_t q = 0; q < sizeof(paths) / sizeof(paths[0]); q++)
                    both = both ||
                           (box_dest_match(&a, hosts[h], ports[p], paths[q]) &&
                            box_dest_match(&b, hosts[h], ports[p], paths[q]));
        if (both && !overlap_cases[i].oc_overlap)
            fail_msg("%s and %s share a request", overlap_cases[i].oc_a,
                     overlap_cases[i].oc_b);
        box_dest_free(&a);
        box_dest_free(&b);
    }
}

/* Every allocation failure is BOX_ENOMEM with nothing left behind. */
static void
test_parse_nomem(void **state)
{
    (void)state;
    for (unsigned long n = 1;; n++) {
        box_dest d;
        const char *why = NULL;
        box_alloc_fail_after(n);
        box_err rv = box_dest_parse("*.X.com:8443/a/*/b", &d, &why);
        unsigned long calls = box_alloc_calls();
        box_alloc_fail_off();
        if (rv == BOX_OK) {
            assert_string_equal(d.d_host, "x.com");
            box_dest_free(&d);
            assert_true(calls < n); // none failed: the walk is done
            break;
        }
        assert_int_equal(rv, BOX_ENOMEM);
        assert_null(d.d_host);
        assert_null(d.d_path);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_overlap),
        cmocka_unit_test(test_overlap_agrees_with_match),
        cmocka_unit_test(test_parse_nomem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
