/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for gw_http: a table of request heads and what each gives,
 * read whole, a byte at a time and split at every place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_buf.h"
#include "gw_http.h"

/* One request head and the expected answer. For DONE, hc_host NULL means
 * no authority, hc_path NULL no path (CONNECT), hc_query NULL no '?',
 * hc_used 0 the whole input, hc_nfields 0 unchecked. */
typedef struct http_case {
    const char *hc_in;
    size_t hc_len;
    bool hc_tunnel;
    gw_http_status hc_status;
    int hc_code;
    const char *hc_reason;
    size_t hc_used;
    gw_http_method hc_method;
    gw_http_form hc_form;
    bool hc_http10; // HTTP/1.0 (else 1.1)
    const char *hc_host;
    uint16_t hc_port;
    const char *hc_path;
    const char *hc_query;
    bool hc_has_cl;
    uint64_t hc_cl;
    bool hc_chunked;
    bool hc_close; // keep-alive is false
    bool hc_expect;
    const char *hc_proxy_auth;
    size_t hc_nfields;
} http_case;

#define IN(s) .hc_in = s, .hc_len = sizeof(s) - 1
#define BAD(code, reason)                                                      \
    .hc_status = GW_HTTP_BAD, .hc_code = code, .hc_reason = reason
#define DONE .hc_status = GW_HTTP_DONE
#define ABS(host, port, path)                                                  \
    DONE, .hc_form = GW_HTTP_FORM_ABSOLUTE, .hc_host = host, .hc_port = port,  \
          .hc_path = path

#define HOST "Host: example.com\r\n"
#define GET_ABS "GET http://example.com/ HTTP/1.1\r\n"
#define END "\r\n"

/* The refusals' texts, written out here so a change to one is seen. */
#define R_HOST_MISSING "no Host header field (required in HTTP/1.1)"
#define R_HOST_MISMATCH "Host names another authority than the request target"
#define R_REQLINE                                                              \
    "malformed request line (method SP request-target SP HTTP-version)"
#define R_VERSION "HTTP version not supported (HTTP/1.0 and HTTP/1.1 only)"
#define R_METHOD                                                               \
    "method not supported (GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS, "     \
    "CONNECT)"
#define R_NUM                                                                  \
    "an IPv4 address not in canonical dotted-quad form (a rule would not "     \
    "recognize it)"
#define R_HOSTBYTE "a host byte other than a letter, digit, '-', '.' or '_'"
#define R_TE_CODING "a transfer coding other than chunked"
#define R_TE_CL "both Transfer-Encoding and Content-Length (request smuggling)"
#define R_CL "a Content-Length that is not decimal digits"
#define R_PATHBYTE "request path: a byte not allowed in a path"

