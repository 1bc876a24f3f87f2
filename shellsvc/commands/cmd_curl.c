/* SPDX-License-Identifier: Apache-2.0 */
/* curl URL...: box-spec §3.12's flags over libcurl, through the gateway.
 * Without a gateway (a box with no network) every URL that passes the
 * SSRF floor ends `curl: (7) the box has no network`, status 7. */
#include <curl/curl.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_curl.h"
#include "cmd_http.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define CURL_DATA_MAX (1u << 20) // -d/--json's joined request body
#define CURL_REDIRS_MAX 10       // -L (§3.12)
#define CURL_OUT_MAX                                                           \
    ((size_t)(CURL_REDIRS_MAX + 1) * (HTTP_HEAD_MAX + HTTP_BODY_MAX))

/* How curl words each outcome (§3.12). ORDER HTTP_OUTCOME */
static const http_say curl_say[HTTP_OUTCOMES] = {
    [HTTP_DONE] = {0, false, NULL, NULL, NULL},
    [HTTP_FLOOR] = {1, true, "", NULL, NULL},
    [HTTP_REFUSED] = {1, true, "", "the egress gateway refused this request",
                      NULL},
    [HTTP_PROTO] = {1, false, "(1) Protocol \"", NULL, "\" disabled"},
    [HTTP_NO_NETWORK] = {7, false, "(7) the box has no network", NULL, NULL},
    [HTTP_NO_CA] = {7, false,
                    "(7) the run's CA certificate was not readable when the "
                    "shell started",
                    NULL, NULL},
    [HTTP_NO_GATEWAY] = {7, false,
                         "(7) cannot reach the egress gateway: ", NULL, NULL},
    [HTTP_NO_TUNNEL] = {6, false, "(6) ", NULL, NULL},
    [HTTP_TIMEOUT] = {28, false, "(28) Operation timed out", NULL, NULL},
    [HTTP_TRANSPORT] = {6, false, "(6) ", NULL, NULL},
    [HTTP_TLS] = {6, false, "(6) ", NULL, NULL},
    [HTTP_TOO_BIG] = {6, false, "(6) response body too large", NULL, NULL},
    [HTTP_REDIRS] = {47, false, "(47) Maximum (10) redirects followed", NULL,
                     NULL},
    [HTTP_STOPPED] = {1, false, NULL, NULL, NULL}, // the shell says why
    [HTTP_NOMEM] = {1, true, "out of memory", NULL, NULL},
};

enum {
    CO_DATA_RAW = SH_GOPT_LONG_ONLY,
    CO_JSON,
    CO_PROTO,
    CO_PROTO_REDIR,
};

static const sh_gopt curl_opts[] = {
    {'A', "user-agent", SH_GARG_REQ},
    {'H', "header", SH_GARG_REQ},
    {'L', "location", SH_GARG_NONE},
    {'S', "show-error", SH_GARG_NONE},
    {'X', "request", SH_GARG_REQ},
    {'b', "cookie", SH_GARG_REQ},
    {'d', "data", SH_GARG_REQ},
    {'f', "fail", SH_GARG_NONE},
    {'g', "globoff", SH_GARG_NONE},
    {'h', NULL, SH_GARG_NONE},
    {'i', "include", SH_GARG_NONE},
    {'k', "insecure", SH_GARG_NONE},
    {'m', "max-time", SH_GARG_REQ},
    {'o', "output", SH_GARG_REQ},
    {'s', "silent", SH_GARG_NONE},
    {'u', "user", SH_GARG_REQ},
    {'v', "verbose", SH_GARG_NONE},
    {'w', "write-out", SH_GARG_REQ},
    {CO_DATA_RAW, "data-raw", SH_GARG_REQ},
    {CO_JSON, "json", SH_GARG_REQ},
    {CO_PROTO, "proto", SH_GARG_REQ},
    {CO_PROTO_REDIR, "proto-redir", SH_GARG_REQ},
    {0},
};

