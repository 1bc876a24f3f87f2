/* SPDX-License-Identifier: Apache-2.0 */
/* wget: the names documents are saved under, its option errors, and its
 * flags against the stand-in gateway (cmd_http_standin.h): the log's
 * lines (dates and rates masked), Wget's exit statuses, the floor's and
 * the gateway's refusals, and every file effect through admission. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_http_standin.h"
#include "cmd_test_table.h"
#include "cmd_wget.h"

/* ---- names ---- */

typedef struct nrow {
    const char *url, *name; // name NULL: the URL does not parse
} nrow;

static const nrow name_rows[] = {
    {"http://example.com/ok", "ok"},
    {"http://example.com/", "index.html"},
    {"http://example.com", "index.html"},
    {"http://example.com/a/b/", "index.html"},
    {"http://example.com/a/b/c.tar.gz", "c.tar.gz"},
    {"http://example.com/p?q=1&r=2", "p?q=1&r=2"},
    {"http://example.com/?q=1", "index.html?q=1"},
    {"http://example.com/x#frag", "x"},
    {"http://example.com/a%20b", "a b"},
    {"http://example.com/%E2%82%AC", "\xe2\x82\xac"},
    // a byte no file name holds stays encoded
    {"http://example.com/a%2Fb", "a%2Fb"},
    {"http://example.com/a%00b", "a%00b"},
    {"http://example.com/a%0ab", "a%0ab"},
    {"http://example.com/a%zz", "a%zz"},
    {"http://example.com/a%2", "a%2"},
    // dot segments are the parser's; what is left is a directory
    {"http://example.com/a/..", "index.html"},
    {"http://example.com/a/.", "index.html"},
    {"https://example.com:8443/dl/file.bin", "file.bin"},
    {"http://exa mple.com/", NULL},
};

static void
test_local_name(void **state)
{
    (void)state;
    bool ok = true;
    for (size_t i = 0; i < NELEM(name_rows); i++) {
        const nrow *r = &name_rows[i];
        char *name = NULL;
        box_err rv = wget_local_name(r->url, &name);
        bool row = r->name != NULL ? rv == BOX_OK && strcmp(name, r->name) == 0
                                   : rv == BOX_EINVAL && name == NULL;
        if (!row)
            print_error("name %zu: %s: rv %d name [%s] (want [%s])\n", i,
                        r->url, rv, name ? name : "", r->name ? r->name : "");
        ok = ok && row;
        box_free(name);
    }
    assert_true(ok);
}

static void
test_url_and_sizes(void **state)
{
    (void)state;
    static const char *const urls[][2] = {
        {"example.com", "http://example.com"},
        {"example.com/a://b", "http://example.com/a://b"},
        {"https://example.com/", "https://example.com/"},
        {"ftp://example.com/", "ftp://example.com/"},
        {"localhost:8080/x", "http://localhost:8080/x"},
    };
    for (size_t i = 0; i < NELEM(urls); i++) {
        char *u = wget_url(urls[i][0]);
        assert_string_equal(u, urls[i][1]);
        box_free(u);
    }
    static const struct {
        long long n;
        const char *text;
    } sizes[] = {{1024, "1.0K"}, {1536, "1.5K"},     {10240, "10K"},
                 {70000, "68K"}, {65536, "64K"},     {1048576, "1.0M"},
                 {999, "999"},   {5LL << 30, "5.0G"}};
    for (size_t i = 0; i < NELEM(sizes); i++) {
        char t[WGET_SIZE_TEXT];
        wget_size_text(sizes[i].n, t);
        assert_string_equal(t, sizes[i].text);
    }
    static const char head[] = "HTTP/1.1 200 OK\r\ncontent-type: x\r\n"
                               "Content-Length:  42\r\n\r\n";
    assert_int_equal(wget_content_length(head, sizeof head - 1), 42);
    assert_int_equal(wget_content_length(head, 20), -1);
    static const char bad[] = "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n";
    assert_int_equal(wget_content_length(bad, sizeof bad - 1), -1);
    size_t n;
    const char *r = http_reason(head, sizeof head - 1, &n);
    assert_int_equal(n, 2);
    assert_memory_equal(r, "OK", 2);
    static const char nf[] = "HTTP/1.1 404 Not Found\r\n\r\n";
    r = http_reason(nf, sizeof nf - 1, &n);
    assert_int_equal(n, 9);
    assert_memory_equal(r, "Not Found", 9);
    r = http_reason("HTTP/1.1 204\r\n", 14, &n);
    assert_int_equal(n, 0);
}

/* ---- against the stand-in gateway ---- */

