/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench gateway`: requests per second and latency through
 * box-gateway with decisions on, next to Squid, tinyproxy and direct
 * access, plain HTTP and CONNECT + TLS, all on loopback in one run. */
#include "box_bench.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_bench_box.h"
#include "box_bench_load.h"
#include "box_bench_origin.h"
#include "box_bench_proxies.h"
#include "box_cmd.h"
#include "box_control.h"
#include "box_proctab.h"
#include "box_svc.h"
#include "gw_ca.h"

static const char gwb_usage[] =
    "usage: box bench gateway [--clients N] [--seconds S]\n"
    "\n"
    "Requests per second and latency percentiles through box-gateway with\n"
    "decisions on (box-pdp on a policy permitting 127.0.0.1, the gateway's\n"
    "permit cache on and warm), next to Squid and tinyproxy (when installed)\n"
    "and direct access, to an origin in this process answering GET /x with\n"
    "64 bytes, all on loopback in a temporary directory:\n"
    "  plain HTTP   keep-alive connections; absolute-form GET through a\n"
    "               proxy, origin-form direct\n"
    "  CONNECT+TLS  a new connection per request: CONNECT, a full TLS\n"
    "               handshake, one GET (box-gateway serves one request per\n"
    "               tunnel, so every peer is measured so; direct: a new TLS\n"
    "               connection per request)\n"
    "box-gateway is reached on its TCP listener with its proxy token.\n"
    "Exit status 0 when the direct and box-gateway columns ran without a\n"
    "failed request (a peer's trouble is shown, never fatal); 1 otherwise.\n"
    "\n"
    "  --clients N  client threads, each one connection at a time\n"
    "               (default 32)\n"
    "  --seconds S  measured time per column, after 1 s of warm-up\n"
    "               (default 3)\n";

#define GWB_CLIENTS_DEFAULT 32
#define GWB_SECONDS_DEFAULT 3.0
#define GWB_WARMUP 1.0
#define GWB_ORIGIN_THREADS 2
#define GWB_TOKEN_MAX 256

/* Permit what the bench asks, and only on 127.0.0.1. */
static const char gwb_policy[] =
    "@id(\"bench-connect\") permit (principal, action == "
    "Box::Action::\"net:connect\", resource) when { context.input.host == "
    "\"127.0.0.1\" };\n"
    "@id(\"bench-request\") permit (principal, action == "
    "Box::Action::\"http:request\", resource) when { context.input.host == "
    "\"127.0.0.1\" };\n";

/* ORDER GWB_MODE: the table's two halves. */
enum { GWB_PLAIN, GWB_TLS, GWB_NMODES };
static const char *const gwb_mode_title[GWB_NMODES] = {
    [GWB_PLAIN] = "plain HTTP · keep-alive connections",
    [GWB_TLS] = "CONNECT + TLS · a new connection per request (CONNECT, "
                "full handshake, one GET;\n  box-gateway serves one "
                "request per tunnel, so every peer is measured so)",
};

/* ORDER GWB_ROW: the rows of each half; the peers follow bp_id. */
enum { GWB_DIRECT, GWB_GATEWAY, GWB_SQUID, GWB_TINYPROXY, GWB_NROWS };
static const char *const gwb_row_name[GWB_NROWS] = {
    [GWB_DIRECT] = "direct",
    [GWB_GATEWAY] = "box-gateway",
    [GWB_SQUID] = "squid",
    [GWB_TINYPROXY] = "tinyproxy",
};
static const char *const gwb_row_short[GWB_NROWS] = {
    [GWB_DIRECT] = "direct",
    [GWB_GATEWAY] = "gateway",
    [GWB_SQUID] = "squid",
    [GWB_TINYPROXY] = "tinyproxy",
};

/* One row's outcome. */
typedef struct gwb_cell {
    bool gc_ran;    // the peer was there and the column was run
    bool gc_ok;     // bl_run counted answers
    bool gc_cached; // fewer requests reached the origin than were answered
    bl_result gc_r;
} gwb_cell;

/*
 * The bench's world: the temporary directory (short, for the 107-byte
 * socket paths), the box directory b/ inside it laid out as box run lays
 * it out, the services (by the process table's rows), the origins, the
 * peers, and the client contexts trusting each CA.
 */
typedef struct gwb {
    char g_tmp[40]; // /tmp/box-bench-gw-XXXXXX, "" before mkdtemp
    char g_dir[64];
    char g_policy[96];
    char g_origin_ca[96];
    char g_pdp_out[96], g_gw_out[96];
    char g_pdp_url[128], g_ctl_url[128], g_gw_ca[128], g_token[128];
    char g_auth[GWB_TOKEN_MAX * 2]; // Basic base64(strands-box:TOKEN)
    pid_t g_pdp, g_gw;
    unsigned g_gw_port;
    bo_origin *g_plain, *g_tls;
    SSL_CTX *g_trust_origin, *g_trust_gw;
    bp_proxy g_peer[BP_COUNT];
    bool g_peer_up[BP_COUNT];
    gwb_cell g_cell[GWB_NMODES][GWB_NROWS];
} gwb;

/* ------------------------------------------------------------------ */
/* Set-up                                                              */
/* ------------------------------------------------------------------ */

static bool
gwb_value(const box_proctab_box *b, box_proctab_pv v, char *out, size_t n)
{
    char *val = NULL;
    if (box_proctab_value(v, b, &val) != BOX_OK || val == NULL)
        return bb_fail("out of memory");
    int k = snprintf(out, n, "%s", val);
    box_free(val);
    return (k > 0 && (size_t)k < n) || bb_fail("a path is too long");
}

/* The temporary directory, the box directory's parts the services write
 * in, the policy, and the paths the process table gives them. */
static bool
gwb_layout(gwb *g, box_proctab_box *b)
{
    static const char *const dirs[] = {
        "",     "/private", "/private/telemetry", "/private/history",
        "/run", "/trust"};
    snprintf(g->g_tmp, sizeof g->g_tmp, "/tmp/box-bench-gw-XXXXXX");
    if (mkdtemp(g->g_tmp) == NULL) {
        g->g_tmp[0] = '\0';
        return bb_fail("mkdtemp: %s", strerror(errno));
    }
    // A peer that drops root (squid) must reach its own subdirectory.
    if (chmod(g->g_tmp, 0711) != 0)
        return bb_fail("chmod %s: %s", g->g_tmp, strerror(errno));
    snprintf(g->g_dir, sizeof g->g_dir, "%s/b", g->g_tmp);
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s%s", g->g_dir, dirs[i]);
        if (mkdir(p, 0700) != 0)
            return bb_fail("mkdir %s: %s", p, strerror(errno));
    }
    snprintf(g->g_policy, sizeof g->g_policy, "%s/private/policy.dw", g->g_dir);
    snprintf(g->g_origin_ca, sizeof g->g_origin_ca, "%s/origin-ca.pem",
             g->g_tmp);
    snprintf(g->g_pdp_out, sizeof g->g_pdp_out, "%s/pdp.out", g->g_tmp);
    snprintf(g->g_gw_out, sizeof g->g_gw_out, "%s/gateway.out", g->g_tmp);
    b->pb_box_dir = g->g_dir;
    b->pb_policy = g->g_policy;
    return bb_write_file(g->g_policy, gwb_policy, sizeof gwb_policy - 1,
                         0600) &&
           gwb_value(b, BOX_PV_PDP_URL, g->g_pdp_url, sizeof g->g_pdp_url) &&
           gwb_value(b, BOX_PV_GW_CONTROL, g->g_ctl_url, sizeof g->g_ctl_url) &&
           gwb_value(b, BOX_PV_TRUST_CERT, g->g_gw_ca, sizeof g->g_gw_ca) &&
           gwb_value(b, BOX_PV_GW_TOKEN, g->g_token, sizeof g->g_token);
}

/* A client context trusting the CA certificates in path only. */
static SSL_CTX *
gwb_trust(const char *path)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL || SSL_CTX_load_verify_locations(ctx, path, NULL) != 1) {
        SSL_CTX_free(ctx);
        ERR_clear_error();
        bb_fail("cannot make a TLS client trusting %s", path);
        return NULL;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    return ctx;
}

/* The origins: a CA of their own (standing for the public roots the
 * gateway would check upstream against), a leaf for 127.0.0.1 from it. */
static bool
gwb_origins(gwb *g)
{
    gw_ca *ca = NULL;
    SSL_CTX *tls = NULL;
    char *err = NULL, why[200];
    bool ok = false;
    if (gw_ca_new(&ca, &err) != BOX_OK ||
        gw_ca_write_cert(ca, g->g_origin_ca, &err) != BOX_OK ||
        gw_ca_server_ctx(ca, "127.0.0.1", &tls, &err) != BOX_OK) {
        bb_fail("the origin's CA: %s", err != NULL ? err : "out of memory");
        goto out;
    }
    if (!bo_start(NULL, GWB_ORIGIN_THREADS, &g->g_plain, why, sizeof why) ||
        !bo_start(tls, GWB_ORIGIN_THREADS, &g->g_tls, why, sizeof why)) {
        bb_fail("%s", why);
        goto out;
    }
    ok = (g->g_trust_origin = gwb_trust(g->g_origin_ca)) != NULL;
out:
    SSL_CTX_free(tls);
    gw_ca_free(ca);
    box_free(err);
    return ok;
}

/* box-pdp, once it answers its health request. */
static bool
gwb_pdp(gwb *g, const box_proctab_box *b)
{
    if (!bb_start(BOX_PROC_PDP, b, NULL, g->g_pdp_out, &g->g_pdp))
        return false;
    Box__HealthResponse *h = NULL;
    for (uint64_t end = box_svc_now_ms() + BB_START_MS;
         h == NULL && box_svc_now_ms() < end && bb_alive(&g->g_pdp);)
        if (box_pdp_health(g->g_pdp_url, 200, &h) != BOX_OK)
            usleep(20000);
    if (h == NULL) {
        bb_fail("box-pdp %s at %s",
                g->g_pdp > 0 ? "did not answer" : "exited before answering",
                g->g_pdp_url);
        bb_tail(g->g_pdp_out);
        return false;
    }
    box__health_response__free_unpacked(h, NULL);
    return true;
}

/* "Basic base64(strands-box:TOKEN)" from the gateway's token file. */
static bool
gwb_auth(gwb *g)
{
    char tok[GWB_TOKEN_MAX], cred[GWB_TOKEN_MAX + 16];
    FILE *f = fopen(g->g_token, "r");
    size_t n = f != NULL ? fread(tok, 1, sizeof tok - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    tok[n] = '\0';
    tok[strcspn(tok, "\r\n")] = '\0';
    if (tok[0] == '\0')
        return bb_fail("no proxy token in %s", g->g_token);
    int k = snprintf(cred, sizeof cred, "strands-box:%s", tok);
    memcpy(g->g_auth, "Basic ", 6);
    EVP_EncodeBlock((unsigned char *)g->g_auth + 6, (const unsigned char *)cred,
                    k);
    return true;
}

/* box-gateway as box run starts it, plus --upstream-ca naming the
 * origin's CA; its TCP port from its health answer; its token. */
static bool
gwb_gateway(gwb *g, const box_proctab_box *b)
{
    const char *extra[] = {"--upstream-ca", g->g_origin_ca, NULL};
    if (!bb_start(BOX_PROC_GATEWAY, b, extra, g->g_gw_out, &g->g_gw))
        return false;
    box_health_probe *p = NULL;
    Box__HealthResponse *h = NULL;
    if (box_health_probe_open(g->g_ctl_url, false, 1000, &p) != BOX_OK)
        return bb_fail("out of memory");
    for (uint64_t end = box_svc_now_ms() + BB_START_MS;
         h == NULL && box_svc_now_ms() < end && bb_alive(&g->g_gw);)
        if (box_health_probe_ask(p, &h) != BOX_OK)
            usleep(20000);
    box_health_probe_close(p);
    if (h != NULL && strncmp(h->listen_address, "127.0.0.1:", 10) == 0)
        g->g_gw_port = (unsigned)strtoul(h->listen_address + 10, NULL, 10);
    if (h != NULL)
        box__health_response__free_unpacked(h, NULL);
    if (g->g_gw_port == 0) {
        bb_fail("box-gateway %s at %s",
                g->g_gw > 0 ? "did not report a TCP listener"
                            : "exited before answering",
                g->g_ctl_url);
        bb_tail(g->g_gw_out);
        return false;
    }
    return gwb_auth(g) && (g->g_trust_gw = gwb_trust(g->g_gw_ca)) != NULL;
}

static bool
gwb_open(gwb *g, const char *bindir)
{
    box_proctab_box b = {.pb_bindir = bindir};
    if (!gwb_layout(g, &b) || !gwb_origins(g) || !gwb_pdp(g, &b) ||
        !gwb_gateway(g, &b))
        return false;
    for (int i = 0; i < BP_COUNT; i++)
        g->g_peer_up[i] = bp_start((bp_id)i, g->g_tmp, &g->g_peer[i]);
    return true;
}

/* Stops everything started; false when a box service did not exit 0. */
static bool
gwb_close(gwb *g)
{
    for (int i = 0; i < BP_COUNT; i++)
        if (g->g_peer_up[i])
            bp_stop(&g->g_peer[i]);
    bool ok = bb_stop(&g->g_gw, "box-gateway");
    if (!ok)
        bb_tail(g->g_gw_out);
    if (!bb_stop(&g->g_pdp, "box-pdp")) {
        bb_tail(g->g_pdp_out);
        ok = false;
    }
    bo_stop(g->g_plain);
    bo_stop(g->g_tls);
    SSL_CTX_free(g->g_trust_origin);
    SSL_CTX_free(g->g_trust_gw);
    if (g->g_tmp[0] != '\0')
        bb_rmtree(g->g_tmp);
    return ok;
}

/* ------------------------------------------------------------------ */
/* Columns                                                             */
/* ------------------------------------------------------------------ */

/* Where row's clients go in mode, or false when the row has no peer. */
static bool
gwb_target(const gwb *g, int mode, int row, bl_target *t)
{
    const bo_origin *o = mode == GWB_TLS ? g->g_tls : g->g_plain;
    *t = (bl_target){.bt_origin = bo_port(o),
                     .bt_proxy = row != GWB_DIRECT,
                     .bt_body = BO_BODY_LEN};
    switch (row) {
    case GWB_DIRECT:
        t->bt_port = bo_port(o);
        t->bt_tls = mode == GWB_TLS ? g->g_trust_origin : NULL;
        return true;
    case GWB_GATEWAY:
        t->bt_port = g->g_gw_port;
        t->bt_auth = g->g_auth;
        t->bt_tls = mode == GWB_TLS ? g->g_trust_gw : NULL;
        return true;
    default: { // the peers just tunnel: the origin's own certificate
        int i = row - GWB_SQUID;
        t->bt_port = g->g_peer[i].pp_port;
        t->bt_tls = mode == GWB_TLS ? g->g_trust_origin : NULL;
        return g->g_peer_up[i];
    }
    }
}

static void
gwb_column(gwb *g, int mode, int row, const bl_opts *o)
{
    gwb_cell *c = &g->g_cell[mode][row];
    bl_target t;
    if (!gwb_target(g, mode, row, &t))
        return;
    const bo_origin *origin = mode == GWB_TLS ? g->g_tls : g->g_plain;
    fprintf(stderr, "box bench gateway: %s, %s ...\n",
            mode == GWB_TLS ? "CONNECT+TLS" : "plain HTTP", gwb_row_name[row]);
    uint64_t before = bo_requests(origin);
    c->gc_ran = true;
    c->gc_ok = bl_run(&t, o, &c->gc_r);
    c->gc_cached = bo_requests(origin) - before < c->gc_r.lr_ok;
}

/* ------------------------------------------------------------------ */
/* The table                                                           */
/* ------------------------------------------------------------------ */

/* 12345678 as "12,345,678". */
static const char *
gwb_grouped(double v, char *buf, size_t n)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", v);
    size_t len = strlen(digits), k = 0;
    for (size_t i = 0; i < len && k + 2 < n; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[k++] = ',';
        buf[k++] = digits[i];
    }
    buf[k] = '\0';
    return buf;
}

static void
gwb_print_row(const gwb *g, int mode, int row)
{
    const gwb_cell *c = &g->g_cell[mode][row];
    const gwb_cell *sq = &g->g_cell[mode][GWB_SQUID];
    char rps[32], p50[32], p90[32], p99[32], ratio[64] = "";
    if (!c->gc_ok) {
        printf("  %-12s failed: %s\n", gwb_row_name[row], c->gc_r.lr_why);
        return;
    }
    if (row != GWB_SQUID && sq->gc_ok)
        snprintf(ratio, sizeof ratio, "%s/squid %.2fx", gwb_row_short[row],
                 c->gc_r.lr_rps / sq->gc_r.lr_rps);
    printf("  %-12s %9s %8s %8s %8s %7llu  %s\n", gwb_row_name[row],
           gwb_grouped(c->gc_r.lr_rps, rps, sizeof rps),
           gwb_grouped(c->gc_r.lr_p50_us, p50, sizeof p50),
           gwb_grouped(c->gc_r.lr_p90_us, p90, sizeof p90),
           gwb_grouped(c->gc_r.lr_p99_us, p99, sizeof p99),
           (unsigned long long)c->gc_r.lr_failed, ratio);
    if (c->gc_r.lr_failed > 0)
        printf("  %-12s first failure: %s\n", "", c->gc_r.lr_why);
    if (c->gc_cached)
        printf("  %-12s fewer requests reached the origin than were "
               "answered: a cache answered some\n",
               "");
}

/* "meets (1.23x)", "misses (0.80x)", or why there is no verdict. */
static void
gwb_goal(const gwb *g, int mode, char *buf, size_t n)
{
    const gwb_cell *gw = &g->g_cell[mode][GWB_GATEWAY];
    const gwb_cell *sq = &g->g_cell[mode][GWB_SQUID];
    if (!sq->gc_ok || !gw->gc_ok) {
        snprintf(buf, n, "no figure to compare");
        return;
    }
    double r = gw->gc_r.lr_rps / sq->gc_r.lr_rps;
    snprintf(buf, n, "%s (%.2fx)", r >= 1 ? "meets" : "misses", r);
}

static void
gwb_print(const gwb *g, const bl_opts *o)
{
    char plain[64], tls[64];
    printf("\nbox bench gateway · %u clients · %.1f s per column after "
           "%.0f s warm-up · %d-byte answers\n",
           o->lo_clients, o->lo_seconds, o->lo_warmup, BO_BODY_LEN);
    printf("box-gateway: decisions on (box-pdp, a policy permitting "
           "127.0.0.1), permit cache on\nand warm; reached on its TCP "
           "listener with its proxy token. Latency in µs,\nfrom sending "
           "(TLS: from connecting) to an answer's last byte.\n");
    for (int mode = 0; mode < GWB_NMODES; mode++) {
        printf("\n%s\n", gwb_mode_title[mode]);
        printf("  %-12s %9s %8s %8s %8s %7s  %s\n", "peer", "req/s", "p50",
               "p90", "p99", "failed", "vs squid");
        for (int row = 0; row < GWB_NROWS; row++)
            if (g->g_cell[mode][row].gc_ran)
                gwb_print_row(g, mode, row);
    }
    gwb_goal(g, GWB_PLAIN, plain, sizeof plain);
    gwb_goal(g, GWB_TLS, tls, sizeof tls);
    printf("\ngoal: at least squid's throughput · plain HTTP %s · "
           "CONNECT+TLS %s\n",
           plain, tls);
}

/* ------------------------------------------------------------------ */
/* The verb                                                            */
/* ------------------------------------------------------------------ */

static int
gwb_run(const bl_opts *o)
{
    gwb *g = box_calloc(1, sizeof *g);
    char bindir[4096];
    bool ok = false;
    if (g == NULL) {
        bb_fail("out of memory");
        return 1;
    }
    if (box_cmd_self_dir(bindir, sizeof bindir) == NULL) {
        bb_fail("cannot find this program's directory (box-pdp and "
                "box-gateway live beside it)");
        goto out;
    }
    if (!gwb_open(g, bindir))
        goto out;
    fflush(stdout);
    for (int mode = 0; mode < GWB_NMODES; mode++)
        for (int row = 0; row < GWB_NROWS; row++) {
            gwb_column(g, mode, row, o);
            if (!bb_alive(&g->g_gw) || !bb_alive(&g->g_pdp)) {
                bb_fail("%s exited during the run",
                        g->g_gw == 0 ? "box-gateway" : "box-pdp");
                bb_tail(g->g_gw == 0 ? g->g_gw_out : g->g_pdp_out);
                goto out;
            }
        }
    gwb_print(g, o);
    ok = true;
    for (int mode = 0; mode < GWB_NMODES; mode++)
        for (int row = GWB_DIRECT; row <= GWB_GATEWAY; row++)
            if (!g->g_cell[mode][row].gc_ok ||
                g->g_cell[mode][row].gc_r.lr_failed > 0)
                ok = false;
out:
    if (!gwb_close(g))
        ok = false;
    box_free(g);
    return ok ? 0 : 1;
}

int
box_bench_gateway(int argc, char **argv)
{
    static const struct option opts[] = {
        {"clients", required_argument, NULL, 'c'},
        {"seconds", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bl_opts o = {.lo_clients = GWB_CLIENTS_DEFAULT,
                 .lo_warmup = GWB_WARMUP,
                 .lo_seconds = GWB_SECONDS_DEFAULT};
    int ch;
    char *end;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (ch) {
        case 'c': {
            unsigned long v = strtoul(optarg, &end, 10);
            if (*end != '\0' || v < 1 || v > BL_CLIENTS_MAX) {
                box_cmd_error("--clients takes 1 to %d", BL_CLIENTS_MAX);
                return 2;
            }
            o.lo_clients = (unsigned)v;
            break;
        }
        case 's':
            o.lo_seconds = strtod(optarg, &end);
            if (*end != '\0' || !(o.lo_seconds >= 0.5 && o.lo_seconds <= 600)) {
                box_cmd_error("--seconds takes 0.5 to 600");
                return 2;
            }
            break;
        case 'h':
            fputs(gwb_usage, stdout);
            return 0;
        default:
            fputs(gwb_usage, stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fputs(gwb_usage, stderr);
        return 2;
    }
    // A peer that closes first must not kill us from inside SSL_write.
    signal(SIGPIPE, SIG_IGN);
    return gwb_run(&o);
}
