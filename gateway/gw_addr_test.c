/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for gw_addr: tables of hosts, addresses and authorities. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "gw_addr.h"

/* A host as given (length: NUL bytes are inputs too), and its canonical
 * text and kind, or NULL and the refusal's reason. */
typedef struct host_case {
    const char *hc_in;
    size_t hc_len;
    const char *hc_out;
    gw_host_kind hc_kind;
    const char *hc_why;
} host_case;

#define OK(in, out, kind)                                                      \
    {                                                                          \
        in, sizeof(in) - 1, out, kind, NULL                                    \
    }
#define NO(in, why)                                                            \
    {                                                                          \
        in, sizeof(in) - 1, NULL, GW_HOST_NAME, why                            \
    }

#define R_NUM                                                                  \
    "an IPv4 address not in canonical dotted-quad form (a rule "               \
    "would not recognize it)"
#define R_BYTE "a host byte other than a letter, digit, '-', '.' or '_'"
#define R_LABEL "an empty label in the host"
#define R_NOTV6 "not an IPv6 address"

static const host_case host_cases[] = {
    OK("example.com", "example.com", GW_HOST_NAME),
    OK("Example.COM", "example.com", GW_HOST_NAME),
    OK("WWW.Example.Com.", "www.example.com", GW_HOST_NAME),
    OK("a", "a", GW_HOST_NAME),
    OK("_acme-challenge.example.org", "_acme-challenge.example.org",
       GW_HOST_NAME),
    OK("xn--bcher-kva.example", "xn--bcher-kva.example", GW_HOST_NAME),
    OK("1.2.3.example", "1.2.3.example", GW_HOST_NAME),
    NO("example.0x", R_NUM), // inet_aton reads "0x" as 0
    OK("0xg.com", "0xg.com", GW_HOST_NAME),
    OK("127.0.0.1", "127.0.0.1", GW_HOST_IPV4),
    OK("127.0.0.1.", "127.0.0.1", GW_HOST_IPV4),
    OK("0.0.0.0", "0.0.0.0", GW_HOST_IPV4),
    OK("255.255.255.255", "255.255.255.255", GW_HOST_IPV4),
    OK("203.0.113.7", "203.0.113.7", GW_HOST_IPV4),
    /* Bracketed IPv6: canonical text, mapped ones as IPv4. */
    OK("[2001:DB8::1]", "2001:db8::1", GW_HOST_IPV6),
    OK("[2001:0db8:0000:0000:0000:0000:0000:0001]", "2001:db8::1",
       GW_HOST_IPV6),
    OK("[::1]", "::1", GW_HOST_IPV6),
    OK("[::]", "::", GW_HOST_IPV6),
    OK("[2001:db8:0:1:1:1:1:1]", "2001:db8:0:1:1:1:1:1", GW_HOST_IPV6),
    OK("[2001:0:0:1:0:0:0:1]", "2001:0:0:1::1", GW_HOST_IPV6),
    OK("[2001:db8:0:0:1:0:0:1]", "2001:db8::1:0:0:1", GW_HOST_IPV6),
    OK("[::ffff:127.0.0.1]", "127.0.0.1", GW_HOST_IPV4),
    OK("[::FFFF:7f00:1]", "127.0.0.1", GW_HOST_IPV4),
    OK("[::127.0.0.1]", "::7f00:1", GW_HOST_IPV6), // compatible: not mapped
    OK("[64:ff9b::192.0.2.33]", "64:ff9b::c000:221", GW_HOST_IPV6),
    /* Refusals. */
    NO("", "an empty host"),
    NO(".", "an empty host"),
    NO("example.com..", R_LABEL),
    NO(".example.com", R_LABEL),
    NO("a..b", R_LABEL),
    NO("example.com:443", "a port inside the host"),
    NO("::1", "a port inside the host"),
    NO("[::1]:443", "a port inside the host"),
    NO("user@example.com", "userinfo in the host"),
    NO("b\xc3\xbc"
       "cher.example",
       "a non-ASCII host (IDNA is not supported; use the name's xn-- form)"),
    NO("exa mple.com", R_BYTE),
    NO("example.com/", R_BYTE),
    NO("ex%41mple.com", R_BYTE),
    NO("a\0b", R_BYTE),
    NO("a*b", R_BYTE),
    /* Every numeric spelling but the dotted-quad (inet_aton's forms). */
    NO("0x7f.1", R_NUM),
    NO("127.1", R_NUM),
    NO("127.0.1", R_NUM),
    NO("0177.0.0.1", R_NUM),
    NO("127.0.0.01", R_NUM),
    NO("2130706433", R_NUM),
    NO("0x7f000001", R_NUM),
    NO("0X7F.0.0.1", R_NUM),
    NO("0x", R_NUM),
    NO("256.0.0.1", R_NUM),
    NO("1.2.3.4.5", R_NUM),
    NO("1.2.3.1000", R_NUM),
    NO("example.123", R_NUM),
    NO("0", R_NUM),
    /* IPv6 literals. */
    NO("[::1", "an IPv6 literal without its closing ']'"),
    NO("[::1].", "text after an IPv6 literal's ']'"),
    NO("[]", R_NOTV6),
    NO("[example.com]", R_NOTV6),
    NO("[1.2.3.4]", R_NOTV6),
    NO("[::1::2]", R_NOTV6),
    NO("[12345::1]", R_NOTV6),
    NO("[fe80::1%25eth0]", "an IPv6 zone identifier (not supported)"),
    NO("[v1.fe]", "an IPvFuture literal (not supported)"),
    NO("[0000:0000:0000:0000:0000:0000:0000:0000:1]", R_NOTV6),
};

