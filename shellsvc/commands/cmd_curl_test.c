/* SPDX-License-Identifier: Apache-2.0 */
/* curl: the SSRF floor's every refusal (box-spec §3.12, exact text), the
 * option errors, and the transfer against a stand-in gateway on a socket
 * pair (what the broker's dial hands a worker), so the gateway's marked
 * refusals, -f, -i, -o, -w, -L, -d and -m are seen without a network. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_procspec.h"
#include "cmd_curl.h"
#include "cmd_http.h"
#include "cmd_http_standin.h"
#include "cmd_test_table.h"

/* ---- the floor ---- */

typedef struct frow {
    const char *url;
    const char *reason; // NULL: let through
    const char *authority;
} frow;

static const frow floor_rows[] = {
    {"http://example.com/", NULL, "example.com:80"},
    {"https://example.com/x?y#z", NULL, "example.com:443"},
    {"HTTPS://Example.COM:8443", NULL, "example.com:8443"},
    {"http://8.8.8.8/", NULL, "8.8.8.8:80"},
    {"http://[2001:db8::1]/", NULL, "[2001:db8::1]:80"},
    {"http://172.32.0.1/", NULL, "172.32.0.1:80"},
    {"http://[::8.8.8.8]/", NULL, "[::8.8.8.8]:80"},
    // as WHATWG and curl read it: the host is "path"
    {"http:///path", NULL, "path:80"},
    {"http://mylocalhost/", NULL, "mylocalhost:80"},
    // schemes
    {"ftp://example.com/",
     "access denied: unsupported scheme in "
     "ftp://example.com/",
     NULL},
    {"file:///etc/passwd",
     "access denied: unsupported scheme in "
     "file:///etc/passwd",
     NULL},
    {"example.com", "access denied: unsupported scheme in example.com", NULL},
    {"gopher://127.0.0.1/",
     "access denied: unsupported scheme in "
     "gopher://127.0.0.1/",
     NULL},
    // IPv4: loopback, private, link-local, unspecified, metadata
    {"http://127.0.0.1/", "access denied: 127.0.0.1", NULL},
    {"http://127.5.6.7:8080/", "access denied: 127.5.6.7", NULL},
    {"http://10.1.2.3/", "access denied: 10.1.2.3", NULL},
    {"http://172.16.0.1/", "access denied: 172.16.0.1", NULL},
    {"http://172.31.255.255/", "access denied: 172.31.255.255", NULL},
    {"http://192.168.1.1/", "access denied: 192.168.1.1", NULL},
    {"http://169.254.169.254/latest/meta-data/",
     "access denied: 169.254.169.254", NULL},
    {"http://0.0.0.0/", "access denied: 0.0.0.0", NULL},
    // the numeric spellings of a refused address
    {"http://127.1/", "access denied: 127.0.0.1", NULL},
    {"http://2130706433/", "access denied: 127.0.0.1", NULL},
    {"http://0x7f.0.0.1/", "access denied: 127.0.0.1", NULL},
    {"http://0177.0.0.1/", "access denied: 127.0.0.1", NULL},
    // IPv6: loopback, unspecified, ULA, link-local
    {"http://[::1]/", "access denied: ::1", NULL},
    {"http://[0:0:0:0:0:0:0:1]:8080/", "access denied: ::1", NULL},
    {"http://[::]/", "access denied: ::", NULL},
    {"http://[fc00::1]/", "access denied: fc00::1", NULL},
    {"http://[FD12:3456::1]/", "access denied: fd12:3456::1", NULL},
    {"http://[fe80::1]/", "access denied: fe80::1", NULL},
    {"http://[febf::1]/", "access denied: febf::1", NULL},
    // embedded IPv4: mapped, compatible, 6to4, Teredo
    {"http://[::ffff:127.0.0.1]/", "access denied: ::ffff:127.0.0.1", NULL},
    {"http://[::ffff:a9fe:a9fe]/", "access denied: ::ffff:169.254.169.254",
     NULL},
    {"http://[::10.0.0.1]/", "access denied: ::a00:1", NULL},
    {"http://[2002:7f00:1::]/", "access denied: 2002:7f00:1::", NULL},
    {"http://[2002:c0a8:101::1]/", "access denied: 2002:c0a8:101::1", NULL},
    {"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", NULL,
     "[2001:0:4136:e378:8000:63bf:3fff:fdd2]:80"},
    {"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
     "access denied: 2001:0:4136:e378:8000:63bf:80ff:fffe", NULL},
    // localhost names (case, trailing dot)
    {"http://localhost/", "access denied: localhost", NULL},
    {"http://LocalHost:8080/", "access denied: localhost", NULL},
    {"http://localhost./", "access denied: localhost", NULL},
    {"http://api.localhost/", "access denied: api.localhost", NULL},
    {"https://A.B.LOCALHOST./x", "access denied: a.b.localhost", NULL},
    // unparsable
    {"http://", "access denied: cannot parse host from http://", NULL},
    {"http://:8080/", "access denied: cannot parse host from http://:8080/",
     NULL},
    {"http://exa mple.com/",
     "access denied: cannot parse host from "
     "http://exa mple.com/",
     NULL},
    {"http://[::1/", "access denied: cannot parse host from http://[::1/",
     NULL},
    {"http://host:99999/",
     "access denied: cannot parse host from "
     "http://host:99999/",
     NULL},
};