static const http_case http_cases[] = {
    /* ---- what clients send ---- */
    {IN("GET http://example.com/index.html?lang=en HTTP/1.1\r\n" HOST
        "User-Agent: curl/7.88.1\r\nAccept: */*\r\n"
        "Proxy-Connection: Keep-Alive\r\n" END),
     ABS("example.com", 80, "/index.html"), .hc_query = "lang=en",
     .hc_nfields = 4},
    {IN("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n"
        "User-Agent: curl/7.88.1\r\n" END),
     DONE, .hc_method = GW_HTTP_CONNECT, .hc_form = GW_HTTP_FORM_AUTHORITY,
     .hc_host = "example.com", .hc_port = 443, .hc_nfields = 2},
    // Python's http.client tunnels with HTTP/1.0 and no Host.
    {IN("CONNECT files.pythonhosted.org:443 HTTP/1.0\r\n" END), DONE,
     .hc_http10 = true, .hc_method = GW_HTTP_CONNECT,
     .hc_form = GW_HTTP_FORM_AUTHORITY, .hc_host = "files.pythonhosted.org",
     .hc_port = 443, .hc_close = true},
    {IN("CONNECT [2001:DB8::1]:8443 HTTP/1.1\r\nHost: "
        "[2001:db8::1]:8443\r\n" END),
     DONE, .hc_method = GW_HTTP_CONNECT, .hc_form = GW_HTTP_FORM_AUTHORITY,
     .hc_host = "2001:db8::1", .hc_port = 8443},
    {IN("POST http://api.example.test:8080/v1/items HTTP/1.1\r\n"
        "Host: api.example.test:8080\r\n"
        "Proxy-Authorization: Basic Ym94OnRva2Vu\r\n"
        "Content-Type: application/json\r\nContent-Length: 2048\r\n"
        "Expect: 100-continue\r\n" END),
     ABS("api.example.test", 8080, "/v1/items"), .hc_method = GW_HTTP_POST,
     .hc_has_cl = true, .hc_cl = 2048, .hc_expect = true,
     .hc_proxy_auth = "Basic Ym94OnRva2Vu", .hc_nfields = 5},
    // git's smart HTTP inside an intercepted tunnel.
    {IN("POST /example/repo.git/git-upload-pack HTTP/1.1\r\n"
        "Host: github.com\r\nUser-Agent: git/2.39.2\r\n"
        "Content-Type: application/x-git-upload-pack-request\r\n"
        "Transfer-Encoding: chunked\r\n" END),
     .hc_tunnel = true, DONE, .hc_method = GW_HTTP_POST,
     .hc_form = GW_HTTP_FORM_ORIGIN, .hc_host = "github.com", .hc_port = 443,
     .hc_path = "/example/repo.git/git-upload-pack", .hc_chunked = true},
    {IN("GET /example/repo.git/info/refs?service=git-upload-pack HTTP/1.1\r\n"
        "Host: github.com\r\n" END),
     .hc_tunnel = true, DONE, .hc_form = GW_HTTP_FORM_ORIGIN,
     .hc_host = "github.com", .hc_port = 443,
     .hc_path = "/example/repo.git/info/refs",
     .hc_query = "service=git-upload-pack"},
    // npm's scoped names keep their encoded slash.
    {IN("GET /@types%2fnode HTTP/1.1\r\nhost: registry.npmjs.org\r\n"
        "connection: keep-alive\r\n" END),
     .hc_tunnel = true, DONE, .hc_form = GW_HTTP_FORM_ORIGIN,
     .hc_host = "registry.npmjs.org", .hc_port = 443,
     .hc_path = "/@types%2Fnode"},
    {IN("GET /simple/ HTTP/1.0\r\n" END), .hc_tunnel = true, DONE,
     .hc_http10 = true, .hc_form = GW_HTTP_FORM_ORIGIN, .hc_path = "/simple/",
     .hc_close = true},
    {IN("GET https://pypi.org/simple/ HTTP/1.1\r\nHost: pypi.org\r\n" END),
     .hc_tunnel = true, ABS("pypi.org", 443, "/simple/")},
    {IN("GET https://pypi.org:8443/ HTTP/1.1\r\nHost: pypi.org\r\n" END),
     .hc_tunnel = true, BAD(400, R_HOST_MISMATCH)},

    /* ---- absolute-form targets ---- */
    {IN("GET http://Example.COM.:8080/a HTTP/1.1\r\n"
        "Host: example.com:8080\r\n" END),
     ABS("example.com", 8080, "/a")},
    {IN("GET http://example.com HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/")},
    {IN("GET http://example.com?x=1 HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/"), .hc_query = "x=1"},
    {IN("GET http://example.com/a? HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/a"), .hc_query = ""},
    {IN("GET http://example.com:80/ HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/")},
    {IN("GET http://example.com:/ HTTP/1.1\r\nHost: EXAMPLE.com.:80\r\n" END),
     ABS("example.com", 80, "/")},
    {IN("GET HTTP://example.com/ HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/")},
    {IN("GET http://[2001:DB8::1]:8080/ HTTP/1.1\r\n"
        "Host: [2001:db8:0::1]:8080\r\n" END),
     ABS("2001:db8::1", 8080, "/")},
    {IN("GET http://[::ffff:127.0.0.1]/ HTTP/1.0\r\n" END),
     ABS("127.0.0.1", 80, "/"), .hc_http10 = true, .hc_close = true},
    {IN("GET http://example.com/a/./b/../%7euser/%2e%2E/x%2fy?q=%zz/../ "
        "HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/a/x%2Fy"), .hc_query = "q=%zz/../"},
    {IN("GET http://example.com/../../etc/passwd HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/etc/passwd")},
    {IN("GET http://example.com//a//b/ HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "//a//b/")},
    {IN("GET http://example.com/a?b?c HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/a"), .hc_query = "b?c"},

    /* ---- each method ---- */
    {IN("HEAD http://example.com/ HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/"), .hc_method = GW_HTTP_HEAD},
    {IN("PUT http://example.com/ HTTP/1.1\r\n" HOST
        "Content-Length: 0\r\n" END),
     ABS("example.com", 80, "/"), .hc_method = GW_HTTP_PUT, .hc_has_cl = true},
    {IN("DELETE http://example.com/ HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/"), .hc_method = GW_HTTP_DELETE},
    {IN("PATCH http://example.com/ HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/"), .hc_method = GW_HTTP_PATCH},
    {IN("OPTIONS http://example.com/ HTTP/1.1\r\n" HOST END),
     ABS("example.com", 80, "/"), .hc_method = GW_HTTP_OPTIONS},
    {IN("TRACE http://example.com/ HTTP/1.1\r\n" HOST END), BAD(501, R_METHOD)},
    {IN("get http://example.com/ HTTP/1.1\r\n" HOST END), BAD(501, R_METHOD)},
    {IN("PROPFIND http://example.com/ HTTP/1.1\r\n" HOST END),
     BAD(501, R_METHOD)},

    /* ---- fields ---- */
    {IN(GET_ABS "Host:   example.com \t\r\nX-Empty:\r\nX-Obs: caf\xe9\r\n" END),
     ABS("example.com", 80, "/"), .hc_nfields = 3},
    {IN(GET_ABS HOST "Content-Length: 5\r\ncontent-length: 5\r\n" END "hello"),
     ABS("example.com", 80, "/"), .hc_has_cl = true, .hc_cl = 5,
     .hc_used = sizeof(GET_ABS HOST "Content-Length: 5\r\ncontent-length: "
                                    "5\r\n" END) -
                1},
    {IN(GET_ABS HOST "Content-Length: 9223372036854775807\r\n" END),
     ABS("example.com", 80, "/"), .hc_has_cl = true,
     .hc_cl = 9223372036854775807ull},
    {IN(GET_ABS HOST "Content-Length: 007\r\n" END),
     ABS("example.com", 80, "/"), .hc_has_cl = true, .hc_cl = 7},
    {IN(GET_ABS HOST "Transfer-Encoding: Chunked\r\n" END),
     ABS("example.com", 80, "/"), .hc_chunked = true},
    {IN(GET_ABS HOST "Transfer-Encoding: , chunked ,\r\n" END),
     ABS("example.com", 80, "/"), .hc_chunked = true},
    {IN(GET_ABS HOST "Connection: close\r\n" END), ABS("example.com", 80, "/"),
     .hc_close = true},
    {IN(GET_ABS HOST "Connection: keep-alive, Close\r\n" END),
     ABS("example.com", 80, "/"), .hc_close = true},
    {IN(GET_ABS HOST "Connection: Upgrade, TE\r\n" END),
     ABS("example.com", 80, "/")},
    {IN("GET http://example.com/ HTTP/1.0\r\nConnection: Keep-Alive\r\n" END),
     ABS("example.com", 80, "/"), .hc_http10 = true},
    {IN("GET http://example.com/ HTTP/1.0\r\nExpect: 100-continue\r\n" END),
     ABS("example.com", 80, "/"), .hc_http10 = true, .hc_close = true},
    {IN(GET_ABS HOST "Expect: 100-Continue\r\n" END),
     ABS("example.com", 80, "/"), .hc_expect = true},
    {IN(GET_ABS HOST "Expect: something-else\r\n" END),
     ABS("example.com", 80, "/")},
    {IN("\r\n\r\n" GET_ABS HOST END), ABS("example.com", 80, "/")},

    /* ---- heads not complete yet ---- */
    {IN(""), .hc_status = GW_HTTP_MORE},
    {IN("\r"), .hc_status = GW_HTTP_MORE},
    {IN("\r\n"), .hc_status = GW_HTTP_MORE},
    {IN("GET http://example.com/ HTTP/1.1"), .hc_status = GW_HTTP_MORE},
    {IN(GET_ABS HOST), .hc_status = GW_HTTP_MORE},
    {IN(GET_ABS HOST "\r"), .hc_status = GW_HTTP_MORE},
    {IN("GE\x01"), BAD(400, "not an HTTP request (no method token)")},

    /* ---- the request line ---- */
    {IN("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"),
     BAD(400, "not an HTTP request (no method token)")},
    {IN("G\tET http://example.com/ HTTP/1.1\r\n" HOST END),
     BAD(400, "not an HTTP request (no method token)")},
    {IN("GET\r\n" HOST END), BAD(400, R_REQLINE)},
    {IN("GET http://example.com/\r\n" HOST END), BAD(400, R_REQLINE)},
    {IN("GET  http://example.com/ HTTP/1.1\r\n" HOST END), BAD(400, R_REQLINE)},
    {IN(" GET http://example.com/ HTTP/1.1\r\n" HOST END), BAD(400, R_REQLINE)},
    {IN("GET http://example.com/ HTTP/2.0\r\n" HOST END), BAD(505, R_VERSION)},
    {IN("GET http://example.com/ HTTP/1.2\r\n" HOST END), BAD(505, R_VERSION)},
    {IN("GET http://example.com/ HTTP/0.9\r\n" HOST END), BAD(505, R_VERSION)},
    {IN("GET http://example.com/ http/1.1\r\n" HOST END),
     BAD(400, "malformed HTTP version")},
    {IN("GET http://example.com/ HTTP/1.1 \r\n" HOST END),
     BAD(400, "malformed HTTP version")},
    {IN("GET http://example.com/ HTTP/11\r\n" HOST END),
     BAD(400, "malformed HTTP version")},
    {IN("GET http://example.com/ HTTP/1.1\n" HOST END),
     BAD(400, "a line ending in a bare LF (CRLF required)")},
    {IN("GET http://example.com/ HTTP/1.1\r\nHost: example.com\n" END),
     BAD(400, "a line ending in a bare LF (CRLF required)")},
    {IN("\n" GET_ABS HOST END),
     BAD(400, "a line ending in a bare LF (CRLF required)")},
    {IN(GET_ABS "Host: example.com\rX: y\r\n" END),
     BAD(400, "a bare CR inside a line")},
    {IN("GET http://example.com/\r HTTP/1.1\r\n" HOST END),
     BAD(400, "a bare CR inside a line")},

    /* ---- request targets ---- */
    {IN("CONNECT example.com HTTP/1.1\r\n" HOST END),
     BAD(400, "request target: no port (host:port is required)")},
    {IN("CONNECT example.com:0 HTTP/1.1\r\n" HOST END),
     BAD(400, "request target: a port out of range (1..65535)")},
    {IN("CONNECT example.com:65536 HTTP/1.1\r\n" HOST END),
     BAD(400, "request target: a port out of range (1..65535)")},
    {IN("CONNECT example.com:+443 HTTP/1.1\r\n" HOST END),
     BAD(400, "request target: a port that is not decimal digits")},
    {IN("CONNECT 0x7f.1:443 HTTP/1.1\r\n" HOST END),
     BAD(400, "request target: " R_NUM)},
    {IN("CONNECT 2130706433:443 HTTP/1.1\r\n" HOST END),
     BAD(400, "request target: " R_NUM)},
    {IN("CONNECT example.com:443 HTTP/1.1\r\n" END), BAD(400, R_HOST_MISSING)},
    {IN("CONNECT http://example.com/ HTTP/1.1\r\n" HOST END),
     BAD(400, "CONNECT needs an authority-form target (host:port)")},
    {IN("CONNECT * HTTP/1.1\r\n" HOST END),
     BAD(400, "CONNECT needs an authority-form target (host:port)")},
    {IN("GET https://example.com/ HTTP/1.1\r\n" HOST END),
     BAD(400, "an https:// URL sent to the proxy as plain HTTP "
              "(use CONNECT host:443 for TLS)")},
    {IN("GET ftp://example.com/ HTTP/1.1\r\n" HOST END),
     BAD(400, "a URL scheme other than http://")},
    {IN("GET /index.html HTTP/1.1\r\n" HOST END),
     BAD(400, "an origin-form target sent to a proxy "
              "(send the absolute http:// URL)")},
    {IN("OPTIONS * HTTP/1.1\r\n" HOST END),
     BAD(400, "an asterisk-form (*) target is not supported")},
    {IN("OPTIONS * HTTP/1.1\r\n" HOST END), .hc_tunnel = true,
     BAD(400, "an asterisk-form (*) target is not supported")},
    {IN("GET example.com/ HTTP/1.1\r\n" HOST END),
     BAD(400, "malformed request target")},
    {IN("GET http:example.com/ HTTP/1.1\r\n" HOST END),
     BAD(400, "malformed request target")},
    {IN(GET_ABS HOST END), .hc_tunnel = true,
     BAD(400, "an http:// URL inside a TLS tunnel")},
    {IN("GET http://example.com/#top HTTP/1.1\r\n" HOST END),
     BAD(400, "a fragment (#) in the request target")},
    {IN("GET http://example.com/a\x7f HTTP/1.1\r\n" HOST END),
     BAD(400, "a byte not allowed in the request target")},
    {IN("GET http://example.com/caf\xc3\xa9 HTTP/1.1\r\n" HOST END),
     BAD(400, "a byte not allowed in the request target")},
    {IN("GET http://example.com/%zz HTTP/1.1\r\n" HOST END),
     BAD(400, "request path: a bad percent-encoding")},
    {IN("GET http://example.com/%4 HTTP/1.1\r\n" HOST END),
     BAD(400, "request path: a bad percent-encoding")},
    {IN("GET http://example.com/%4?x HTTP/1.1\r\n" HOST END),
     BAD(400, "request path: a bad percent-encoding")},
    {IN("GET http://example.com/a%00b HTTP/1.1\r\n" HOST END),
     BAD(400, "request path: an encoded NUL")},
    {IN("GET http://example.com/a\\..\\b HTTP/1.1\r\n" HOST END),
     BAD(400, R_PATHBYTE)},
    {IN("GET http://example.com/{x} HTTP/1.1\r\n" HOST END),
     BAD(400, R_PATHBYTE)},
    {IN("GET http://user:pw@example.com/ HTTP/1.1\r\n" HOST END),
     BAD(400, "request target: userinfo in the authority (not allowed)")},
    {IN("GET http://0177.0.0.1/ HTTP/1.1\r\nHost: 0177.0.0.1\r\n" END),
     BAD(400, "request target: " R_NUM)},
    {IN("GET http:///x HTTP/1.1\r\n" HOST END),
     BAD(400, "request target: an empty host")},
    {IN("GET http://b\xc3\xbc"
        "cher.example/ HTTP/1.1\r\n" HOST END),
     BAD(400, "a byte not allowed in the request target")},

    /* ---- Host ---- */
    {IN(GET_ABS END), BAD(400, R_HOST_MISSING)},
    {IN(GET_ABS HOST HOST END), BAD(400, "more than one Host header field")},
    {IN(GET_ABS "Host: other.example\r\n" END), BAD(400, R_HOST_MISMATCH)},
    {IN("GET http://example.com:8080/ HTTP/1.1\r\n" HOST END),
     BAD(400, R_HOST_MISMATCH)},
    {IN(GET_ABS "Host: exa mple.com\r\n" END), BAD(400, "Host: " R_HOSTBYTE)},
    {IN(GET_ABS "Host: 127.1\r\n" END), BAD(400, "Host: " R_NUM)},
    {IN(GET_ABS "Host:\r\n" END), BAD(400, "Host: an empty host")},
    {IN("GET / HTTP/1.1\r\nHost: a@b\r\n" END), .hc_tunnel = true,
     BAD(400, "Host: userinfo in the authority (not allowed)")},

    /* ---- field syntax ---- */
    {IN(GET_ABS HOST "X-A: 1\r\n  2\r\n" END),
     BAD(400, "obsolete line folding (a field line starting with "
              "whitespace)")},
    {IN(GET_ABS " Host: example.com\r\n" END),
     BAD(400, "obsolete line folding (a field line starting with "
              "whitespace)")},
    {IN(GET_ABS HOST "X-A 1\r\n" END),
     BAD(400, "a header field line without a colon")},
    {IN(GET_ABS "Host : example.com\r\n" END),
     BAD(400, "whitespace between a header field name and its colon")},
    {IN(GET_ABS HOST "Ho(st: x\r\n" END),
     BAD(400, "a header field name that is not a token")},
    {IN(GET_ABS HOST ": x\r\n" END),
     BAD(400, "a header field name that is not a token")},
    {IN(GET_ABS HOST "X: a\0b\r\n" END),
     BAD(400, "a control byte in a header field value")},
    {IN(GET_ABS HOST "X: a\x7f\r\n" END),
     BAD(400, "a control byte in a header field value")},
    {IN(GET_ABS HOST "X: a\x01\r\n" END),
     BAD(400, "a control byte in a header field value")},
    {IN(GET_ABS HOST
        "Proxy-Authorization: a\r\nProxy-Authorization: b\r\n" END),
     BAD(400, "more than one Proxy-Authorization header field")},

    /* ---- message framing ---- */
    {IN(GET_ABS HOST "Content-Length: +5\r\n" END), BAD(400, R_CL)},
    {IN(GET_ABS HOST "Content-Length: -1\r\n" END), BAD(400, R_CL)},
    {IN(GET_ABS HOST "Content-Length: 5, 5\r\n" END), BAD(400, R_CL)},
    {IN(GET_ABS HOST "Content-Length: 0x10\r\n" END), BAD(400, R_CL)},
    {IN(GET_ABS HOST "Content-Length:\r\n" END), BAD(400, R_CL)},
    {IN(GET_ABS HOST "Content-Length: 9223372036854775808\r\n" END),
     BAD(400, "a Content-Length too large")},
    {IN(GET_ABS HOST "Content-Length: 99999999999999999999999\r\n" END),
     BAD(400, "a Content-Length too large")},
    {IN(GET_ABS HOST "Content-Length: 5\r\nContent-Length: 6\r\n" END),
     BAD(400, "Content-Length fields that disagree")},
    {IN(GET_ABS HOST "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n" END),
     BAD(400, R_TE_CL)},
    {IN(GET_ABS HOST "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n" END),
     BAD(400, R_TE_CL)},
    {IN(GET_ABS HOST "Transfer-Encoding: gzip\r\nContent-Length: 5\r\n" END),
     BAD(400, R_TE_CL)},
    {IN(GET_ABS HOST "Transfer-Encoding: gzip, chunked\r\n" END),
     BAD(501, R_TE_CODING)},
    {IN(GET_ABS HOST "Transfer-Encoding: chunked, gzip\r\n" END),
     BAD(501, R_TE_CODING)},
    {IN(GET_ABS HOST "Transfer-Encoding: identity\r\n" END),
     BAD(501, R_TE_CODING)},
    {IN(GET_ABS HOST "Transfer-Encoding: chunked;q=1\r\n" END),
     BAD(501, R_TE_CODING)},
    {IN(GET_ABS HOST "Transfer-Encoding: xchunked\r\n" END),
     BAD(501, R_TE_CODING)},
    {IN(GET_ABS HOST "Transfer-Encoding: chunked, chunked\r\n" END),
     BAD(400, "chunked transfer coding applied more than once")},
    {IN(GET_ABS HOST "Transfer-Encoding: chunked\r\n"
                     "Transfer-Encoding: chunked\r\n" END),
     BAD(400, "chunked transfer coding applied more than once")},
    {IN(GET_ABS HOST "Transfer-Encoding: \r\n" END),
     BAD(400, "an empty Transfer-Encoding")},
    {IN("GET http://example.com/ HTTP/1.0\r\nTransfer-Encoding: "
        "chunked\r\n" END),
     BAD(400, "Transfer-Encoding in an HTTP/1.0 request")},
};

/* A fresh parser in a fresh arena for one run. */
typedef struct run {
    box_arena *r_arena;
    gw_http_parser *r_p;
} run;

static void
run_open(run *r, bool tunnel)
{
    gw_http_opts o = {.ho_intercepted = tunnel};
    r->r_arena = box_arena_new(GW_HTTP_ARENA_MAX);
    assert_non_null(r->r_arena);
    r->r_p = gw_http_parser_new(r->r_arena, &o);
    assert_non_null(r->r_p);
}

static void
run_close(run *r)
{
    box_arena_free(r->r_arena);
}

/* Feeds in[0..len) a byte more per call until the answer settles. */
static gw_http_result
feed_bytes(gw_http_parser *p, const char *in, size_t len)
{
    gw_http_result res = {.r_status = GW_HTTP_MORE};
    for (size_t i = 0; i <= len && res.r_status == GW_HTTP_MORE; i++)
        res = gw_http_parse(p, in, i);
    return res;
}

static void
assert_str_n(const char *want, const char *got, size_t got_len)
{
    if (want == NULL) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_int_equal(got_len, strlen(want));
    assert_string_equal(got, want);
}

static void
expect(const http_case *c, const gw_http_result *r)
{
    assert_int_equal(r->r_status, c->hc_status);
    if (c->hc_status == GW_HTTP_BAD) {
        assert_int_equal(r->r_code, c->hc_code);
        assert_string_equal(r->r_reason, c->hc_reason);
        return;
    }
    if (c->hc_status != GW_HTTP_DONE)
        return;
    const gw_http_req *q = r->r_req;
    assert_int_equal(r->r_used, c->hc_used ? c->hc_used : c->hc_len);
    assert_int_equal(q->rq_method, c->hc_method);
    static const char *const names[GW_HTTP_METHOD_COUNT] = {
        "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT"};
    assert_string_equal(q->rq_method_name, names[c->hc_method]);
    assert_int_equal(q->rq_minor, c->hc_http10 ? 0 : 1);
    assert_int_equal(q->rq_form, c->hc_form);
    assert_int_equal(q->rq_has_authority, c->hc_host != NULL);
    if (c->hc_host != NULL) {
        assert_string_equal(q->rq_authority.a_host.h_text, c->hc_host);
        assert_int_equal(q->rq_authority.a_port, c->hc_port);
    }
    assert_str_n(c->hc_path, q->rq_path, q->rq_path_len);
    assert_str_n(c->hc_query, q->rq_query, q->rq_query_len);
    assert_int_equal(q->rq_has_content_length, c->hc_has_cl);
    assert_int_equal(q->rq_content_length, c->hc_cl);
    assert_int_equal(q->rq_chunked, c->hc_chunked);
    assert_int_equal(q->rq_keep_alive, !c->hc_close);
    assert_int_equal(q->rq_expect_continue, c->hc_expect);
    assert_str_n(c->hc_proxy_auth, q->rq_proxy_auth, q->rq_proxy_auth_len);
    if (c->hc_nfields != 0)
        assert_int_equal(q->rq_nfields, c->hc_nfields);
}

/* One row: whole, a byte at a time, and split in two at every place. */
static void
check_case(const http_case *c)
{
    run r;
    run_open(&r, c->hc_tunnel);
    gw_http_result res = gw_http_parse(r.r_p, c->hc_in, c->hc_len);
    expect(c, &res);
    // Settled answers stay.
    gw_http_result again = gw_http_parse(r.r_p, c->hc_in, c->hc_len);
    assert_int_equal(again.r_status, res.r_status);
    run_close(&r);

    run_open(&r, c->hc_tunnel);
    res = feed_bytes(r.r_p, c->hc_in, c->hc_len);
    expect(c, &res);
    run_close(&r);

    for (size_t cut = 0; cut <= c->hc_len; cut++) {
        run_open(&r, c->hc_tunnel);
        res = gw_http_parse(r.r_p, c->hc_in, cut);
        if (res.r_status == GW_HTTP_MORE)
            res = gw_http_parse(r.r_p, c->hc_in, c->hc_len);
        expect(c, &res);
        run_close(&r);
    }
}

static void
test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof http_cases / sizeof http_cases[0]; i++) {
        print_message("case %zu\n", i);
        check_case(&http_cases[i]);
    }
}