static void
test_host_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof host_cases / sizeof host_cases[0]; i++) {
        const host_case *c = &host_cases[i];
        gw_host h;
        const char *why = NULL;
        box_err rv = gw_addr_host(c->hc_in, c->hc_len, &h, &why);
        print_message("host %zu: %s\n", i, c->hc_in);
        if (c->hc_out == NULL) {
            assert_int_equal(rv, BOX_EINVAL);
            assert_string_equal(why, c->hc_why);
            continue;
        }
        assert_int_equal(rv, BOX_OK);
        assert_string_equal(h.h_text, c->hc_out);
        assert_int_equal(h.h_len, strlen(c->hc_out));
        assert_int_equal(h.h_kind, c->hc_kind);
        /* A canonical host is its own canonical host. */
        char lit[GW_ADDR_TEXT_MAX + 2];
        size_t n = h.h_len;
        memcpy(lit + 1, h.h_text, n);
        lit[0] = '[';
        lit[n + 1] = ']';
        gw_host again;
        if (h.h_kind == GW_HOST_IPV6)
            assert_int_equal(gw_addr_host(lit, n + 2, &again, &why), BOX_OK);
        else
            assert_int_equal(gw_addr_host(h.h_text, n, &again, &why), BOX_OK);
        assert_string_equal(again.h_text, h.h_text);
    }
}

/* The length limits, at the bound and one past it. */
static void
test_host_limits(void **state)
{
    (void)state;
    char b[300];
    gw_host h;
    const char *why = NULL;
    // A 63-byte label, then 64.
    memset(b, 'a', 64);
    assert_int_equal(gw_addr_host(b, 63, &h, &why), BOX_OK);
    assert_int_equal(gw_addr_host(b, 64, &h, &why), BOX_EINVAL);
    assert_string_equal(why, "a host label over 63 bytes");
    // 253 bytes (labels of 49 and dots), then 254; with a trailing dot
    // the 253-byte name is still within.
    for (size_t i = 0; i < sizeof b; i++)
        b[i] = i % 50 == 49 ? '.' : 'a';
    b[252] = 'a';
    assert_int_equal(gw_addr_host(b, 253, &h, &why), BOX_OK);
    assert_int_equal(h.h_len, 253);
    b[253] = '.';
    assert_int_equal(gw_addr_host(b, 254, &h, &why), BOX_OK);
    assert_int_equal(h.h_len, 253);
    b[253] = 'a';
    assert_int_equal(gw_addr_host(b, 254, &h, &why), BOX_EINVAL);
    assert_string_equal(why, "a host over 253 bytes");
}

typedef struct ip_case {
    int ic_family;
    const char *ic_in; // for inet_pton
    const char *ic_out;
} ip_case;