static void
test_floor(void **state)
{
    (void)state;
    bool ok = true;
    for (size_t i = 0; i < NELEM(floor_rows); i++) {
        const frow *r = &floor_rows[i];
        http_target t;
        char *reason = NULL;
        box_err rv = http_floor(r->url, &t, &reason);
        bool row =
            r->reason != NULL
                ? rv == BOX_EDENIED && strcmp(reason, r->reason) == 0
                : rv == BOX_OK && strcmp(t.ct_authority, r->authority) == 0;
        if (!row)
            print_error("floor %zu: %s: rv %d reason [%s] authority [%s]\n", i,
                        r->url, rv, reason ? reason : "",
                        rv == BOX_OK ? t.ct_authority : "");
        ok = ok && row;
        if (rv == BOX_OK)
            http_target_clear(&t);
        box_free(reason);
    }
    assert_true(ok);
}

static void
test_proto_list(void **state)
{
    (void)state;
    const unsigned both = CURL_PROTO_BOTH;
    unsigned out = 0;
    assert_true(curl_proto_list("=https", both, &out));
    assert_int_equal(out, CURLPROTO_HTTPS);
    assert_true(curl_proto_list("-all,+http", both, &out));
    assert_int_equal(out, CURLPROTO_HTTP);
    assert_true(curl_proto_list("-http", both, &out));
    assert_int_equal(out, CURLPROTO_HTTPS);
    assert_true(curl_proto_list("=ftp,https", both, &out));
    assert_int_equal(out, CURLPROTO_HTTPS);
    assert_true(curl_proto_list("all", 0, &out));
    assert_int_equal(out, both);
    out = 7;
    assert_false(curl_proto_list("", both, &out));
    assert_false(curl_proto_list("htp", both, &out));
    assert_false(curl_proto_list("https,", both, &out) && out != both);
    assert_false(curl_proto_list("=", both, &out));
}

#define E "strands-shell: curl: "
#define U "http://example.com"

typedef struct grow {
    const char *script;
    const char *out, *err;
    int status;
    const char *deny_fs; // th_deny_fs
    int dials;           // -1: not checked
} grow;