#define E "strands-shell: wget: "
#define U "http://example.com"
#define USAGE                                                                  \
    "Usage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more "          \
    "options.\n"
// The log on stdout with its dates, rates and progress masked.
#define NORM                                                                   \
    " 2>&1 | sed -E -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}/D/g' "          \
    "-e 's/[(][0-9.]+ [KMG]?B[/]s[)]/(R)/' -e 's/ +100% .*/ 100%/'"
#define CONNECTED(hp)                                                          \
    "Connecting to " hp " through the egress gateway... connected.\n"

typedef struct wrow {
    const char *script;
    const char *out, *err;
    int status;
    const char *deny_fs; // th_deny_fs
    int dials;           // -1: not checked
} wrow;

static const wrow rows[] = {
    // usage
    {"wget", "", E "missing URL\n" USAGE, 1, NULL, 0},
    {"wget --x " U "/ok", "", E "unrecognized option '--x'\n" USAGE, 2, NULL,
     0},
    {"wget -Z " U "/ok", "", E "invalid option -- 'Z'\n" USAGE, 2, NULL, 0},
    {"wget -nz " U "/ok", "", E "illegal option -- `-nz'\n" USAGE, 2, NULL, 0},
    {"wget -T x " U "/ok", "",
     E "--timeout: Invalid time period \xe2\x80\x98x"
       "\xe2\x80\x99.\n",
     2, NULL, 0},
    {"wget --max-redirect=-1 " U "/ok", "",
     E "--max-redirect: Invalid number \xe2\x80\x98-1\xe2\x80\x99.\n", 2, NULL,
     0},
    {"wget --header=bad " U "/ok", "",
     E "--header: Invalid header \xe2\x80\x98"
       "bad\xe2\x80\x99.\n",
     2, NULL, 0},
    {"wget -c " U "/ok", "",
     E "--continue is not supported here: every transfer is fetched whole\n", 2,
     NULL, 0},
    {"wget --body-data=x " U "/echo", "",
     "You must specify a method through --method=HTTPMethod to use with "
     "--body-data or --body-file.\nUsage: wget [OPTION]... [URL]...\n",
     1, NULL, 0},
    {"wget --post-data=a --post-file=f " U "/echo", "",
     "You cannot specify both --post-data and --post-file.\n"
     "Usage: wget [OPTION]... [URL]...\n",
     1, NULL, 0},
    {"wget --help | head -n 2",
     "GNU Wget 1.21.3 (the box's shell), a non-interactive network "
     "retriever.\nUsage: wget [OPTION]... [URL]...\n",
     "", 0, NULL, 0},
    {"wget -h | grep -c spider", "1\n", "", 0, NULL, 0},
    // the floor, before any dial, even with -q
    {"wget -q http://127.0.0.1:8080/", "", E "access denied: 127.0.0.1\n", 4,
     NULL, 0},
    {"wget -q ftp://example.com/", "",
     E "access denied: unsupported scheme in ftp://example.com/\n", 4, NULL, 0},
    {"wget -q localhost./x", "", E "access denied: localhost\n", 4, NULL, 0},
    {"wget -q http://169.254.169.254/; ls", "",
     E "access denied: 169.254.169.254\n", 0, NULL, 0},
    // a permitted GET: the file named by the URL, new beside others
    {"wget -q " U "/ok; cat ok", "hello\n", "", 0, NULL, 1},
    {"wget -q " U "/ok; wget -q " U "/ok; wget -q example.com/ok; ls",
     "ok\nok.1\nok.2\n", "", 0, NULL, 3},
    {"wget -q " U "/files/; cat index.html", "file\n", "", 0, NULL, 1},
    {"wget -q '" U "/files/a%20b?x=1'; ls", "a b?x=1\n", "", 0, NULL, 1},
    {"wget -q -P d/e " U "/ok; cat d/e/ok", "hello\n", "", 0, NULL, 1},
    // -O FILE, -O - (stdout); -O is truncated once for all the URLs
    {"wget -q -O - " U "/ok", "hello\n", "", 0, NULL, 1},
    {"wget -qO- " U "/ok", "hello\n", "", 0, NULL, 1},
    {"echo old > out; wget -q -O out " U "/ok " U "/files/x; cat out",
     "hello\nfile\n", "", 0, NULL, 2},
    // -nc: no request for a file that is there
    {"echo x > ok; wget -nc " U "/ok; cat ok", "x\n",
     "File \xe2\x80\x98ok\xe2\x80\x99 already there; not retrieving.\n\n", 0,
     NULL, 0},
    {"echo x > f; wget -nc -O f " U "/ok", "",
     "File \xe2\x80\x98"
     "f\xe2\x80\x99 already there; not retrieving.\n",
     1, NULL, 0},
    // the log: default, -nv, -S
    {"wget " U "/ok" NORM,
     "--D--  " U "/ok\n" CONNECTED(
         "example.com:80") "HTTP request sent, awaiting response... 200 X\n"
                           "Length: 6 [text/plain]\nSaving to: "
                           "\xe2\x80\x98ok\xe2\x80\x99\n\n"
                           "     0K 100%\n\nD (R) - \xe2\x80\x98ok\xe2\x80\x99 "
                           "saved [6/6]\n\n",
     "", 0, NULL, 1},
    {"wget -nv " U "/ok" NORM, "D URL:" U "/ok [6/6] -> \"ok\" [1]\n", "", 0,
     NULL, 1},
    {"wget -nv -O - " U "/ok 2>/dev/null", "hello\n", "", 0, NULL, 1},
    {"wget -S -O - " U "/ok 2>&1 >/dev/null | head -n 8" NORM,
     "--D--  " U "/ok\n" CONNECTED(
         "example.com:80") "HTTP request sent, awaiting response... \n  "
                           "HTTP/1.1 200 X\n"
                           "  Content-Type: text/plain\n  Content-Length: 6\n  "
                           "Connection: close\n"
                           "Length: 6 [text/plain]\n",
     "", 0, NULL, 1},
    {"wget -O - " U "/ok 2>&1 >/dev/null | tail -n 2" NORM,
     "D (R) - written to stdout [6/6]\n\n", "", 0, NULL, 1},
    // the gateway's refusals: the reason always (status 8), nothing saved
    {"wget -q " U "/refused", "", E REFUSAL "\n", 8, NULL, 1},
    {"wget -q -O out " U "/refused; ls out", "",
     E REFUSAL
     "\nstrands-shell: ls: cannot access 'out': No such file or directory\n",
     2, NULL, 1},
    {"wget -q " U "/refused-empty", "",
     E "the egress gateway refused this request\n", 8, NULL, 1},
    {"wget -q https://example.com/", "",
     E "net:connect gate: policy denied this operation on 'example.com' "
       "[policy: no_example].\n",
     8, NULL, 1},
    // failures the gateway reports; -q keeps them quiet
    {"wget -q https://other.com/", "", "", 4, NULL, 1},
    {"wget -nv https://other.com/", "", E "upstream connect failed\n", 4, NULL,
     1},
    {"wget -nv https://empty.com/", "",
     E "the egress gateway did not open a tunnel to empty.com:443\n", 4, NULL,
     1},
    // error responses: ERROR N, status 8, nothing saved; 401 is 6
    {"wget " U "/404" NORM,
     "--D--  " U "/404\n" CONNECTED(
         "example.com:80") "HTTP request sent, awaiting response... 404 X\nD "
                           "ERROR 404: X.\n\n",
     "", 0, NULL, 1},
    {"wget -nv " U "/404" NORM, U "/404:\nD ERROR 404: X.\n", "", 0, NULL, 1},
    {"wget -q " U "/404; echo $?; ls", "8\n", "", 0, NULL, 1},
    {"wget -nv " U "/401", "", "Username/Password Authentication Failed.\n", 6,
     NULL, 1},
    // the box's limits: a body over 64 KiB, -T
    {"wget -q " U "/big; echo $?; ls", "4\n", "", 0, NULL, 1},
    {"wget -nv " U "/big", "", E "response body too large\n", 4, NULL, 1},
    {"wget -nv -T 0.3 " U "/slow", "", E "read error (Connection timed out)\n",
     4, NULL, 1},
    // redirects: followed (20 at most), each hop floored and dialed; the
    // file is named by the URL asked
    {"wget -q " U "/redir; cat redir", "hello\n", "", 0, NULL, 2},
    {"wget " U "/redir" NORM " | head -n 6",
     "--D--  " U "/redir\n" CONNECTED(
         "example.com:80") "HTTP request sent, awaiting response... 302 "
                           "X\nLocation: " U "/ok [following]\n--D--  " U
                           "/ok\n" CONNECTED("example.com:80"),
     "", 0, NULL, 2},
    {"wget -nv --max-redirect=0 " U "/redir", "", "0 redirections exceeded.\n",
     8, NULL, 1},
    {"wget -nv " U "/loop", "", "20 redirections exceeded.\n", 8, NULL, 21},
    {"wget -q " U "/redir-local", "", E "access denied: 127.0.0.1\n", 4, NULL,
     1},
    // the request: headers, agent, POST data and files through admission
    {"wget -q -O - " U "/echo | head -n 3",
     "GET http://example.com/echo HTTP/1.1\r\nHost: example.com\r\n"
     "User-Agent: Wget/1.21.3\r\n",
     "", 0, NULL, 1},
    {"wget -q -O - --post-data=a=1 --header='X-T: 1' -U agent/1 " U "/echo",
     "POST http://example.com/echo HTTP/1.1\r\nHost: example.com\r\n"
     "User-Agent: agent/1\r\nAccept: */*\r\nProxy-Connection: Keep-Alive\r\n"
     "X-T: 1\r\nContent-Length: 3\r\n"
     "Content-Type: application/x-www-form-urlencoded\r\n\r\na=1",
     "", 0, NULL, 1},
    {"wget -q -O - --header 'X-A: 1' --header= --header 'X-B: 2' " U
     "/echo | grep -c '^X-'",
     "1\n", "", 0, NULL, 1},
    {"wget -q -O - --method=put --body-data=xyz " U "/echo | head -n 1",
     "PUT http://example.com/echo HTTP/1.1\r\n", "", 0, NULL, 1},
    {"printf 'k=v' > f; wget -q -O - --post-file=f " U "/echo | tail -c 3",
     "k=v", "", 0, NULL, 1},
    {"wget -q -O - --user=me --password=pw " U
     "/echo | grep -c 'Authorization: Basic bWU6cHc='",
     "1\n", "", 0, NULL, 1},
    {"wget -q -O - --post-file=nofile " U "/echo", "",
     E "nofile: No such file or directory\n", 3, NULL, 0},
    {"wget -q --post-file=secret " U "/echo", "",
     DENIED_FS("wget", "/home/lash/secret"), 3, "/home/lash/secret", 0},
    // a file the policy forbids: refused, nothing written
    {"wget -q -O secret " U "/ok", "", DENIED_FS("wget", "/home/lash/secret"),
     3, "/home/lash/secret", 1},
    {"wget -q " U "/files/secret; ls", "",
     DENIED_FS("wget", "/home/lash/secret"), 0, "/home/lash/secret", 1},
    // --spider: asked (HEAD), never saved
    {"wget --spider " U "/ok" NORM,
     "Spider mode enabled. Check if remote file exists.\n--D--  " U
     "/ok\n" CONNECTED(
         "example.com:80") "HTTP request sent, awaiting response... 200 X\n"
                           "Length: 6 [text/plain]\nRemote file exists.\n\n",
     "", 0, NULL, 1},
    {"wget -q --spider " U "/ok; ls", "", "", 0, NULL, 1},
    {"wget -q --spider " U "/404", "", "", 8, NULL, 1},
    // several URLs: each in turn; 0 and 1 aside, the lowest status wins
    {"wget -q " U "/404 http://10.0.0.1/ " U "/ok; echo $?; ls", "4\nok\n",
     E "access denied: 10.0.0.1\n", 0, NULL, 2},
    {"wget -nv " U "/ok " U "/ok 2>&1 | grep -c '^Downloaded: 2 files, 12 in'",
     "1\n", "", 0, NULL, 2},
};

