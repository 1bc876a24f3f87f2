/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for gw_hosts: the test-only hosts file read before DNS. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "box_alloc.h"
#include "gw_hosts.h"

static void
test_found(void **state)
{
    (void)state;
    static const char text[] =
        "# origins for the tests\n"
        "127.0.0.1 origin.test Other.Test.  # two names\n"
        "\n"
        "::1\tv6.test\r\n"
        "127.0.0.2 origin.test\n";
    gw_hosts *h = NULL;
    char *err = NULL;
    assert_int_equal(gw_hosts_parse(text, strlen(text), "hosts", &h, &err),
                     BOX_OK);
    struct sockaddr_storage a[4];
    socklen_t l[4];
    assert_int_equal(gw_hosts_find(h, "origin.test", 443, a, l, 4), 2);
    const struct sockaddr_in *in = (const void *)&a[0];
    assert_int_equal(in->sin_family, AF_INET);
    assert_int_equal(ntohs(in->sin_port), 443);
    assert_int_equal(ntohl(in->sin_addr.s_addr), 0x7f000001);
    in = (const void *)&a[1];
    assert_int_equal(ntohl(in->sin_addr.s_addr), 0x7f000002);
    // names are kept as net:connect sees them
    assert_int_equal(gw_hosts_find(h, "other.test", 80, a, l, 4), 1);
    assert_int_equal(gw_hosts_find(h, "v6.test", 80, a, l, 4), 1);
    assert_int_equal(a[0].ss_family, AF_INET6);
    assert_int_equal(l[0], sizeof(struct sockaddr_in6));
    assert_int_equal(gw_hosts_find(h, "absent.test", 80, a, l, 4), 0);
    assert_int_equal(gw_hosts_find(h, "origin.test", 80, a, l, 1), 1);
    assert_int_equal(gw_hosts_find(NULL, "origin.test", 80, a, l, 4), 0);
    gw_hosts_free(h);
}

static void
test_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text, *err;
    } bad[] = {
        {"nonsense origin.test\n", "hosts: line 1: nonsense is not an IPv4 "
                                   "or IPv6 address"},
        {"# c\n127.0.0.1\n", "hosts: line 2: 127.0.0.1 names no host"},
        {"127.0.0.1 bad/name\n", "hosts: line 1: 127.0.0.1 names a host "
                                 "that is not a DNS name"},
        {"127.0.0.1 .\n", "hosts: line 1: 127.0.0.1 names a host that is "
                          "not a DNS name"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gw_hosts *h = NULL;
        char *err = NULL;
        assert_int_equal(gw_hosts_parse(bad[i].text, strlen(bad[i].text),
                                        "hosts", &h, &err),
                         BOX_EINVAL);
        assert_null(h);
        assert_string_equal(err, bad[i].err);
        box_free(err);
    }
    gw_hosts *h = NULL;
    char *err = NULL;
    assert_int_equal(gw_hosts_load("/nonexistent/hosts", &h, &err), BOX_EIO);
    assert_string_equal(err, "cannot read the hosts file /nonexistent/hosts: "
                             "No such file or directory");
    box_free(err);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_found),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