static const grow gw_rows[] = {
    // usage
    {"curl", "", E "no URL specified\n", 2, NULL, 0},
    {"curl -s", "", E "no URL specified\n", 2, NULL, 0},
    {"curl --proto htp " U "/ok", "", E "bad protocol list: htp\n", 2, NULL, 0},
    {"curl --proto-redir '' " U "/ok", "", E "bad protocol list: \n", 2, NULL,
     0},
    {"curl -m x " U "/ok", "",
     E "option -m: expected a proper numerical parameter\n", 2, NULL, 0},
    {"curl -Z " U, "",
     "strands-shell: curl: invalid option -- 'Z'\n"
     "Try 'curl --help' for more information.\n",
     2, NULL, 0},
    {"curl -b cookies.txt " U "/ok", "",
     E "-b takes cookies as NAME=VALUE here; cookie files are not read\n", 2,
     NULL, 0},
    {"curl -h | head -n 1", "Usage: curl [options...] <url>\n", "", 0, NULL, 0},
    {"curl --help | head -n 1", "Usage: curl [options...] <url>\n", "", 0, NULL,
     0},
    // the floor, before any dial, even with -s
    {"curl -s http://127.0.0.1:8080/", "", E "access denied: 127.0.0.1\n", 1,
     NULL, 0},
    {"curl -s ftp://example.com/", "",
     E "access denied: unsupported scheme in ftp://example.com/\n", 1, NULL, 0},
    {"curl http://localhost./ ; echo $?", "1\n", E "access denied: localhost\n",
     0, NULL, 0},
    // --proto refuses a scheme it leaves out
    {"curl --proto =https " U "/ok", "", E "(1) Protocol \"http\" disabled\n",
     1, NULL, 0},
    {"curl -s --proto =https " U "/ok", "", "", 1, NULL, 0},
    // a permitted GET; -i; -w; -o
    {"curl " U "/ok", "hello\n", "", 0, NULL, 1},
    {"curl -s " U "/ok -w '%{http_code} %{content_type} %{size_download} "
     "%{url_effective}\\n'",
     "hello\n200 text/plain 6 " U "/ok\n", "", 0, NULL, 1},
    {"curl -i " U "/ok",
     "HTTP/1.1 200 X\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n"
     "Connection: close\r\n\r\nhello\n",
     "", 0, NULL, 1},
    {"curl -s -o out " U "/ok; cat out", "hello\n", "", 0, NULL, 1},
    {"curl -o secret " U "/ok", "", DENIED_FS("curl", "/home/lash/secret"), 23,
     "/home/lash/secret", 1},
    {"curl -w '%{nope}x' " U "/ok", "hello\nx",
     E "unknown --write-out variable: 'nope'\n", 0, NULL, 1},
    // the gateway's refusals: the first line, always, never the body
    {"curl -s " U "/refused", "", E REFUSAL "\n", 1, NULL, 1},
    {"curl -i -o out " U "/refused; ls out", "",
     E REFUSAL
     "\nstrands-shell: ls: cannot access 'out': No such file or directory\n",
     2, NULL, 1},
    {"curl " U "/refused-empty", "",
     E "the egress gateway refused this request\n", 1, NULL, 1},
    {"curl -s https://example.com/", "",
     E "net:connect gate: policy denied this operation on 'example.com' "
       "[policy: no_example].\n",
     1, NULL, 1},
    {"curl https://other.com/", "", E "(6) upstream connect failed\n", 6, NULL,
     1},
    {"curl https://empty.com/", "",
     E "(6) the egress gateway did not open a tunnel to empty.com:443\n", 6,
     NULL, 1},
    {"curl -s https://other.com/", "", "", 6, NULL, 1},
    // statuses
    {"curl " U "/404", "nope\n", "", 0, NULL, 1},
    {"curl -f " U "/404", "", E "(22) The requested URL returned error: 404\n",
     22, NULL, 1},
    {"curl -sf " U "/404", "", "", 22, NULL, 1},
    {"curl -sSf " U "/404", "",
     E "(22) The requested URL returned error: 404\n", 22, NULL, 1},
    {"curl -s " U "/big | wc -c", "0\n", "", 0, NULL, 1},
    {"curl " U "/big; echo $?", "6\n", E "(6) response body too large\n", 0,
     NULL, 1},
    {"curl -m 0.3 " U "/slow", "", E "(28) Operation timed out\n", 28, NULL, 1},
    // redirects: only with -L, each hop floored and dialed again
    {"curl " U "/redir", "moved\n", "", 0, NULL, 1},
    {"curl -L " U "/redir -w '%{url_effective}'", "hello\n" U "/ok", "", 0,
     NULL, 2},
    {"curl -L " U "/redir-local", "", E "access denied: 127.0.0.1\n", 1, NULL,
     1},
    {"curl -L " U "/redir-ftp", "",
     E "access denied: unsupported scheme in ftp://example.com/f\n", 1, NULL,
     1},
    {"curl -L --proto-redir =https " U "/redir", "",
     E "(1) Protocol \"http\" disabled\n", 1, NULL, 1},
    {"curl -L " U "/loop", "", E "(47) Maximum (10) redirects followed\n", 47,
     NULL, 11},
    // a hop drops the body, cookies and credentials, keeps other headers
    {"curl -s -L -d x=1 -b k=v -u me:pw -H 'Authorization: Bearer t' "
     "-H 'cookie: c=1' -H 'X-K: 1' " U "/redir-echo",
     "GET http://example.com/echo HTTP/1.1\r\nHost: example.com\r\n"
     "User-Agent: curl/" LIBCURL_VERSION "\r\nAccept: */*\r\n"
     "Proxy-Connection: Keep-Alive\r\nX-K: 1\r\n\r\n",
     "", 0, NULL, 2},
    // the request: -d, --data-raw, --json, @file through the kernel
    {"curl -s -d a=1 -d b=2 -H 'X-T: 1' -A agent/1 " U "/echo",
     "POST http://example.com/echo HTTP/1.1\r\nHost: example.com\r\n"
     "User-Agent: agent/1\r\nAccept: */*\r\nProxy-Connection: Keep-Alive\r\n"
     "X-T: 1\r\nContent-Length: 7\r\n"
     "Content-Type: application/x-www-form-urlencoded\r\n\r\na=1&b=2",
     "", 0, NULL, 1},
    {"printf 'x\\ny\\r\\n' > f; curl -s -d @f --data-raw @f " U
     "/echo | tail -c 5",
     "xy&@f", "", 0, NULL, 1},
    {"printf '{\"a\":\\n1}' > j; curl -s --json @j " U "/echo | tail -c 8",
     "{\"a\":\n1}", "", 0, NULL, 1},
    {"curl -s --json '{}' " U "/echo | grep -ci 'application/json'", "2\n", "",
     0, NULL, 1},
    // a -H of either field, before or after --json, is the one sent
    {"curl -s -H 'content-type: text/x' --json '{}' " U "/echo | grep -ci "
     "'^content-type'",
     "1\n", "", 0, NULL, 1},
    {"curl -s --json '{}' -H 'Accept: x/y' " U "/echo | grep -i '^accept'",
     "Accept: x/y\r\n", "", 0, NULL, 1},
    {"curl -s -X PUT -b 'k=v' -u me:pw " U "/echo | head -n 1",
     "PUT "
     "http://example.com/echo HTTP/1.1\r\n",
     "", 0, NULL, 1},
    {"curl -s -d @nofile " U "/echo", "",
     E "nofile: No such file or directory\n", 1, NULL, 0},
    {"curl -s -d @secret " U "/echo", "",
     DENIED_FS("curl", "/home/lash/secret"), 1, "/home/lash/secret", 0},
};

