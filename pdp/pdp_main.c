/* SPDX-License-Identifier: Apache-2.0 */
/* box-pdp: the policy decision point service. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_log.h"
#include "box_proctab.h"
#include "box_svc.h"
#include "pdp_server.h"

#define PDP_SVC "box-pdp"

static const char pdp_usage[] =
    "usage: box-pdp --listen URL [--policy FILE] [--epoch-pub URL] [--log FILE]\n"
    "               [--box-id ID] [--run-id ID]\n"
    "\n"
    "Decides shell:exec, shell:spawn, fs:*, net:connect and http:request\n"
    "requests against a Dogwood policy, over nng (REQ/REP) at URL.\n"
    "\n"
    "  --listen URL     address to serve decisions on (ipc://...); served are\n"
    "                   only the process that started box-pdp and its other\n"
    "                   children running the box-shell or box-gateway beside\n"
    "                   box-pdp (any other connection is closed unserved)\n"
    "  --policy FILE    the policy file (absent: every request is denied)\n"
    "  --epoch-pub URL  publish policy-generation changes on this PUB address\n"
    "  --log FILE       append the decision log (OTLP JSON lines) to FILE\n"
    "  --box-id ID      the box named in the log (box-<16 hex>)\n"
    "  --run-id ID      the run named in the log\n"
    "  --home DIR       the operator home, for the policy's spelling checks\n"
    "                   (default: $HOME)\n"
    "  --log-queue N    decision-log lines that may wait for the disk\n"
    "                   (default 4096); when full, a decision waits for room:\n"
    "                   it is never answered unlogged\n"
    "  --help           print this help and exit\n"
    "  --version        print the version and exit\n"
    "\n"
    "Signals: SIGTERM/SIGINT drain and exit 0; SIGHUP reloads the policy (a\n"
    "file that does not load leaves the old generation in force).\n";

int
main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"policy", required_argument, NULL, 'p'},
        {"epoch-pub", required_argument, NULL, 'e'},
        {"log", required_argument, NULL, 'g'},
        {"box-id", required_argument, NULL, 'b'},
        {"run-id", required_argument, NULL, 'r'},
        {"home", required_argument, NULL, 'H'},
        {"log-queue", required_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    pdp_server_opts o = {0};
    pdp_server *srv = NULL;
    char *err = NULL;
    sigset_t sigs;
    int c;

    // Started by box run (BOX_SPAWN_TIED): die with it.
    if (box_svc_tie_to_parent(PDP_SVC) != BOX_OK)
        return 1;
    // Only what this service's row keeps (a token in the operator's
    // shell, or in a test's, reaches no service, nor /proc/PID/environ).
    if (box_proctab_clean_env(box_proctab_get(BOX_PROC_PDP)) != BOX_OK) {
        fprintf(stderr, "%s: cannot clean the environment: out of memory\n",
                PDP_SVC);
        return 1;
    }
    box_svc_block_signals(&sigs);
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'l':
            o.so_listen = optarg;
            break;
        case 'p':
            o.so_policy = optarg;
            break;
        case 'e':
            o.so_epoch_pub = optarg;
            break;
        case 'g':
            o.so_log = optarg;
            break;
        case 'b':
            o.so_box_id = optarg;
            break;
        case 'r':
            o.so_run_id = optarg;
            break;
        case 'H':
            o.so_home = optarg;
            break;
        case 'q': {
            char *end;
            unsigned long n = strtoul(optarg, &end, 10);
            if (*end != '\0' || n == 0 || n > 1000000) {
                fprintf(stderr, "box-pdp: --log-queue takes 1 to 1000000, "
                                "not \"%s\"\n", optarg);
                return 2;
            }
            o.so_log_queue = n;
            break;
        }
        case 'h':
            fputs(pdp_usage, stdout);
            return 0;
        case 'V':
            box_svc_print_version(stdout, PDP_SVC);
            return 0;
        default:
            fputs(pdp_usage, stderr);
            return 2;
        }
    }
    if (optind != argc || o.so_listen == NULL) {
        fprintf(stderr, "box-pdp: --listen URL is required\n%s", pdp_usage);
        return 2;
    }
    if (o.so_home == NULL)
        o.so_home = getenv("HOME");
    box_err rv = pdp_server_start(&o, &srv, &err);
    if (rv != BOX_OK) {
        box_log(BOX_LOG_ERROR, PDP_SVC, "cannot start: %s",
                err ? err : box_strerror(rv));
        box_free(err);
        return 1;
    }
    box_log(BOX_LOG_INFO, PDP_SVC, "listening on %s", o.so_listen);
    for (;;) {
        int sig = box_svc_wait_signal(&sigs);
        if (sig != SIGHUP)
            break;
        if (pdp_server_reload(srv, &err) != BOX_OK)
            box_free(err);
        err = NULL;
    }
    pdp_server_stop(srv);
    box_log(BOX_LOG_INFO, PDP_SVC, "stopped");
    return 0;
}
