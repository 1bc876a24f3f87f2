/* SPDX-License-Identifier: Apache-2.0 */
/* wget URL...: GNU Wget 1.21's common flags and exit statuses over the
 * shell's one HTTP client (cmd_http.h: the SSRF floor, the gateway, the
 * run's CA, the 64 KiB body cap), saving through the kernel as curl -o
 * does. Redirect hops are the box's (§3.12: no body, method, cookies or
 * credentials), not Wget's, which would repost on a 307. */
#include <curl/curl.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_wget.h"
#include "sh_gopt.h"
#include "sh_internal.h"
#include "sh_kernel.h"

#define WGET_AGENT "Wget/1.21.3" // Debian 12's
#define WGET_REDIRS 20           // --max-redirect's default
#define WGET_BODY_MAX (1u << 20) // --post-file/--body-file's request body

/* Wget's exit statuses (wget(1), EXIT STATUS). */
enum {
    WGET_OK = 0,
    WGET_GENERIC = 1,
    WGET_PARSE = 2,
    WGET_FILE = 3,
    WGET_NETWORK = 4,
    WGET_SSL = 5,
    WGET_AUTH = 6,
    WGET_PROTOCOL = 7,
    WGET_SERVER = 8,
};

/* How wget words each outcome. A refusal (the floor's, the gateway's)
 * prints even with -q: the reason must be seen, as curl's does. The
 * floor's is a failure to reach the network (4); the gateway's is an
 * error response it sent (8). ORDER HTTP_OUTCOME */
static const http_say wget_say[HTTP_OUTCOMES] = {
    [HTTP_DONE] = {WGET_OK, false, NULL, NULL, NULL},
    [HTTP_FLOOR] = {WGET_NETWORK, true, "", NULL, NULL},
    [HTTP_REFUSED] = {WGET_SERVER, true, "",
                      "the egress gateway refused this request", NULL},
    [HTTP_PROTO] = {WGET_GENERIC, false, "unsupported scheme ", NULL, NULL},
    [HTTP_NO_NETWORK] = {WGET_NETWORK, false, "the box has no network", NULL,
                         NULL},
    [HTTP_NO_CA] = {WGET_SSL, false,
                    "the run's CA certificate was not readable when the "
                    "shell started",
                    NULL, NULL},
    [HTTP_NO_GATEWAY] = {WGET_NETWORK, false,
                         "cannot reach the egress gateway: ", NULL, NULL},
    [HTTP_NO_TUNNEL] = {WGET_NETWORK, false, "", NULL, NULL},
    [HTTP_TIMEOUT] = {WGET_NETWORK, false, "read error (Connection timed out)",
                      NULL, NULL},
    [HTTP_TRANSPORT] = {WGET_NETWORK, false, "", NULL, NULL},
    [HTTP_TLS] = {WGET_SSL, false, "", NULL, NULL},
    [HTTP_TOO_BIG] = {WGET_NETWORK, false, "response body too large", NULL,
                      NULL},
    [HTTP_REDIRS] = {WGET_SERVER, false, NULL, NULL, NULL}, // its own line
    [HTTP_STOPPED] = {WGET_GENERIC, false, NULL, NULL, NULL},
    [HTTP_NOMEM] = {WGET_GENERIC, true, "out of memory", NULL, NULL},
};

enum {
    WO_NO_VERBOSE = SH_GOPT_LONG_ONLY,
    WO_HEADER,
    WO_POST_DATA,
    WO_POST_FILE,
    WO_METHOD,
    WO_BODY_DATA,
    WO_BODY_FILE,
    WO_USER,
    WO_PASSWORD,
    WO_MAX_REDIRECT,
    WO_NO_CHECK,
    WO_NO_CLOBBER,
    WO_SPIDER,
};