/* A path and its canonical form, or NULL and the refusal. */
typedef struct path_case {
    const char *pc_in;
    size_t pc_len;
    const char *pc_out;
    const char *pc_why;
} path_case;

#define P(in, out)                                                             \
    {                                                                          \
        in, sizeof(in) - 1, out, NULL                                          \
    }
#define PNO(in, why)                                                           \
    {                                                                          \
        in, sizeof(in) - 1, NULL, why                                          \
    }

static const path_case path_cases[] = {
    P("", "/"),
    P("/", "/"),
    P("/a/b/c/./../../g", "/a/g"), // RFC 3986 §5.2.4's example
    P("/..", "/"),
    P("/../..", "/"),
    P("/../a", "/a"),
    P("/../../etc/passwd", "/etc/passwd"),
    P("/a/..", "/"),
    P("/a/../", "/"),
    P("/a/.", "/a/"),
    P("/a/./", "/a/"),
    P("/.", "/"),
    P("/./a", "/a"),
    P("/a/b/..", "/a/"),
    P("/%2e%2E", "/"),
    P("/%2E", "/"),
    P("/a/%2e%2E/b", "/b"),
    P("/a/.%2e/b", "/b"),
    P("/a%2e", "/a."),
    P("/.a", "/.a"),
    P("/...", "/..."),
    P("/a/..b", "/a/..b"),
    P("/a/b../c", "/a/b../c"),
    P("//", "//"),
    P("//a/../b", "//b"),
    P("/a//../b", "/a/b"),
    P("/a//b//", "/a//b//"),
    P("/%7e%7Euser", "/~~user"),
    P("/%41%5a%61%7a%30%39%2d%2e%5f%7e", "/AZaz09-._~"),
    P("/%2f", "/%2F"),
    P("/a%2F..%2Fb", "/a%2F..%2Fb"),
    P("/%3f", "/%3F"),
    P("/%23", "/%23"),
    P("/%c3%a9", "/%C3%A9"),
    P("/%25", "/%25"),
    P("/%2541", "/%2541"), // decoded once, never twice
    P("/%252e%252e", "/%252e%252e"),
    P("/a%20b", "/a%20b"),
    P("/a:b@c!$&'()*+,;=", "/a:b@c!$&'()*+,;="),
    PNO("a/b", "a path not starting with '/'"),
    PNO("/%zz", "a bad percent-encoding"),
    PNO("/%4", "a bad percent-encoding"),
    PNO("/%", "a bad percent-encoding"),
    PNO("/%g0", "a bad percent-encoding"),
    PNO("/%0g", "a bad percent-encoding"),
    PNO("/%00", "an encoded NUL"),
    PNO("/a\0b", "a NUL byte"),
    PNO("/a b", "a byte not allowed in a path"),
    PNO("/a?b", "a byte not allowed in a path"),
    PNO("/a#b", "a byte not allowed in a path"),
    PNO("/a\\b", "a byte not allowed in a path"),
    PNO("/a|b", "a byte not allowed in a path"),
    PNO("/[a]", "a byte not allowed in a path"),
    PNO("/\xc3\xa9", "a byte not allowed in a path"),
};

