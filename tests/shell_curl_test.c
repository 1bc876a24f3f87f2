/* SPDX-License-Identifier: Apache-2.0 */
/* curl in the box's shell against the real services (shell_net_fx.h):
 * box-shell's confined workers dial box-gateway through the broker,
 * box-pdp decides, a test upstream answers (plain and TLS). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>

#include "shell_net_fx.h"

#define E "strands-shell: curl: "

static void
test_permitted(void **state)
{
    fx *f = *state;
    net_fx_expect(f, "curl -s http://%H:%P/hello", 0, "hello\n", "");
    net_fx_expect(f, "curl -s -o got http://%H:%P/hello && cat got", 0,
                  "hello\n", "");
    net_fx_expect(f, "curl -si http://%H:%P/hello | head -n 1", 0,
                  "HTTP/1.1 200 OK\r\n", "");
    net_fx_expect(
        f, "curl -s -w '%{http_code} %{content_type}\\n' http://%H:%P/404", 0,
        "nope\n404 text/plain\n", "");
    net_fx_expect(f, "curl -sf http://%H:%P/404; echo $?", 0, "22\n", "");
    net_fx_expect(
        f,
        "curl -sv http://%H:%P/hello 2>&1 >/dev/null | grep -c '^< HTTP/1.1 "
        "200'",
        0, "1\n", "");
    net_fx_expect(f, "curl -s -d a=1 -w ' %{http_code}' http://%H:%P/hello", 0,
                  "hello\n 200", "");
    // https: CONNECT, the gateway's interception, the run's CA
    net_fx_expect(f, "curl -s https://%H:%T/hello", 0, "hello\n", "");
}

static void
test_refused(void **state)
{
    fx *f = *state;
    // the floor, before any connection
    net_fx_expect(f, "curl -s http://127.0.0.1:%P/hello", 1, "",
                  E "access denied: 127.0.0.1\n");
    // http:request refused by policy: the gateway's reason, never its body
    net_fx_expect(f, "curl -s -i http://%H:%P/secret", 1, "",
                  E "http:request gate: policy denied this operation*");
    net_fx_expect(f, "curl -s https://%H:%T/secret", 1, "",
                  E "http:request gate: policy denied this operation*");
    // net:connect refused: absolute form, and a CONNECT refused before TLS
    net_fx_expect(f, "curl -s http://blocked.invalid/", 1, "",
                  E "policy denied this operation on 'blocked.invalid*");
    net_fx_expect(f, "curl -s https://blocked.invalid/", 1, "",
                  E "policy denied this operation on 'blocked.invalid*");
    // the gateway's own failure for a tunnel: (6) and its reason
    net_fx_expect(f, "curl https://nowhere.invalid/", 6, "", E "(6) *");
    // -m
    net_fx_expect(f, "curl -m 1 http://%H:%P/slow", 28, "",
                  E "(28) Operation timed out\n");
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_permitted, net_fx_setup,
                                        net_fx_teardown),
        cmocka_unit_test_setup_teardown(test_refused, net_fx_setup,
                                        net_fx_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
