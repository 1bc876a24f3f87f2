/* SPDX-License-Identifier: Apache-2.0 */
/* box-gateway: the egress gateway (HTTP(S) forward proxy). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "box_alloc.h"
#include "box_confine_profile.h"
#include "box_control.h"
#include "box_log.h"
#include "box_proctab.h"
#include "box_svc.h"

#define GW_SVC "box-gateway"

static const char gw_usage[] =
    "usage: box-gateway --pdp URL [--listen HOST:PORT] [--control URL]\n"
    "\n"
    "The egress gateway of a box: an HTTP(S) forward proxy that asks the PDP\n"
    "at URL about every net:connect and http:request.\n"
    "\n"
    "  --pdp URL          the PDP's decision address\n"
    "  --listen HOST:PORT the proxy's listening address (default 127.0.0.1:0)\n"
    "  --control URL      answer health/status requests here\n"
    "  --help             print this help and exit\n"
    "  --version          print the version and exit\n"
    "\n"
    "Signals: SIGTERM/SIGINT drain and exit 0.\n"
    "\n"
    "box-gateway confines itself before it serves: it makes its control\n"
    "socket in that socket's directory, reads the system certificates, and\n"
    "runs nothing.\n";

/* Confines this process with the box-gateway profile built from its own
 * arguments (box_confine_profile.h); 0, or 1 after logging why. */
static int
gw_confine(const char *control_url)
{
    box_confine_gateway_args a = {.ga_control = control_url,
                                  .ga_homes = {getenv("HOME"), NULL}};
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

int
main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"pdp", required_argument, NULL, 'p'},
        {"control", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *control_url = NULL;
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
        case 'p':
            break; // used by the proxy
        case 'c':
            control_url = optarg;
            break;
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
    if (gw_confine(control_url) != 0)
        return 1;
    return box_control_serve_until_term(GW_SVC, control_url, &sigs);
}