static void
test_path_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof path_cases / sizeof path_cases[0]; i++) {
        const path_case *c = &path_cases[i];
        char out[64], again[64];
        size_t n = 0, n2 = 0;
        const char *why = NULL;
        print_message("path %zu: %s\n", i, c->pc_in);
        box_err rv = gw_http_path_canon(c->pc_in, c->pc_len, out, &n, &why);
        if (c->pc_out == NULL) {
            assert_int_equal(rv, BOX_EINVAL);
            assert_string_equal(why, c->pc_why);
            continue;
        }
        assert_int_equal(rv, BOX_OK);
        assert_string_equal(out, c->pc_out);
        assert_int_equal(n, strlen(c->pc_out));
        /* The canonical form is its own. */
        assert_int_equal(gw_http_path_canon(out, n, again, &n2, &why), BOX_OK);
        assert_string_equal(again, out);
    }
}

/* The fields are kept in order, names as sent, values without OWS. */
static void
test_fields_kept(void **state)
{
    (void)state;
    static const char in[] = "GET http://example.com/ HTTP/1.1\r\n"
                             "hOST:   example.com \t\r\n"
                             "X-Empty:\r\n"
                             "Accept: text/html,  */*\r\n\r\n";
    run r;
    run_open(&r, false);
    gw_http_result res = gw_http_parse(r.r_p, in, sizeof in - 1);
    assert_int_equal(res.r_status, GW_HTTP_DONE);
    const gw_http_req *q = res.r_req;
    static const char *const want[][2] = {{"hOST", "example.com"},
                                          {"X-Empty", ""},
                                          {"Accept", "text/html,  */*"}};
    assert_int_equal(q->rq_nfields, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_str_n(want[i][0], q->rq_fields[i].f_name,
                     q->rq_fields[i].f_name_len);
        assert_str_n(want[i][1], q->rq_fields[i].f_value,
                     q->rq_fields[i].f_value_len);
    }
    run_close(&r);
}

