/* SPDX-License-Identifier: Apache-2.0 */
/* box-gateway: the egress gateway (HTTP(S) forward proxy). */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <string.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_confine_profile.h"
#include "box_control.h"
#include "box_log.h"
#include "box_pdp_client.h"
#include "box_proctab.h"
#include "box_svc.h"
#include "gw_ca.h"
#include "gw_cred.h"
#include "gw_hosts.h"
#include "gw_listen.h"
#include "gw_proxy.h"

#define GW_SVC "box-gateway"
/* Permits kept per decision epoch: a connection and a request repeat
 * often (an agent's package manager fetching a hundred files). */
#define GW_CACHE_SLOTS 4096

static const char gw_usage[] =
    "usage: box-gateway --pdp URL [--listen HOST:PORT] [--socket PATH]\n"
    "                   [--epoch-pub URL] [--box-id ID] [--control URL]\n"
    "                   [--ca-cert PATH] [--upstream-ca FILE]\n"
    "                   [--token-file PATH] [--routes-fd FD]\n"
    "                   [--hosts-file FILE]\n"
    "                   [--max-connections N] [--client-timeout MS]\n"
    "                   [--loops N]\n"
    "\n"
    "The egress gateway of a box: an HTTP(S) forward proxy that asks the PDP\n"
    "at URL about every net:connect and http:request.\n"
    "\n"
    "  --pdp URL          the PDP's decision address\n"
    "  --listen HOST:PORT the proxy's TCP address (default 127.0.0.1:0: a\n"
    "                     free port, reported by health)\n"
    "  --socket PATH      also listen on this Unix socket (the sandboxes\n"
    "                     reach the proxy through it)\n"
    "  --epoch-pub URL    the PDP's epoch notices (enables the permit cache)\n"
    "  --box-id ID        the box identity sent with every decision\n"
    "  --control URL      answer health/status requests here\n"
    "  --ca-cert PATH     make this run's CA (its key stays in memory) and\n"
    "                     write its certificate here; CONNECT tunnels are\n"
    "                     intercepted with leaves it signs (without it,\n"
    "                     CONNECT is answered 503)\n"
    "  --upstream-ca FILE verify upstream TLS against these CAs instead of\n"
    "                     the system's\n"
    "  --token-file PATH  write the TCP listener's proxy token here (0600):\n"
    "                     a request there must carry Proxy-Authorization:\n"
    "                     Basic with user strands-box and the token as\n"
    "                     password (else 407); the Unix socket needs none\n"
    "  --routes-fd FD     read the box's credential routes (an EgressRoutes\n"
    "                     message, with the real secrets) from this\n"
    "                     descriptor to its end, then close it; requests\n"
    "                     to their destinations carry the secrets, over\n"
    "                     TLS only\n"
    "  --hosts-file FILE  resolve the names this /etc/hosts-shaped file\n"
    "                     lists from it, before DNS (tests name local\n"
    "                     origins so)\n"
    "  --max-connections N  client connections held at once (default 1024;\n"
    "                     past it: 503)\n"
    "  --client-timeout MS  how long a client may take to send a request\n"
    "                     head, sit idle between requests, or stall while\n"
    "                     sending a body or reading an answer (default\n"
    "                     30000 for a head, 60000 otherwise)\n"
    "  --loops N          event loops, each on a thread of its own (1 to\n"
    "                     16; default: one a processor)\n"
    "  --help             print this help and exit\n"
    "  --version          print the version and exit\n"
    "\n"
    "Signals: SIGTERM/SIGINT drain and exit 0.\n"
    "\n"
    "box-gateway opens its listeners, then confines itself before it\n"
    "serves: it makes its control socket in that socket's directory, reads\n"
    "the system certificates, and runs nothing.\n";

typedef struct gw_args {
    const char *ga_pdp, *ga_listen, *ga_socket, *ga_epoch, *ga_box_id,
        *ga_control, *ga_ca_cert, *ga_upstream_ca, *ga_token_file,
        *ga_hosts_file;
    unsigned ga_conns_max;
    unsigned ga_loops; // 0: one a processor
    int ga_timeout_ms;
    int ga_routes_fd; // -1: none
} gw_args;