static void
test_gateway(void **state)
{
    (void)state;
    bool ok = true;
    for (size_t i = 0; i < NELEM(gw_rows); i++) {
        const grow *r = &gw_rows[i];
        ok = standin_row(i, r->script, r->deny_fs, r->status, r->out, r->err,
                         r->dials) &&
             ok;
    }
    assert_true(ok);
}

/* No gateway, or one the broker cannot reach: status 7, quiet with -s. */
static void
test_no_network(void **state)
{
    (void)state;
    th t = {0};
    int st = standin_run(&t, "curl " U "/ok", NULL);
    assert_true(tcase_check(0, "none", st, &t, 7, "",
                            E "(7) the box has no network\n"));
    th_reset(&t);
    st = standin_run(&t, "curl -s " U "/ok", NULL);
    assert_true(tcase_check(1, "none -s", st, &t, 7, "", ""));
    th_reset(&t);
    st = standin_run(&t, "curl -s http://10.0.0.1/", NULL);
    assert_true(tcase_check(2, "none floor", st, &t, 1, "",
                            E "access denied: 10.0.0.1\n"));
    th_reset(&t);
    st = standin_run(&t, "curl " U "/ok", standin_dial_refused);
    assert_true(tcase_check(3, "refused", st, &t, 7, "",
                            E "(7) cannot reach the egress gateway: cannot "
                              "connect to the egress gateway: Connection "
                              "refused\n"));
    th_reset(&t);
}

int
main(void)
{
    standin_confine_connect();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor),
        cmocka_unit_test(test_proto_list),
        cmocka_unit_test(test_gateway),
        cmocka_unit_test(test_no_network),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