/* ---- limits: each at its bound and one past it ---- */

/* Appends n copies of c. */
static void
put_n(box_buf *b, char c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        assert_int_equal(box_buf_putc(b, c), BOX_OK);
}

/* A big row: whole, a byte at a time, and split at a few places (every
 * place would be quadratic). */
static void
check_big(const char *in, size_t len, gw_http_status st, int code,
          const char *reason)
{
    http_case c = {.hc_in = in,
                   .hc_len = len,
                   .hc_status = st,
                   .hc_code = code,
                   .hc_reason = reason};
    run r;
    const size_t cuts[] = {0, 1, len / 3, len / 2, len - 2, len - 1, len};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0] + 2; k++) {
        run_open(&r, false);
        gw_http_result res;
        if (k == 0) {
            res = gw_http_parse(r.r_p, in, len);
        } else if (k == 1) {
            res = feed_bytes(r.r_p, in, len);
        } else {
            size_t cut = cuts[k - 2] <= len ? cuts[k - 2] : len;
            res = gw_http_parse(r.r_p, in, cut);
            if (res.r_status == GW_HTTP_MORE)
                res = gw_http_parse(r.r_p, in, len);
        }
        assert_int_equal(res.r_status, c.hc_status);
        if (st == GW_HTTP_BAD) {
            assert_int_equal(res.r_code, code);
            assert_string_equal(res.r_reason, reason);
        } else if (st == GW_HTTP_DONE) {
            assert_int_equal(res.r_used, len);
        }
        run_close(&r);
    }
}