/* A positive decimal number up to max; false otherwise. */
static bool
gw_number(const char *s, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max)
        return false;
    *out = v;
    return true;
}

/* Confines this process with the box-gateway profile built from its own
 * arguments (box_confine_profile.h); 0, or 1 after logging why. */
static int
gw_confine(const char *control_url, const char *upstream_ca, const int *fds,
           size_t nfds)
{
    box_confine_gateway_args a = {.ga_control = control_url,
                                  .ga_homes = {getenv("HOME"), NULL},
                                  .ga_fds = fds,
                                  .ga_nfds = nfds,
                                  .ga_upstream_ca = upstream_ca};
    box_confine_spec spec;
    char *err = NULL;

    box_err rv = box_confine_gateway(&a, &spec, &err);
    if (rv == BOX_OK) {
        rv = box_proc_confine(&spec, &err);
        box_confine_spec_free(&spec);
    }
    if (rv == BOX_OK)
        return 0;
    box_log(BOX_LOG_ERROR, GW_SVC, "cannot confine box-gateway: %s",
            err ? err : box_strerror(rv));
    box_free(err);
    return 1;
}

/*
 * A fresh token (32 random bytes, hex) and the Proxy-Authorization value
 * that carries it (Basic, user strands-box), written to path (0600, made
 * anew) when one is given. Without a file no one can know it: the TCP
 * listener then serves no one, which is what an unnamed token should mean.
 */
static box_err
gw_token(const char *path, char token[65], char *auth, size_t authn,
         char **err)
{
    unsigned char raw[32];
    if (RAND_bytes(raw, sizeof raw) != 1) {
        *err = box_strdup("cannot make the proxy token: no randomness");
        return BOX_EIO;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(token + 2 * i, 3, "%02x", raw[i]);
    char cred[80];
    int cn = snprintf(cred, sizeof cred, "strands-box:%s", token);
    unsigned char b64[128];
    int bn = EVP_EncodeBlock(b64, (const unsigned char *)cred, cn);
    snprintf(auth, authn, "Basic %.*s", bn, (const char *)b64);
    if (path == NULL)
        return BOX_OK;
    (void)unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                  0600);
    bool ok = fd >= 0 && write(fd, token, 64) == 64 && write(fd, "\n", 1) == 1;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (!ok) {
        *err = box_asprintf("cannot write the proxy token to %s: %s", path,
                            strerror(errno));
        return BOX_EIO;
    }
    return BOX_OK;
}