static void
test_gateway(void **state)
{
    (void)state;
    bool ok = true;
    for (size_t i = 0; i < NELEM(rows); i++) {
        const wrow *r = &rows[i];
        ok = standin_row(i, r->script, r->deny_fs, r->status, r->out, r->err,
                         r->dials) &&
             ok;
    }
    assert_true(ok);
}

/* No gateway, or one the broker cannot reach: a network failure, 4. */
static void
test_no_network(void **state)
{
    (void)state;
    th t = {0};
    int st = standin_run(&t, "wget -q " U "/ok", NULL);
    assert_true(tcase_check(0, "none -q", st, &t, 4, "", ""));
    th_reset(&t);
    st = standin_run(&t, "wget -nv " U "/ok", NULL);
    assert_true(
        tcase_check(1, "none", st, &t, 4, "", E "the box has no network\n"));
    th_reset(&t);
    st = standin_run(&t, "wget -nv " U "/ok", standin_dial_refused);
    assert_true(tcase_check(2, "refused", st, &t, 4, "",
                            E "cannot reach the egress gateway: cannot "
                              "connect to the egress gateway: Connection "
                              "refused\n"));
    th_reset(&t);
}

int
main(void)
{
    standin_confine_connect();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local_name),
        cmocka_unit_test(test_url_and_sizes),
        cmocka_unit_test(test_gateway),
        cmocka_unit_test(test_no_network),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