static const ip_case ip_cases[] = {
    {AF_INET, "203.0.113.7", "203.0.113.7"},
    {AF_INET, "0.0.0.0", "0.0.0.0"},
    {AF_INET6, "2001:DB8::1", "2001:db8::1"},
    {AF_INET6, "2001:db8:0:0:0:0:2:1", "2001:db8::2:1"},
    {AF_INET6, "2001:db8::0:1", "2001:db8::1"},
    {AF_INET6, "2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"},
    {AF_INET6, "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"},
    {AF_INET6, "0:0:0:0:0:0:0:0", "::"},
    {AF_INET6, "::1", "::1"},
    {AF_INET6, "1::", "1::"},
    {AF_INET6, "fe80::abcd:ef01", "fe80::abcd:ef01"},
    {AF_INET6, "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"},
    {AF_INET6, "::ffff:203.0.113.7", "203.0.113.7"},
    {AF_INET6, "::ffff:0:0", "0.0.0.0"},
    {AF_INET6, "::fffe:1.2.3.4", "::fffe:102:304"},
    {AF_INET6, "0:0:0:0:1:ffff:1.2.3.4", "::1:ffff:102:304"},
};

static void
test_ip_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ip_cases / sizeof ip_cases[0]; i++) {
        const ip_case *c = &ip_cases[i];
        unsigned char bytes[16];
        char out[GW_ADDR_TEXT_MAX];
        size_t len = 0;
        assert_int_equal(inet_pton(c->ic_family, c->ic_in, bytes), 1);
        assert_int_equal(gw_addr_ip(c->ic_family, bytes, out, &len), BOX_OK);
        assert_string_equal(out, c->ic_out);
        assert_int_equal(len, strlen(c->ic_out));
        /* The same from a socket address. */
        struct sockaddr_storage ss;
        memset(&ss, 0, sizeof ss);
        socklen_t sl;
        if (c->ic_family == AF_INET) {
            struct sockaddr_in *in = (struct sockaddr_in *)&ss;
            in->sin_family = AF_INET;
            memcpy(&in->sin_addr, bytes, 4);
            sl = sizeof *in;
        } else {
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
            in6->sin6_family = AF_INET6;
            memcpy(&in6->sin6_addr, bytes, 16);
            sl = sizeof *in6;
        }
        char out2[GW_ADDR_TEXT_MAX];
        assert_int_equal(
            gw_addr_ip_sockaddr((struct sockaddr *)&ss, sl, out2, &len),
            BOX_OK);
        assert_string_equal(out2, c->ic_out);
        assert_int_equal(
            gw_addr_ip_sockaddr((struct sockaddr *)&ss, sl - 1, out2, &len),
            BOX_EINVAL);
    }
    unsigned char z[16] = {0};
    char out[GW_ADDR_TEXT_MAX];
    size_t len;
    assert_int_equal(gw_addr_ip(AF_UNIX, z, out, &len), BOX_EINVAL);
}

/* Every IPv6 address with each group zero or not (and the values that
 * need every hex digit) agrees with inet_ntop where inet_ntop writes no
 * dotted tail, and reads back to the same bytes. */
static void
test_ip6_against_ntop(void **state)
{
    (void)state;
    for (unsigned mask = 0; mask < 256; mask++) {
        unsigned char b[16];
        for (int g = 0; g < 8; g++) {
            unsigned w = (mask >> g & 1) ? 0x1000u + (unsigned)g * 0x0f1u : 0;
            b[2 * g] = (unsigned char)(w >> 8);
            b[2 * g + 1] = (unsigned char)w;
        }
        char ours[GW_ADDR_TEXT_MAX], theirs[INET6_ADDRSTRLEN];
        size_t len;
        assert_int_equal(gw_addr_ip(AF_INET6, b, ours, &len), BOX_OK);
        assert_non_null(inet_ntop(AF_INET6, b, theirs, sizeof theirs));
        if (strchr(theirs, '.') == NULL)
            assert_string_equal(ours, theirs);
        unsigned char back[16];
        if (strchr(ours, ':') != NULL) {
            assert_int_equal(inet_pton(AF_INET6, ours, back), 1);
            assert_memory_equal(back, b, 16);
        }
    }
}

typedef struct auth_case {
    const char *ac_in;
    uint16_t ac_default;
    const char *ac_host; // NULL: refused with ac_why
    uint16_t ac_port;
    bool ac_given;
    const char *ac_why;
} auth_case;

#define R_PORT "a port out of range (1..65535)"
#define R_PORTNUM "a port that is not decimal digits"