/* The gateway's life once its arguments are read. */
static int
gw_serve(const gw_args *ga, const sigset_t *sigs)
{
    int fds[2] = {-1, -1};
    char addr[80];
    char *err = NULL;
    box_pdp_client *pdp = NULL;
    gw_proxy *px = NULL;
    gw_ca *ca = NULL;
    box_control *ctl = NULL;
    gw_creds *creds = NULL;
    gw_hosts *hosts = NULL;
    int status = 1;

    if (gw_listen_tcp(ga->ga_listen, &fds[0], addr, sizeof addr, &err) !=
            BOX_OK ||
        (ga->ga_socket != NULL &&
         gw_listen_unix(ga->ga_socket, &fds[1], &err) != BOX_OK)) {
        box_log(BOX_LOG_ERROR, GW_SVC, "%s", err ? err : "out of memory");
        goto out;
    }
    // The TCP listener's token: any local process can reach a loopback
    // port, so only a holder of the file (the operator) may use it.
    char token[65], auth[128];
    if (gw_token(ga->ga_token_file, token, auth, sizeof auth, &err) !=
        BOX_OK) {
        box_log(BOX_LOG_ERROR, GW_SVC, "%s", err ? err : "out of memory");
        goto out;
    }
    // The CA before confinement: its certificate is written where the
    // sandboxes read it, which the confined gateway cannot reach.
    if (ga->ga_ca_cert != NULL &&
        (gw_ca_new(&ca, &err) != BOX_OK ||
         gw_ca_write_cert(ca, ga->ga_ca_cert, &err) != BOX_OK)) {
        box_log(BOX_LOG_ERROR, GW_SVC, "%s", err ? err : "out of memory");
        goto out;
    }
    // The routes hold the real secrets: read from box run's memory file
    // (never a path), which closes here, before anything else can see it.
    if (ga->ga_routes_fd >= 0) {
        box_err crv = gw_creds_read_fd(ga->ga_routes_fd, &creds, &err);
        close(ga->ga_routes_fd);
        if (crv != BOX_OK) {
            box_log(BOX_LOG_ERROR, GW_SVC, "%s",
                    err ? err : box_strerror(crv));
            goto out;
        }
        box_log(BOX_LOG_INFO, GW_SVC, "%zu credential route%s",
                gw_creds_count(creds), gw_creds_count(creds) == 1 ? "" : "s");
    }
    if (ga->ga_hosts_file != NULL &&
        gw_hosts_load(ga->ga_hosts_file, &hosts, &err) != BOX_OK) {
        box_log(BOX_LOG_ERROR, GW_SVC, "%s", err ? err : "out of memory");
        goto out;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        box_log(BOX_LOG_ERROR, GW_SVC, "cannot initialize libcurl");
        goto out;
    }
    unsigned loops =
        ga->ga_loops != 0 ? ga->ga_loops : gw_proxy_default_loops();
    if (gw_confine(ga->ga_control, ga->ga_upstream_ca, fds,
                   ga->ga_socket ? 2 : 1) != 0)
        goto out;
    box_pdp_client_opts co = {.co_url = ga->ga_pdp,
                              .co_epoch_url = ga->ga_epoch,
                              .co_cache_slots =
                                  ga->ga_epoch ? GW_CACHE_SLOTS : 0,
                              .co_box_id = ga->ga_box_id};
    box_err rv = box_pdp_client_open(&co, &pdp);
    if (rv != BOX_OK) {
        box_log(BOX_LOG_ERROR, GW_SVC, "cannot open the PDP client: %s",
                box_strerror(rv));
        goto out;
    }
    gw_proxy_opts po = {.po_tcp_fd = fds[0],
                        .po_unix_fd = fds[1],
                        .po_pdp = pdp,
                        .po_ca = ca,
                        .po_upstream_ca = ga->ga_upstream_ca,
                        .po_proxy_auth = auth,
                        .po_creds = creds,
                        .po_hosts = hosts,
                        .po_conns_max = ga->ga_conns_max,
                        .po_loops = loops,
                        .po_head_ms = ga->ga_timeout_ms,
                        .po_idle_ms = ga->ga_timeout_ms,
                        .po_stall_ms = ga->ga_timeout_ms};
    if ((rv = gw_proxy_start(&po, &px, &err)) != BOX_OK) {
        box_log(BOX_LOG_ERROR, GW_SVC, "%s", err ? err : box_strerror(rv));
        fds[0] = fds[1] = -1; // the failed start closed them
        goto out;
    }
    fds[0] = fds[1] = -1; // the proxy's now
    if (ga->ga_control != NULL &&
        (rv = box_control_start_at(ga->ga_control, GW_SVC, addr, &ctl)) !=
            BOX_OK) {
        box_log(BOX_LOG_ERROR, GW_SVC, "cannot listen on %s: %s",
                ga->ga_control, box_strerror(rv));
        goto out;
    }
    box_log(BOX_LOG_INFO, GW_SVC, "ready: proxy on %s%s%s, %u event loop%s",
            addr, ga->ga_socket ? " and " : "",
            ga->ga_socket ? ga->ga_socket : "", gw_proxy_loops(px),
            gw_proxy_loops(px) == 1 ? "" : "s");
    while (box_svc_wait_signal(sigs) == SIGHUP)
        ;
    box_log(BOX_LOG_INFO, GW_SVC, "draining");
    status = 0;
out:
    box_control_stop(ctl);
    gw_proxy_stop(px);
    gw_creds_free(creds);
    gw_hosts_free(hosts);
    gw_ca_free(ca);
    box_pdp_client_close(pdp);
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    box_free(err);
    if (status == 0)
        box_log(BOX_LOG_INFO, GW_SVC, "stopped");
    return status;
}

