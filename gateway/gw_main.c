/* SPDX-License-Identifier: Apache-2.0 */
/* box-gateway: the egress gateway (HTTP(S) forward proxy). */
#include <getopt.h>
#include <stdio.h>

#include "box_control.h"
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
    "Signals: SIGTERM/SIGINT drain and exit 0.\n";

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
    return box_control_serve_until_term(GW_SVC, control_url, &sigs);
}