#define PRE "GET http://example.com/"
#define VER " HTTP/1.1"

static void
test_request_line_limit(void **state)
{
    (void)state;
    for (size_t extra = 0; extra < 2; extra++) {
        box_buf b;
        box_buf_init(&b, 1 << 20);
        assert_int_equal(box_buf_puts(&b, PRE), BOX_OK);
        put_n(&b, 'a', GW_HTTP_LINE_MAX - strlen(PRE VER) + extra);
        assert_int_equal(box_buf_puts(&b, VER), BOX_OK);
        assert_int_equal(b.b_len, GW_HTTP_LINE_MAX + extra);
        size_t line = b.b_len;
        // The line alone, without its end: already refused when over.
        check_big(b.b_data, line, extra ? GW_HTTP_BAD : GW_HTTP_MORE, 414,
                  "request line over 8192 bytes");
        assert_int_equal(box_buf_puts(&b, "\r"), BOX_OK);
        check_big(b.b_data, line + 1, extra ? GW_HTTP_BAD : GW_HTTP_MORE, 414,
                  "request line over 8192 bytes");
        assert_int_equal(box_buf_puts(&b, "\n" HOST END), BOX_OK);
        check_big(b.b_data, b.b_len, extra ? GW_HTTP_BAD : GW_HTTP_DONE, 414,
                  "request line over 8192 bytes");
        box_buf_reset(&b);
    }
}

