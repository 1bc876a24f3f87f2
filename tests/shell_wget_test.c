/* SPDX-License-Identifier: Apache-2.0 */
/* wget in the box's shell against the real services (shell_net_fx.h):
 * the same path as curl's (the floor, the broker's dial, the gateway,
 * box-pdp's decisions), its document saved through admission. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>

#include "shell_net_fx.h"

#define E "strands-shell: wget: "
// -nv's log without its date: "ERROR 404: Not Found."
#define UNDATED " 2>&1 | sed -E 's/^[0-9-]{10} [0-9:]{8} //'"

static void
test_permitted(void **state)
{
    fx *f = *state;
    // to the file the URL names, then beside it
    net_fx_expect(f, "wget -q http://%H:%P/hello && cat hello", 0, "hello\n",
                  "");
    net_fx_expect(f, "wget -q http://%H:%P/hello && ls hello*", 0,
                  "hello\nhello.1\n", "");
    // to stdout, plain and through the gateway's interception
    net_fx_expect(f, "wget -qO- http://%H:%P/hello", 0, "hello\n", "");
    net_fx_expect(f, "wget -q -O - https://%H:%T/hello", 0, "hello\n", "");
    // the log Wget writes
    net_fx_expect(f,
                  "wget -O got http://%H:%P/hello 2>&1 | grep -c -e "
                  "'^HTTP request sent, awaiting response... 200 OK$' -e "
                  "'^Length: 6 \\[text/plain\\]$' -e '^Saving to: .got.$'",
                  0, "3\n", "");
    // an error response: ERROR 404, status 8, nothing saved
    net_fx_expect(f, "wget -nv http://%H:%P/404" UNDATED " | tail -n 1", 0,
                  "ERROR 404: Not Found.\n", "");
    net_fx_expect(f, "wget -q http://%H:%P/404; echo $?; ls 404 2>&1", 2,
                  "8\nstrands-shell: ls: cannot access '404': No such file "
                  "or directory\n",
                  "");
    net_fx_expect(f, "wget -q --post-data=a=1 -O - http://%H:%P/hello", 0,
                  "hello\n", "");
}

static void
test_refused(void **state)
{
    fx *f = *state;
    // the floor, before any connection, even with -q
    net_fx_expect(f, "wget -q http://127.0.0.1:%P/hello", 4, "",
                  E "access denied: 127.0.0.1\n");
    // http:request and net:connect refused by policy: the gateway's reason
    net_fx_expect(f, "wget -q http://%H:%P/secret", 8, "",
                  E "http:request gate: policy denied this operation*");
    net_fx_expect(f, "wget -q -O - https://%H:%T/secret", 8, "",
                  E "http:request gate: policy denied this operation*");
    net_fx_expect(f, "wget -q https://blocked.invalid/", 8, "",
                  E "policy denied this operation on 'blocked.invalid*");
    // -O where policy forbids writing: refused, nothing written
    net_fx_expect(f,
                  "wget -q -O forbidden.txt http://%H:%P/hello; echo $?; "
                  "test -e forbidden.txt || echo absent",
                  0, "3\nabsent\n", E "policy denied this operation on '*");
    net_fx_expect(f,
                  "wget -q -P forbidden http://%H:%P/hello; echo $?; "
                  "test -e forbidden || echo absent",
                  0, "3\nabsent\n", E "policy denied this operation on '*");
    // the gateway could not reach the upstream: a network failure
    net_fx_expect(f, "wget -q https://nowhere.invalid/", 4, "", "");
    net_fx_expect(f, "wget -nv -T 1 http://%H:%P/slow", 4, "",
                  E "read error (Connection timed out)\n");
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