static const auth_case auth_cases[] = {
    {"example.com:443", 0, "example.com", 443, true, NULL},
    {"Example.COM.:443", 0, "example.com", 443, true, NULL},
    {"[2001:DB8::1]:8443", 0, "2001:db8::1", 8443, true, NULL},
    {"[::ffff:127.0.0.1]:80", 0, "127.0.0.1", 80, true, NULL},
    {"example.com:1", 0, "example.com", 1, true, NULL},
    {"example.com:65535", 0, "example.com", 65535, true, NULL},
    {"example.com:0080", 0, "example.com", 80, true, NULL},
    {"example.com", 80, "example.com", 80, false, NULL},
    {"example.com:", 80, "example.com", 80, false, NULL},
    {"[::1]", 443, "::1", 443, false, NULL},
    {"example.com:8080", 80, "example.com", 8080, true, NULL},
    {"example.com", 0, NULL, 0, false, "no port (host:port is required)"},
    {"example.com:", 0, NULL, 0, false, "no port (host:port is required)"},
    {"[::1]", 0, NULL, 0, false, "no port (host:port is required)"},
    {"example.com:0", 0, NULL, 0, false, R_PORT},
    {"example.com:65536", 0, NULL, 0, false, R_PORT},
    {"example.com:99999999999999999999999", 0, NULL, 0, false, R_PORT},
    {"example.com:+443", 0, NULL, 0, false, R_PORTNUM},
    {"example.com:-1", 0, NULL, 0, false, R_PORTNUM},
    {"example.com: 443", 0, NULL, 0, false, R_PORTNUM},
    {"example.com:443a", 0, NULL, 0, false, R_PORTNUM},
    {"example.com:0x1bb", 0, NULL, 0, false, R_PORTNUM},
    {"::1:443", 0, NULL, 0, false, "an IPv6 address without brackets"},
    {"[::1]x:443", 0, NULL, 0, false, "text after an IPv6 literal's ']'"},
    {"[::1:443", 0, NULL, 0, false, "an IPv6 literal without its closing ']'"},
    {"user:pw@example.com:443", 0, NULL, 0, false,
     "userinfo in the authority (not allowed)"},
    {":443", 0, NULL, 0, false, "an empty host"},
    {"", 80, NULL, 0, false, "an empty host"},
    {"127.1:80", 0, NULL, 0, false, R_NUM},
    {"[fe80::1%25lo]:80", 0, NULL, 0, false,
     "an IPv6 zone identifier (not supported)"},
};

static void
test_authority_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof auth_cases / sizeof auth_cases[0]; i++) {
        const auth_case *c = &auth_cases[i];
        gw_authority a;
        const char *why = NULL;
        print_message("authority %zu: %s\n", i, c->ac_in);
        box_err rv = gw_addr_authority(c->ac_in, strlen(c->ac_in),
                                       c->ac_default, &a, &why);
        if (c->ac_host == NULL) {
            assert_int_equal(rv, BOX_EINVAL);
            assert_string_equal(why, c->ac_why);
            continue;
        }
        assert_int_equal(rv, BOX_OK);
        assert_string_equal(a.a_host.h_text, c->ac_host);
        assert_int_equal(a.a_port, c->ac_port);
        assert_int_equal(a.a_port_given, c->ac_given);
    }
}

static void
test_authority_eq(void **state)
{
    (void)state;
    gw_authority a, b;
    const char *why;
    assert_int_equal(gw_addr_authority("Example.com.", 12, 80, &a, &why),
                     BOX_OK);
    assert_int_equal(gw_addr_authority("example.com:80", 14, 80, &b, &why),
                     BOX_OK);
    assert_true(gw_addr_authority_eq(&a, &b));
    assert_int_equal(gw_addr_authority("example.com:81", 14, 80, &b, &why),
                     BOX_OK);
    assert_false(gw_addr_authority_eq(&a, &b));
    assert_int_equal(gw_addr_authority("example.co", 10, 80, &b, &why), BOX_OK);
    assert_false(gw_addr_authority_eq(&a, &b));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_table),
        cmocka_unit_test(test_host_limits),
        cmocka_unit_test(test_ip_table),
        cmocka_unit_test(test_ip6_against_ntop),
        cmocka_unit_test(test_authority_table),
        cmocka_unit_test(test_authority_eq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