static void
test_field_line_limit(void **state)
{
    (void)state;
    for (size_t extra = 0; extra < 2; extra++) {
        box_buf b;
        box_buf_init(&b, 1 << 20);
        assert_int_equal(box_buf_puts(&b, GET_ABS HOST "X: "), BOX_OK);
        put_n(&b, 'v', GW_HTTP_FIELD_LINE_MAX - 3 + extra);
        size_t partial = b.b_len;
        check_big(b.b_data, partial, extra ? GW_HTTP_BAD : GW_HTTP_MORE, 431,
                  "a header field line over 8192 bytes");
        assert_int_equal(box_buf_puts(&b, "\r\n" END), BOX_OK);
        check_big(b.b_data, b.b_len, extra ? GW_HTTP_BAD : GW_HTTP_DONE, 431,
                  "a header field line over 8192 bytes");
        box_buf_reset(&b);
    }
}

/* A head of exactly total bytes: the request line, Host, field lines of
 * 8000 bytes and one to make up the rest, the empty line. */
static void
make_head(box_buf *b, size_t total)
{
    assert_int_equal(box_buf_puts(b, GET_ABS HOST), BOX_OK);
    size_t rest = total - b->b_len - 2;
    while (rest > 0) {
        size_t line = rest > 8002 + 10 ? 8002 : rest; // content + CRLF
        assert_int_equal(box_buf_puts(b, "X: "), BOX_OK);
        put_n(b, 'v', line - 5);
        assert_int_equal(box_buf_puts(b, "\r\n"), BOX_OK);
        rest -= line;
    }
    assert_int_equal(box_buf_puts(b, END), BOX_OK);
    assert_int_equal(b->b_len, total);
}