static const sh_gopt_spec curl_spec = {
    .gs_cmd = "curl",
    .gs_opts = curl_opts,
    .gs_fail = 2, // §3.10: curl usage
    .gs_help =
        "Usage: curl [options...] <url>\n"
        " -A, --user-agent <name>  Send User-Agent <name> to server\n"
        " -b, --cookie <data>      Send cookies (NAME=VALUE; ...)\n"
        " -d, --data <data>        HTTP POST data (@FILE reads a file)\n"
        "     --data-raw <data>    HTTP POST data, '@' allowed\n"
        " -f, --fail               Fail fast with no output on HTTP errors\n"
        " -g, --globoff            Disable URL globbing (never done here)\n"
        " -H, --header <header>    Pass custom header(s) to server\n"
        " -h, --help               This help text\n"
        " -i, --include            Include protocol response headers in the "
        "output\n"
        " -k, --insecure           Allow insecure server connections\n"
        "     --json <data>        HTTP POST JSON (@FILE reads a file)\n"
        " -L, --location           Follow redirects (at most 10)\n"
        " -m, --max-time <secs>    Maximum time allowed for transfer\n"
        " -o, --output <file>      Write to file instead of stdout\n"
        "     --proto <protocols>  Enable/disable PROTOCOLS\n"
        "     --proto-redir <protocols> Enable/disable PROTOCOLS on redirect\n"
        " -S, --show-error         Show error even when -s is used\n"
        " -s, --silent             Silent mode\n"
        " -u, --user <user:password> Server user and password\n"
        " -v, --verbose            Make the operation more talkative\n"
        " -w, --write-out <format> Use output FORMAT after completion\n"
        " -X, --request <method>   Specify request method to use\n"
        "Only http:// and https:// URLs, through the box's egress gateway.\n",
};

/* The options as read, with what they own. */
typedef struct curl_opts_st {
    http_req co_rq;
    const char *co_output, *co_write;
    box_buf co_data;
    bool co_has_data, co_json;
    bool co_fail, co_include, co_silent, co_show_error;
} curl_opts_st;

/* What one URL's transfer gives curl to print. */
typedef struct curl_result {
    http_result cs_http;
    int cs_status;  // the command's exit status
    char *cs_msg;   // the line for stderr after "curl: ", or NULL
    bool cs_always; // it prints even with -s (a refusal)
    box_buf cs_out; // the heads (-i) and the body, to print
} curl_result;

/* One -d/--data-raw/--json piece: @FILE read through the kernel (-d
 * drops its CRs and LFs, as curl does), joined to the others by '&'
 * (--json's by nothing). Returns 0, or the status after the message. */
static int
curl_data(sh_ctx *cx, curl_opts_st *o, const char *arg, bool at, bool strip,
          bool amp)
{
    int st = 0;
    if (o->co_has_data && amp && box_buf_putc(&o->co_data, '&') != BOX_OK)
        goto big;
    o->co_has_data = true;
    if (!at || arg[0] != '@') {
        if (box_buf_puts(&o->co_data, arg) != BOX_OK)
            goto big;
        return 0;
    }
    sh_input *in = sh_input_open(cx, "curl", arg + 1, &st);
    if (in == NULL)
        return st;
    char buf[4096];
    ssize_t n;
    while ((n = sh_input_read(in, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++) {
            if (strip && (buf[i] == '\r' || buf[i] == '\n'))
                continue;
            if (box_buf_putc(&o->co_data, buf[i]) != BOX_OK) {
                sh_input_close(in);
                goto big;
            }
        }
    }
    sh_input_close(in);
    return n < 0 ? 1 : 0;
big:
    sh_errf(cx, "curl: the request body is over %u bytes", CURL_DATA_MAX);
    return 2;
}

/* -m SECONDS (a decimal, as curl reads it): false when it is none. */
static bool
curl_seconds(const char *arg, long *ms)
{
    char *end;
    double d = strtod(arg, &end);
    if (end == arg || *end != '\0' || !(d >= 0) || d > 86400.0 * 365)
        return false;
    *ms = (long)ceil(d * 1000.0);
    return true;
}

/* -w's text for one variable, or NULL when curl has none by that name. */
static bool
curl_w_var(box_buf *b, const char *name, size_t n, const http_result *res)
{
#define CW_IS(s) (n == sizeof(s) - 1 && memcmp(name, s, n) == 0)
    if (CW_IS("http_code") || CW_IS("response_code"))
        return box_buf_printf(b, "%03ld", res->hs_code) == BOX_OK;
    if (CW_IS("content_type"))
        return box_buf_puts(b, res->hs_ctype ? res->hs_ctype : "") == BOX_OK;
    if (CW_IS("size_download"))
        return box_buf_printf(b, "%zu", res->hs_body_len) == BOX_OK;
    if (CW_IS("url_effective"))
        return box_buf_puts(b, res->hs_url ? res->hs_url : "") == BOX_OK;
#undef CW_IS
    return false;
}

/* Writes -w's format after the transfer: %{var}, %%, \n \r \t \\. */
static void
curl_write_out(sh_ctx *cx, const char *fmt, const http_result *res)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (const char *p = fmt; *p != '\0'; p++) {
        box_err rv = BOX_OK;
        if (p[0] == '%' && p[1] == '{' && strchr(p + 2, '}') != NULL) {
            const char *name = p + 2, *end = strchr(name, '}');
            size_t n = (size_t)(end - name);
            size_t mark = b.b_len;
            if (!curl_w_var(&b, name, n, res)) {
                box_buf_truncate(&b, mark);
                sh_errf(cx, "curl: unknown --write-out variable: '%.*s'",
                        (int)n, name);
            }
            p = end;
        } else if (p[0] == '%' && p[1] == '%') {
            rv = box_buf_putc(&b, '%');
            p++;
        } else if (p[0] == '\\' && (p[1] == 'n' || p[1] == 'r' || p[1] == 't' ||
                                    p[1] == '\\')) {
            p++;
            rv = box_buf_putc(&b, *p == 'n'   ? '\n'
                                  : *p == 'r' ? '\r'
                                  : *p == 't' ? '\t'
                                              : '\\');
        } else {
            rv = box_buf_putc(&b, *p);
        }
        if (rv != BOX_OK)
            break;
    }
    if (b.b_len > 0)
        (void)sh_write(cx, 1, b.b_data, b.b_len);
    box_buf_reset(&b);
}