static const sh_gopt wget_opts[] = {
    {'O', "output-document", SH_GARG_REQ},
    {'P', "directory-prefix", SH_GARG_REQ},
    {'S', "server-response", SH_GARG_NONE},
    {'T', "timeout", SH_GARG_REQ},
    {'U', "user-agent", SH_GARG_REQ},
    {'V', NULL, SH_GARG_NONE},
    {'c', "continue", SH_GARG_NONE},
    {'h', NULL, SH_GARG_NONE},
    {'n', NULL, SH_GARG_REQ}, // -nv, -nc: Wget's -n takes letters
    {'q', "quiet", SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {WO_NO_VERBOSE, "no-verbose", SH_GARG_NONE},
    {WO_HEADER, "header", SH_GARG_REQ},
    {WO_POST_DATA, "post-data", SH_GARG_REQ},
    {WO_POST_FILE, "post-file", SH_GARG_REQ},
    {WO_METHOD, "method", SH_GARG_REQ},
    {WO_BODY_DATA, "body-data", SH_GARG_REQ},
    {WO_BODY_FILE, "body-file", SH_GARG_REQ},
    {WO_USER, "user", SH_GARG_REQ},
    {WO_USER, "http-user", SH_GARG_REQ},
    {WO_PASSWORD, "password", SH_GARG_REQ},
    {WO_PASSWORD, "http-password", SH_GARG_REQ},
    {WO_MAX_REDIRECT, "max-redirect", SH_GARG_REQ},
    {WO_NO_CHECK, "no-check-certificate", SH_GARG_NONE},
    {WO_NO_CLOBBER, "no-clobber", SH_GARG_NONE},
    {WO_SPIDER, "spider", SH_GARG_NONE},
    {0},
};

#define WGET_USAGE "Usage: wget [OPTION]... [URL]...\n"

static const sh_gopt_spec wget_spec = {
    .gs_cmd = "wget",
    .gs_opts = wget_opts,
    .gs_fail = WGET_PARSE,
    .gs_usage = WGET_USAGE,
    .gs_try = "Try `wget --help' for more options.\n",
    .gs_help =
        "GNU Wget 1.21.3 (the box's shell), a non-interactive network "
        "retriever.\n" WGET_USAGE "\n"
        "Only http:// and https:// URLs, through the box's egress gateway;\n"
        "a response body is at most 64 KiB.\n"
        "\n"
        "Startup:\n"
        "  -V,  --version                   display the version of Wget and "
        "exit\n"
        "  -h,  --help                      print this help\n"
        "\n"
        "Logging and input file:\n"
        "  -q,  --quiet                     quiet (no output)\n"
        "  -v,  --verbose                   be verbose (this is the default)\n"
        "  -nv, --no-verbose                turn off verboseness, without "
        "being quiet\n"
        "\n"
        "Download:\n"
        "  -O,  --output-document=FILE      write documents to FILE ('-': "
        "stdout)\n"
        "  -nc, --no-clobber                skip downloads that would "
        "download to\n"
        "                                     existing files\n"
        "  -c,  --continue                  (refused: every transfer is "
        "whole)\n"
        "  -S,  --server-response           print server response\n"
        "       --spider                    don't download anything\n"
        "  -T,  --timeout=SECONDS           set the transfer timeout to "
        "SECONDS\n"
        "       --user=USER                 set http user to USER\n"
        "       --password=PASS             set http password to PASS\n"
        "\n"
        "Directories:\n"
        "  -P,  --directory-prefix=PREFIX   save files to PREFIX/..\n"
        "\n"
        "HTTP options:\n"
        "       --header=STRING             insert STRING among the headers\n"
        "       --max-redirect              maximum redirections allowed per "
        "page\n"
        "  -U,  --user-agent=AGENT          identify as AGENT instead of "
        "Wget/VERSION\n"
        "       --post-data=STRING          use the POST method; send STRING "
        "as the data\n"
        "       --post-file=FILE            use the POST method; send "
        "contents of FILE\n"
        "       --method=HTTPMethod         use method \"HTTPMethod\" in the "
        "request\n"
        "       --body-data=STRING          send STRING as data. --method MUST "
        "be set\n"
        "       --body-file=FILE            send contents of FILE. --method "
        "MUST be set\n"
        "\n"
        "HTTPS (SSL/TLS) options:\n"
        "       --no-check-certificate      don't validate the server's "
        "certificate\n"
        "                                     (the box's gateway checks the "
        "origin's)\n",
};

/* The options as read, with what they own. */
typedef struct wget_opts_st {
    wget_run wo_run;
    http_req wo_rq;
    const char *wo_user, *wo_password;
    const char *wo_post_data, *wo_post_file, *wo_body_data, *wo_body_file;
    char *wo_method;  // uppercased, owned
    char *wo_userpwd; // "user:password", owned
    box_buf wo_body;  // a --post-file/--body-file's bytes
    bool wo_continue;
} wget_opts_st;

/* -T SECONDS (a decimal, as Wget reads it): false when it is none. */
static bool
wget_seconds(const char *arg, long *ms)
{
    char *end;
    double d = strtod(arg, &end);
    if (end == arg || *end != '\0' || !(d >= 0) || d > 86400.0 * 365)
        return false;
    *ms = (long)ceil(d * 1000.0);
    return true;
}

/* A usage error Wget reports as "wget: --OPT: WHAT ‘ARG’." (status 2). */
static int
wget_bad(sh_ctx *cx, const char *opt, const char *what, const char *arg)
{
    char *q = sh_gquote(arg);
    sh_errf(cx, "wget: --%s: %s %s.", opt, what, q != NULL ? q : arg);
    box_free(q);
    return WGET_PARSE;
}

/* --header: "Name: value" (a name, then ':'; one line); "" clears the
 * ones before, as Wget does. */
static int
wget_header(sh_ctx *cx, http_req *rq, const char *arg)
{
    if (arg[0] == '\0') {
        curl_slist_free_all(rq->hr_headers);
        rq->hr_headers = NULL;
        return 0;
    }
    const char *p = arg;
    while (*p != '\0' && *p != ':' && !isspace((unsigned char)*p))
        p++;
    if (*p != ':' || p == arg || strchr(arg, '\n') != NULL)
        return wget_bad(cx, "header", "Invalid header", arg);
    struct curl_slist *l = curl_slist_append(rq->hr_headers, arg);
    if (l == NULL)
        return sh_cmd_err(cx, "wget", WGET_GENERIC, "out of memory");
    rq->hr_headers = l;
    return 0;
}

/* Reads one option into o. Returns 0, -1 after --help (status 0), or the
 * status after a message. */
static int
wget_opt(sh_ctx *cx, sh_gopt_iter *it, wget_opts_st *o, int id, const char *arg)
{
    wget_run *wr = &o->wo_run;
    http_req *rq = &o->wo_rq;
    char *end;
    switch (id) {
    case 'O':
        wr->wr_output = arg;
        break;
    case 'P':
        wr->wr_prefix = arg;
        break;
    case 'S':
        wr->wr_server_response = true;
        break;
    case 'T':
        if (!wget_seconds(arg, &rq->hr_timeout_ms))
            return wget_bad(cx, "timeout", "Invalid time period", arg);
        break;
    case 'U':
        rq->hr_agent = arg;
        break;
    case 'V':
        return sh_gopt_version(it) == 0 ? -1 : WGET_GENERIC;
    case 'c':
        o->wo_continue = true;
        break;
    case 'h':
        (void)sh_puts(cx, 1, wget_spec.gs_help);
        return -1;
    case 'n':
        // Wget's letters after -n: v (no-verbose), c (no-clobber); H and
        // d only shape the directories of a recursive run, never made.
        for (const char *p = arg; *p != '\0'; p++) {
            if (*p == 'v')
                wr->wr_verb = WGET_TERSE;
            else if (*p == 'c')
                wr->wr_no_clobber = true;
            else if (*p != 'H' && *p != 'd') {
                sh_errf(cx, "wget: illegal option -- `-n%c'", *p);
                return sh_gopt_try(it);
            }
        }
        break;
    case 'q':
        wr->wr_verb = WGET_QUIET;
        break;
    case 'v':
        wr->wr_verb = WGET_VERBOSE;
        break;
    case WO_NO_VERBOSE:
        wr->wr_verb = WGET_TERSE;
        break;
    case WO_HEADER:
        return wget_header(cx, rq, arg);
    case WO_POST_DATA:
        o->wo_post_data = arg;
        break;
    case WO_POST_FILE:
        o->wo_post_file = arg;
        break;
    case WO_METHOD:
        box_free(o->wo_method);
        if ((o->wo_method = box_strdup(arg)) == NULL)
            return sh_cmd_err(cx, "wget", WGET_GENERIC, "out of memory");
        for (char *p = o->wo_method; *p != '\0'; p++)
            *p = (char)toupper((unsigned char)*p);
        break;
    case WO_BODY_DATA:
        o->wo_body_data = arg;
        break;
    case WO_BODY_FILE:
        o->wo_body_file = arg;
        break;
    case WO_USER:
        o->wo_user = arg;
        break;
    case WO_PASSWORD:
        o->wo_password = arg;
        break;
    case WO_MAX_REDIRECT: {
        long n = strtol(arg, &end, 10);
        if (end == arg || *end != '\0' || n < 0 || n > 1000000)
            return wget_bad(cx, "max-redirect", "Invalid number", arg);
        rq->hr_max_redirs = (int)n;
        break;
    }
    case WO_NO_CHECK:
        // curl -k's switch: only the gateway's certificate goes
        // unchecked; the gateway checks the origin's (§6) regardless.
        rq->hr_insecure = true;
        break;
    case WO_NO_CLOBBER:
        wr->wr_no_clobber = true;
        break;
    case WO_SPIDER:
        wr->wr_spider = true;
        break;
    default:
        break;
    }
    return 0;
}

/* A --post-file/--body-file read through the kernel: 0, or the status
 * after the message. */
static int
wget_body_file(sh_ctx *cx, wget_opts_st *o, const char *path)
{
    int st = 0;
    sh_input *in = sh_input_open(cx, "wget", path, &st);
    if (in == NULL)
        return st == 125 ? 125 : WGET_FILE;
    char buf[4096];
    ssize_t n;
    while ((n = sh_input_read(in, buf, sizeof buf)) > 0) {
        if (box_buf_append(&o->wo_body, buf, (size_t)n) != BOX_OK) {
            sh_input_close(in);
            return sh_cmd_err(cx, "wget", WGET_GENERIC,
                              "%s: the request body is over %u bytes", path,
                              WGET_BODY_MAX);
        }
    }
    sh_input_close(in);
    return n < 0 ? WGET_FILE : 0;
}

/* The request's method, body and credentials from the options, with
 * Wget's checks. Returns 0 or the status after the message. */
static int
wget_request(sh_ctx *cx, wget_opts_st *o)
{
    http_req *rq = &o->wo_rq;
    const char *data = NULL, *file = NULL;
    if (o->wo_continue) {
        sh_errf(cx, "wget: --continue is not supported here: every transfer "
                    "is fetched whole");
        return WGET_PARSE;
    }
    if (o->wo_post_data != NULL && o->wo_post_file != NULL) {
        (void)sh_puts(cx, 2,
                      "You cannot specify both --post-data and "
                      "--post-file.\n" WGET_USAGE);
        return WGET_GENERIC;
    }
    if (o->wo_body_data != NULL && o->wo_body_file != NULL) {
        (void)sh_puts(cx, 2,
                      "You cannot specify both --body-data and "
                      "--body-file.\n" WGET_USAGE);
        return WGET_GENERIC;
    }
    if ((o->wo_post_data != NULL || o->wo_post_file != NULL) &&
        (o->wo_body_data != NULL || o->wo_body_file != NULL)) {
        (void)sh_puts(cx, 2,
                      "You cannot specify both --post-data/--post-file "
                      "and --body-data/--body-file.\n" WGET_USAGE);
        return WGET_GENERIC;
    }
    if ((o->wo_body_data != NULL || o->wo_body_file != NULL) &&
        o->wo_method == NULL) {
        (void)sh_puts(cx, 2,
                      "You must specify a method through "
                      "--method=HTTPMethod to use with --body-data "
                      "or --body-file.\n" WGET_USAGE);
        return WGET_GENERIC;
    }
    if (o->wo_post_data != NULL || o->wo_post_file != NULL) {
        // --post-*: POST whatever --method said, as Wget does.
        box_free(o->wo_method);
        if ((o->wo_method = box_strdup("POST")) == NULL)
            return sh_cmd_err(cx, "wget", WGET_GENERIC, "out of memory");
        data = o->wo_post_data;
        file = o->wo_post_file;
    } else {
        data = o->wo_body_data;
        file = o->wo_body_file;
    }
    rq->hr_method = o->wo_method;
    rq->hr_nobody = o->wo_run.wr_spider ||
                    (o->wo_method != NULL && strcmp(o->wo_method, "HEAD") == 0);
    if (data != NULL) {
        rq->hr_body = data;
        rq->hr_body_len = strlen(data);
    } else if (file != NULL) {
        int st = wget_body_file(cx, o, file);
        if (st != 0)
            return st;
        rq->hr_body = o->wo_body.b_data != NULL ? o->wo_body.b_data : "";
        rq->hr_body_len = o->wo_body.b_len;
    }
    if (o->wo_user != NULL || o->wo_password != NULL) {
        o->wo_userpwd =
            box_asprintf("%s:%s", o->wo_user != NULL ? o->wo_user : "",
                         o->wo_password != NULL ? o->wo_password : "");
        if (o->wo_userpwd == NULL)
            return sh_cmd_err(cx, "wget", WGET_GENERIC, "out of memory");
        rq->hr_user = o->wo_userpwd;
    }
    return 0;
}

/* What Wget makes of a response: the document saved, or its error.
 * Returns the status. */
static int
wget_answer(wget_run *wr, const char *url, const http_result *res)
{
    long code = res->hs_code;
    char ts[32];
    if (code >= 200 && code < 300) {
        wget_log_length(wr, res);
        if (wr->wr_spider) {
            wget_logf(wr, WGET_VERBOSE, "Remote file exists.\n\n");
            return WGET_OK;
        }
        return wget_save(wr, url, res);
    }
    if (code == 401) {
        wget_logf(wr, WGET_TERSE,
                  "Username/Password Authentication "
                  "Failed.\n");
        return WGET_AUTH;
    }
    if (wr->wr_spider) {
        wget_logf(wr, WGET_VERBOSE,
                  "Remote file does not exist -- broken "
                  "link!!!\n\n");
        return WGET_SERVER;
    }
    size_t rn;
    const char *reason = http_reason(res->hs_head, res->hs_head_len, &rn);
    wget_stamp(ts);
    if (wr->wr_verb == WGET_TERSE)
        wget_logf(wr, WGET_TERSE, "%s:\n", res->hs_url);
    wget_logf(wr, WGET_TERSE, "%s ERROR %ld: %.*s.\n", ts, code, (int)rn,
              reason);
    wget_logf(wr, WGET_VERBOSE, "\n");
    return WGET_SERVER;
}

/* One URL: the transfer, then its outcome as Wget says it. */
static int
wget_one(wget_opts_st *o, const char *url)
{
    wget_run *wr = &o->wo_run;
    sh_ctx *cx = wr->wr_cx;
    http_result res;
    int st;
    if (!wr->wr_spider && wr->wr_output == NULL && wr->wr_no_clobber &&
        wget_clobber_skip(wr, url))
        return WGET_OK;
    wr->wr_t0 = http_now_ms();
    http_run(cx, url, &o->wo_rq, &res);
    const http_say *say = &wget_say[res.hs_outcome];
    st = say->hy_status;
    if (res.hs_outcome == HTTP_DONE) {
        st = wget_answer(wr, url, &res);
    } else if (res.hs_outcome == HTTP_REDIRS) {
        wget_logf(wr, WGET_TERSE, "%d redirections exceeded.\n",
                  o->wo_rq.hr_max_redirs);
    } else if (say->hy_always || wr->wr_verb > WGET_QUIET) {
        char *msg = http_outcome_text(wget_say, &res);
        if (msg != NULL)
            sh_errf(cx, "wget: %s", msg);
        box_free(msg);
    }
    http_result_clear(&res);
    return st;
}

/* Wget's rule for several URLs: 0 and 1 aside, the lowest status wins;
 * a fault (125) always does. */
static int
wget_fold(int all, int one)
{
    if (one == 0 || all == 125)
        return all;
    if (all == 0 || all == WGET_GENERIC || one == 125)
        return one;
    return one != WGET_GENERIC && one < all ? one : all;
}

/* "FINISHED" and its totals, after more than one URL. */
static void
wget_summary(wget_run *wr, long t0)
{
    char ts[32], size[WGET_SIZE_TEXT];
    double secs = (double)(http_now_ms() - t0) / 1000.0;
    wget_stamp(ts);
    wget_size_text((long long)wr->wr_bytes, size);
    wget_logf(wr, WGET_TERSE,
              "FINISHED --%s--\nTotal wall clock time: %.1fs\nDownloaded: %u "
              "files, %s in %.1fs\n",
              ts, secs, wr->wr_saved, size, secs);
}

int
sh_cmd_wget(sh_ctx *cx, int argc, char **argv, const sh_opts *opts)
{
    (void)opts;
    sh_gopt_iter it;
    wget_opts_st o = {
        .wo_run = {.wr_cx = cx, .wr_verb = WGET_VERBOSE},
        .wo_rq = {.hr_agent = WGET_AGENT,
                  .hr_max_redirs = WGET_REDIRS,
                  .hr_proto = CURLPROTO_HTTP | CURLPROTO_HTTPS,
                  .hr_proto_redir = CURLPROTO_HTTP | CURLPROTO_HTTPS,
                  .hr_on_hop = wget_log_hop},
    };
    wget_run *wr = &o.wo_run;
    o.wo_rq.hr_hop_arg = wr;
    box_buf_init(&o.wo_body, WGET_BODY_MAX);
    sh_gopt_init(&it, cx, &wget_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    long t0 = http_now_ms();
    while (st == 0 && (id = sh_gopt_next(&it, &arg, &st)) >= 0)
        st = wget_opt(cx, &it, &o, id, arg);
    if (st != 0 || id == SH_GOPT_EXIT) {
        st = st < 0 ? 0 : st; // --help, --version
        goto out;
    }
    if (it.gi_nops == 0) {
        sh_errf(cx, "wget: missing URL");
        (void)sh_gopt_try(&it);
        st = WGET_GENERIC;
        goto out;
    }
    if ((st = wget_request(cx, &o)) != 0)
        goto out;
    if (wr->wr_output != NULL && strcmp(wr->wr_output, "-") != 0 &&
        wr->wr_no_clobber) {
        sh_kernel_stat ks;
        sh_kernel_result r = {0};
        bool there = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd,
                                         wr->wr_output, &ks, &r) == 0;
        sh_kernel_result_clear(&r);
        if (there) {
            wget_logf(wr, WGET_VERBOSE,
                      "File \xe2\x80\x98%s\xe2\x80\x99 already there; not "
                      "retrieving.\n",
                      wr->wr_output);
            st = WGET_GENERIC;
            goto out;
        }
    }
    if (wr->wr_spider)
        wget_logf(wr, WGET_VERBOSE,
                  "Spider mode enabled. Check if remote file exists.\n");
    for (int i = 0; i < it.gi_nops && !sh_check_stop(cx); i++) {
        char *url = wget_url(it.gi_ops[i]);
        int one = url != NULL
                      ? wget_one(&o, url)
                      : sh_cmd_err(cx, "wget", WGET_GENERIC, "out of memory");
        box_free(url);
        st = wget_fold(st, one);
        if (one == 125)
            break;
    }
    if (it.gi_nops > 1 && !wr->wr_spider)
        wget_summary(wr, t0);
out:
    sh_stream_unref(wr->wr_out);
    curl_slist_free_all(o.wo_rq.hr_headers);
    box_free(o.wo_method);
    box_free(o.wo_userpwd);
    box_buf_reset(&o.wo_body);
    sh_gopt_free(&it);
    return st;
}