static void
test_head_limit(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 1 << 20);
    make_head(&b, GW_HTTP_HEAD_MAX);
    check_big(b.b_data, b.b_len, GW_HTTP_DONE, 0, NULL);
    box_buf_truncate(&b, 0);
    make_head(&b, GW_HTTP_HEAD_MAX + 1);
    check_big(b.b_data, b.b_len, GW_HTTP_BAD, 431,
              "request head over 65536 bytes");
    // Without its empty line it is already over: no 2 bytes fit.
    check_big(b.b_data, b.b_len - 2, GW_HTTP_BAD, 431,
              "request head over 65536 bytes");
    box_buf_reset(&b);

    /* A field line that would pass both limits, starting where the head
     * has fewer bytes left than a line may hold: the head's is named, on
     * every split, whole or not. */
    box_buf_init(&b, 1 << 20);
    make_head(&b, 60000);
    box_buf_truncate(&b, b.b_len - 2);
    assert_int_equal(box_buf_puts(&b, "X: "), BOX_OK);
    put_n(&b, 'v', 9000);
    check_big(b.b_data, b.b_len, GW_HTTP_BAD, 431,
              "request head over 65536 bytes");
    assert_int_equal(box_buf_puts(&b, "\r\n" END), BOX_OK);
    check_big(b.b_data, b.b_len, GW_HTTP_BAD, 431,
              "request head over 65536 bytes");
    box_buf_reset(&b);
}

static void
test_field_count_limit(void **state)
{
    (void)state;
    for (size_t extra = 0; extra < 2; extra++) {
        box_buf b;
        box_buf_init(&b, 1 << 20);
        assert_int_equal(box_buf_puts(&b, GET_ABS HOST), BOX_OK);
        for (size_t i = 1; i < GW_HTTP_FIELDS_MAX + extra; i++)
            assert_int_equal(box_buf_printf(&b, "X-%zu: %zu\r\n", i, i),
                             BOX_OK);
        assert_int_equal(box_buf_puts(&b, END), BOX_OK);
        check_big(b.b_data, b.b_len, extra ? GW_HTTP_BAD : GW_HTTP_DONE, 431,
                  "more than 100 header fields");
        if (!extra) {
            run r;
            run_open(&r, false);
            gw_http_result res = gw_http_parse(r.r_p, b.b_data, b.b_len);
            assert_int_equal(res.r_req->rq_nfields, GW_HTTP_FIELDS_MAX);
            run_close(&r);
        }
        box_buf_reset(&b);
    }
}

/* Leading empty lines count toward the head. */
static void
test_leading_empty_lines(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 1 << 20);
    for (size_t i = 0; i < GW_HTTP_HEAD_MAX / 2; i++)
        assert_int_equal(box_buf_puts(&b, "\r\n"), BOX_OK);
    check_big(b.b_data, b.b_len, GW_HTTP_BAD, 431,
              "request head over 65536 bytes");
    box_buf_reset(&b);
}

/* A full arena or a failed allocation is NOMEM, at every allocation, and
 * never a refusal or a request. */
static void
test_nomem(void **state)
{
    (void)state;
    static const char in[] = GET_ABS HOST "X-1: a\r\nX-2: b\r\n" END;
    box_arena *tiny = box_arena_new(16);
    assert_non_null(tiny);
    assert_null(gw_http_parser_new(tiny, NULL));
    box_arena_free(tiny);
    for (unsigned long n = 1;; n++) {
        box_arena *a = box_arena_new(GW_HTTP_ARENA_MAX);
        assert_non_null(a);
        box_alloc_fail_after(n);
        gw_http_parser *p = gw_http_parser_new(a, NULL);
        gw_http_result res = {.r_status = GW_HTTP_NOMEM};
        if (p != NULL)
            res = gw_http_parse(p, in, sizeof in - 1);
        unsigned long calls = box_alloc_calls();
        box_alloc_fail_off();
        box_arena_free(a);
        if (calls < n) {
            assert_int_equal(res.r_status, GW_HTTP_DONE);
            break;
        }
        assert_int_equal(res.r_status, GW_HTTP_NOMEM);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_path_table),
        cmocka_unit_test(test_fields_kept),
        cmocka_unit_test(test_request_line_limit),
        cmocka_unit_test(test_field_line_limit),
        cmocka_unit_test(test_head_limit),
        cmocka_unit_test(test_field_count_limit),
        cmocka_unit_test(test_leading_empty_lines),
        cmocka_unit_test(test_nomem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