/* -i: every answer's head goes out, a followed redirect's too. */
static void
curl_on_hop(void *arg, const http_hop *hop)
{
    curl_result *res = arg;
    if (hop->hh_kind == HTTP_HOP_ANSWER &&
        box_buf_append(&res->cs_out, hop->hh_head, hop->hh_head_len) != BOX_OK)
        res->cs_status = -1; // out of memory, said once it is over
}

/* One URL's transfer and what curl makes of it: the outcome's status
 * and message (curl_say), -f, the output. */
static void
curl_fetch(sh_ctx *cx, const curl_opts_st *o, const char *url, curl_result *res)
{
    http_req rq = o->co_rq;
    memset(res, 0, sizeof *res);
    box_buf_init(&res->cs_out, CURL_OUT_MAX);
    if (o->co_include) {
        rq.hr_on_hop = curl_on_hop;
        rq.hr_hop_arg = res;
    }
    http_run(cx, url, &rq, &res->cs_http);
    const http_result *h = &res->cs_http;
    const http_say *say = &curl_say[h->hs_outcome];
    bool nomem = res->cs_status < 0; // curl_on_hop's
    res->cs_status = say->hy_status;
    res->cs_always = say->hy_always;
    res->cs_msg = http_outcome_text(curl_say, h);
    if (h->hs_outcome != HTTP_DONE)
        return;
    if (o->co_fail && h->hs_code >= 400) {
        res->cs_status = 22;
        res->cs_msg = box_asprintf("(22) The requested URL returned error: "
                                   "%ld",
                                   h->hs_code);
    } else if (nomem || (h->hs_body_len > 0 &&
                         box_buf_append(&res->cs_out, h->hs_body,
                                        h->hs_body_len) != BOX_OK)) {
        res->cs_status = 1;
        res->cs_always = true;
        res->cs_msg = box_strdup("out of memory");
    }
}

static void
curl_result_clear(curl_result *res)
{
    http_result_clear(&res->cs_http);
    box_free(res->cs_msg);
    box_buf_reset(&res->cs_out);
}

/* Prints one transfer's result: the output to -o FILE (through the
 * kernel, opened only once there is something to write) or stdout, the
 * message, -w. Returns the status. */
