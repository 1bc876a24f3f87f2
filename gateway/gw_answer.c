/* SPDX-License-Identifier: Apache-2.0 */
/* The gateway's own answers: one table of status and marker per kind. */
#include "gw_answer.h"

#include <string.h>

#define GW_MARKER "x-strands-box-egress: refused\r\n"

/* ORDER GW_ANSWER */
static const struct {
    int code; // 0: the caller's
    bool marked;
    const char *extra; // more header lines
} answer_tab[GW_ANSWER_KIND_COUNT] = {
    {403, true, ""},
    // A 407 says how to authenticate (RFC 9110 §15.5.8).
    {407, true, "proxy-authenticate: Basic realm=\"strands-box\"\r\n"},
    {502, false, ""},
    {503, false, ""},
    {0, false, ""},
    {408, false, ""},
    {413, false, ""},
};

static const struct {
    int code;
    const char *phrase;
} phrase_tab[] = {
    {200, "OK"},
    {400, "Bad Request"},
    {403, "Forbidden"},
    {405, "Method Not Allowed"},
    {407, "Proxy Authentication Required"},
    {408, "Request Timeout"},
    {411, "Length Required"},
    {413, "Content Too Large"},
    {414, "URI Too Long"},
    {417, "Expectation Failed"},
    {431, "Request Header Fields Too Large"},
    {501, "Not Implemented"},
    {502, "Bad Gateway"},
    {503, "Service Unavailable"},
    {504, "Gateway Timeout"},
    {505, "HTTP Version Not Supported"},
};

const char *
gw_answer_phrase(int code)
{
    for (size_t i = 0; i < sizeof phrase_tab / sizeof *phrase_tab; i++)
        if (phrase_tab[i].code == code)
            return phrase_tab[i].phrase;
    return "";
}

box_err
gw_answer(box_buf *out, gw_answer_kind kind, int code, const char *reason,
          bool keep_alive)
{
    if ((unsigned)kind >= GW_ANSWER_KIND_COUNT)
        return BOX_EINVAL;
    if (answer_tab[kind].code != 0)
        code = answer_tab[kind].code;
    if (code < 100 || code > 599)
        code = 500;
    if (reason == NULL || reason[0] == '\0')
        reason = gw_answer_phrase(code);
    size_t n = strcspn(reason, "\r\n");
    return box_buf_printf(
        out,
        "HTTP/1.1 %d %s\r\n%s%scontent-type: text/plain; charset=utf-8\r\n"
        "content-length: %zu\r\n%s\r\n%.*s\n",
        code, gw_answer_phrase(code), answer_tab[kind].marked ? GW_MARKER : "",
        answer_tab[kind].extra, n + 1,
        keep_alive ? "" : "connection: close\r\n", (int)n, reason);
}