int
main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"pdp", required_argument, NULL, 'p'},
        {"socket", required_argument, NULL, 's'},
        {"epoch-pub", required_argument, NULL, 'e'},
        {"box-id", required_argument, NULL, 'i'},
        {"control", required_argument, NULL, 'c'},
        {"ca-cert", required_argument, NULL, 'a'},
        {"upstream-ca", required_argument, NULL, 'u'},
        {"token-file", required_argument, NULL, 'T'},
        {"routes-fd", required_argument, NULL, 'R'},
        {"hosts-file", required_argument, NULL, 'H'},
        {"max-connections", required_argument, NULL, 'm'},
        {"client-timeout", required_argument, NULL, 't'},
        {"loops", required_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    gw_args ga = {.ga_listen = "127.0.0.1:0", .ga_routes_fd = -1};
    sigset_t sigs;
    int c;

    // Started by box run (BOX_SPAWN_TIED): die with it.
    if (box_svc_tie_to_parent(GW_SVC) != BOX_OK)
        return 1;
    // Only what this service's row keeps (a token in the operator's
    // shell, or in a test's, reaches no service, nor /proc/PID/environ).
    if (box_proctab_clean_env(box_proctab_get(BOX_PROC_GATEWAY)) != BOX_OK) {
        fprintf(stderr, "%s: cannot clean the environment: out of memory\n",
                GW_SVC);
        return 1;
    }
    box_svc_block_signals(&sigs);
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            ga.ga_listen = optarg;
            break;
        case 'p':
            ga.ga_pdp = optarg;
            break;
        case 's':
            ga.ga_socket = optarg;
            break;
        case 'e':
            ga.ga_epoch = optarg;
            break;
        case 'i':
            ga.ga_box_id = optarg;
            break;
        case 'c':
            ga.ga_control = optarg;
            break;
        case 'a':
            ga.ga_ca_cert = optarg;
            break;
        case 'u':
            ga.ga_upstream_ca = optarg;
            break;
        case 'T':
            ga.ga_token_file = optarg;
            break;
        case 'H':
            ga.ga_hosts_file = optarg;
            break;
        case 'R': {
            long v;
            if (!gw_number(optarg, 1000000, &v) || v < 3) {
                fprintf(stderr, "box-gateway: --routes-fd wants an open "
                                "descriptor above 2, not '%s'\n",
                        optarg);
                return 2;
            }
            ga.ga_routes_fd = (int)v;
            break;
        }
        case 'm':
        case 't': {
            long v;
            if (!gw_number(optarg, c == 'm' ? 1000000 : 3600000, &v)) {
                fprintf(stderr, "box-gateway: --%s wants a number from 1 "
                                "to %s, not '%s'\n",
                        c == 'm' ? "max-connections" : "client-timeout",
                        c == 'm' ? "1000000" : "3600000", optarg);
                return 2;
            }
            if (c == 'm')
                ga.ga_conns_max = (unsigned)v;
            else
                ga.ga_timeout_ms = (int)v;
            break;
        }
        case 'L': {
            long v;
            if (!gw_number(optarg, GW_LOOPS_MAX, &v)) {
                fprintf(stderr,
                        "box-gateway: --loops wants a number from 1 to %d, "
                        "not '%s'\n",
                        GW_LOOPS_MAX, optarg);
                return 2;
            }
            ga.ga_loops = (unsigned)v;
            break;
        }
        case 'h':
            fputs(gw_usage, stdout);
            return 0;
        case 'V':
            box_svc_print_version(stdout, GW_SVC);
            return 0;
        default:
            fputs(gw_usage, stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "box-gateway: unexpected argument '%s'\n%s", argv[optind],
                gw_usage);
        return 2;
    }
    if (ga.ga_pdp == NULL) {
        fprintf(stderr, "box-gateway: --pdp is required\n%s", gw_usage);
        return 2;
    }
    return gw_serve(&ga, &sigs);
}