static int
curl_print(sh_ctx *cx, const curl_opts_st *o, const char *output,
           curl_result *res)
{
    int st = res->cs_status;
    const box_buf *out = &res->cs_out;
    if (st == 0 && output != NULL && strcmp(output, "-") != 0) {
        int ost = 0;
        sh_stream *s = sh_stream_open(cx, "curl", output, NULL,
                                      O_WRONLY | O_CREAT | O_TRUNC, &ost);
        if (s == NULL)
            return ost == 125 ? 125 : 23; // curl's write error
        if (out->b_len > 0 &&
            sh_stream_write(cx, s, out->b_data, out->b_len, true) != SH_IO_OK) {
            sh_errf(cx, "curl: (23) Failure writing output to destination");
            st = 23;
        }
        sh_stream_unref(s);
    } else if (st == 0 && out->b_len > 0) {
        (void)sh_write(cx, 1, out->b_data, out->b_len);
    }
    if (res->cs_msg != NULL &&
        (res->cs_always || !o->co_silent || o->co_show_error))
        sh_errf(cx, "curl: %s", res->cs_msg);
    if (o->co_write != NULL && !res->cs_always)
        curl_write_out(cx, o->co_write, &res->cs_http);
    return st;
}

/* Whether the -H list names the field (a "Name:" or "Name;" entry). */
static bool
curl_has_field(const struct curl_slist *l, const char *name)
{
    size_t n = strlen(name);
    for (; l != NULL; l = l->next)
        if (strncasecmp(l->data, name, n) == 0 &&
            (l->data[n] == ':' || l->data[n] == ';'))
            return true;
    return false;
}

/* --json's two fields, each unless a -H gave its own (as curl does). */
static int
curl_json_fields(sh_ctx *cx, http_req *rq)
{
    static const char *const json[][2] = {
        {"Content-Type", "Content-Type: application/json"},
        {"Accept", "Accept: application/json"},
    };
    for (size_t i = 0; i < 2; i++) {
        if (curl_has_field(rq->hr_headers, json[i][0]))
            continue;
        struct curl_slist *l = curl_slist_append(rq->hr_headers, json[i][1]);
        if (l == NULL) {
            sh_errf(cx, "curl: out of memory");
            return 2;
        }
        rq->hr_headers = l;
    }
    return 0;
}

/* Reads one option into o. Returns 0, or the status after a message. */
static int
curl_opt(sh_ctx *cx, sh_gopt_iter *it, curl_opts_st *o, int id, const char *arg)
{
    http_req *rq = &o->co_rq;
    struct curl_slist *l;
    switch (id) {
    case 'A':
        rq->hr_agent = arg;
        break;
    case 'H':
        if ((l = curl_slist_append(rq->hr_headers, arg)) == NULL) {
            sh_errf(cx, "curl: out of memory");
            return 2;
        }
        rq->hr_headers = l;
        break;
    case CO_JSON:
        o->co_json = true; // its fields join once every -H is read
        return curl_data(cx, o, arg, true, false, false);
    case 'L':
        rq->hr_max_redirs = CURL_REDIRS_MAX;
        break;
    case 'S':
        o->co_show_error = true;
        break;
    case 'X':
        rq->hr_method = arg;
        break;
    case 'b':
        if (strchr(arg, '=') == NULL) {
            sh_errf(cx, "curl: -b takes cookies as NAME=VALUE here; cookie "
                        "files are not read");
            return 2;
        }
        rq->hr_cookie = arg;
        break;
    case 'd':
        return curl_data(cx, o, arg, true, true, true);
    case CO_DATA_RAW:
        return curl_data(cx, o, arg, false, false, true);
    case 'f':
        o->co_fail = true;
        break;
    case 'g':
        break; // URLs are never globbed here
    case 'h':
        (void)sh_puts(cx, 1, curl_spec.gs_help);
        return -1;
    case 'i':
        o->co_include = true;
        break;
    case 'k':
        rq->hr_insecure = true;
        break;
    case 'm':
        if (!curl_seconds(arg, &rq->hr_timeout_ms)) {
            sh_errf(cx, "curl: option -m: expected a proper numerical "
                        "parameter");
            return 2;
        }
        break;
    case 'o':
        o->co_output = arg;
        break;
    case 's':
        o->co_silent = true;
        break;
    case 'u':
        rq->hr_user = arg;
        break;
    case 'v':
        rq->hr_verbose = true;
        break;
    case 'w':
        o->co_write = arg;
        break;
    case CO_PROTO:
    case CO_PROTO_REDIR: {
        unsigned *set = id == CO_PROTO ? &rq->hr_proto : &rq->hr_proto_redir;
        if (!curl_proto_list(arg, *set, set)) {
            sh_errf(cx, "curl: bad protocol list: %s", arg);
            return 2;
        }
        break;
    }
    default:
        break;
    }
    (void)it;
    return 0;
}

int
sh_cmd_curl(sh_ctx *cx, int argc, char **argv, const sh_opts *opts)
{
    (void)opts;
    sh_gopt_iter it;
    curl_opts_st o = {.co_rq = {.hr_agent = "curl/" LIBCURL_VERSION,
                                .hr_max_redirs = -1,
                                .hr_proto = CURL_PROTO_BOTH,
                                .hr_proto_redir = CURL_PROTO_BOTH}};
    box_buf_init(&o.co_data, CURL_DATA_MAX);
    sh_gopt_init(&it, cx, &curl_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while (st == 0 && (id = sh_gopt_next(&it, &arg, &st)) >= 0)
        st = curl_opt(cx, &it, &o, id, arg);
    if (st != 0 || id == SH_GOPT_EXIT) {
        st = st < 0 ? 0 : st; // -h
        goto out;
    }
    if (it.gi_nops == 0) {
        sh_errf(cx, "curl: no URL specified");
        st = 2;
        goto out;
    }
    if (o.co_json && (st = curl_json_fields(cx, &o.co_rq)) != 0)
        goto out;
    if (o.co_has_data) {
        o.co_rq.hr_body = o.co_data.b_data != NULL ? o.co_data.b_data : "";
        o.co_rq.hr_body_len = o.co_data.b_len;
    }
    // Each URL in turn, as curl does; -o names the first one's file.
    for (int i = 0; i < it.gi_nops && !sh_check_stop(cx); i++) {
        curl_result res;
        curl_fetch(cx, &o, it.gi_ops[i], &res);
        int one = curl_print(cx, &o, i == 0 ? o.co_output : NULL, &res);
        curl_result_clear(&res);
        if (one != 0)
            st = one;
        if (one == 125)
            break;
    }
out:
    curl_slist_free_all(o.co_rq.hr_headers);
    box_buf_reset(&o.co_data);
    sh_gopt_free(&it);
    return st;
}

/* The names curl knows for --proto. Only http and https can ever pass
 * the floor; the rest are known so that a list naming them is no error. */
static const char *const curl_proto_names[] = {
    "dict",   "file", "ftp",   "ftps",  "gopher", "gophers", "http",
    "https",  "imap", "imaps", "ldap",  "ldaps",  "mqtt",    "pop3",
    "pop3s",  "rtmp", "rtmpe", "rtmps", "rtmpt",  "rtmpte",  "rtmpts",
    "rtsp",   "scp",  "sftp",  "smb",   "smbs",   "smtp",    "smtps",
    "telnet", "tftp", "ws",    "wss",   NULL,
};

/* curl's syntax: comma-separated names, each after an optional + (add,
 * the default), - (remove) or = (only these); "all" names every one. An
 * unknown name or an empty list is a bad list. */
bool
curl_proto_list(const char *list, unsigned base, unsigned *out)
{
    unsigned set = base;
    const unsigned all = CURLPROTO_HTTP | CURLPROTO_HTTPS;
    const char *p = list;
    if (*p == '\0')
        return false;
    while (*p != '\0') {
        char op = '+';
        while (*p == '+' || *p == '-' || *p == '=')
            op = *p++;
        size_t n = strcspn(p, ",");
        unsigned bits = 0;
        bool known = n == 3 && strncasecmp(p, "all", 3) == 0;
        if (known)
            bits = all;
        for (size_t i = 0; !known && curl_proto_names[i] != NULL; i++)
            if (strlen(curl_proto_names[i]) == n &&
                strncasecmp(p, curl_proto_names[i], n) == 0) {
                known = true;
                bits = n == 4 && strncasecmp(p, "http", 4) == 0 ? CURLPROTO_HTTP
                       : n == 5 && strncasecmp(p, "https", 5) == 0
                           ? CURLPROTO_HTTPS
                           : 0;
            }
        if (!known)
            return false;
        set = op == '+' ? set | bits : op == '-' ? set & ~bits : bits;
        p += n;
        if (*p == ',')
            p++;
    }
    *out = set;
    return true;
}
