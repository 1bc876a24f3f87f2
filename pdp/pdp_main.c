/* SPDX-License-Identifier: Apache-2.0 */
/* box-pdp: the policy decision point service. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_confine_profile.h"
#include "box_log.h"
#include "box_proctab.h"
#include "box_svc.h"
#include "pdp_peer.h"
#include "pdp_server.h"

#define PDP_SVC "box-pdp"

static const char pdp_usage[] =
    "usage: box-pdp --listen URL [--policy FILE] [--epoch-pub URL] [--log FILE]\n"
    "               [--history FILE] [--box-id ID] [--run-id ID]\n"
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
    "  --history FILE   keep the history temporal rules read in FILE (made\n"
    "                   if absent; replayed at start, a torn tail cut off);\n"
    "                   each decision's event is synced before its verdict.\n"
    "                   Absent: the history lives in memory only\n"
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
    "file that does not load leaves the old generation in force).\n"
    "\n"
    "box-pdp confines itself before it serves: it reads only files beneath\n"
    "the policy's directory (only the policy file when that directory is the\n"
    "operator home or above it), makes its sockets in their directories,\n"
    "writes only in the log's and the history's directories, and runs\n"
    "nothing.\n";

/* Where the policy was when box-pdp started, for the reload message. */
typedef struct pdp_policy_id {
    bool pi_file_only; // confined to the file itself (box_confine_pdp)
    dev_t pi_dev;
    ino_t pi_ino;
} pdp_policy_id;

/*
 * Confines this process with the box-pdp profile built from its own
 * arguments (box_confine_profile.h); 0, or 1 after logging why.
 */
static int
pdp_confine(const pdp_server_opts *o, const char *env_home, pdp_peers *peers,
            pdp_policy_id *pid)
{
    box_confine_pdp_args a = {.pa_listen = o->so_listen,
                              .pa_epoch_pub = o->so_epoch_pub,
                              .pa_policy = o->so_policy,
                              .pa_log = o->so_log,
                              .pa_history = o->so_history,
                              .pa_homes = {env_home, o->so_home},
                              .pa_peers_fd = pdp_peers_fd(peers)};
    box_confine_spec spec;
    char *err = NULL;
    struct stat sb;

    if (o->so_policy != NULL && stat(o->so_policy, &sb) == 0) {
        pid->pi_dev = sb.st_dev;
        pid->pi_ino = sb.st_ino;
    }
    box_err rv = box_confine_pdp(&a, &spec, &pid->pi_file_only, &err);
    if (rv == BOX_OK) {
        rv = box_proc_confine(&spec, &err);
        box_confine_spec_free(&spec);
    }
    if (rv == BOX_OK)
        return 0;
    box_log(BOX_LOG_ERROR, PDP_SVC, "cannot confine box-pdp: %s",
            err ? err : box_strerror(rv));
    box_free(err);
    return 1;
}

/* A reload refused while box-pdp may read only the policy file itself: if
 * the file was replaced (a new inode), say that this is why. */
static void
pdp_explain_refused_reload(const char *policy, const pdp_policy_id *pid)
{
    struct stat sb;

    if (!pid->pi_file_only || policy == NULL || stat(policy, &sb) != 0 ||
        (sb.st_dev == pid->pi_dev && sb.st_ino == pid->pi_ino))
        return;
    box_log(BOX_LOG_ERROR, PDP_SVC,
            "the policy file %s was replaced by a new file (editors that "
            "save by renaming do this), and box-pdp may read only the file "
            "it started with, because the policy's directory is the "
            "operator home or above it; the old generation stays in force: "
            "save the policy in place, or keep it in a directory of its own "
            "and start the box again",
            policy);
}

int
main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"listen", required_argument, NULL, 'l'},
        {"policy", required_argument, NULL, 'p'},
        {"epoch-pub", required_argument, NULL, 'e'},
        {"log", required_argument, NULL, 'g'},
        {"history", required_argument, NULL, 'y'},
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

    box_svc_tune_heap();
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
        case 'y':
            o.so_history = optarg;
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
    // Copied: box_proc_confine wipes the environment these point into.
    const char *h = getenv("HOME");
    char *env_home = h != NULL ? box_strdup(h) : NULL;
    char *home = box_strdup(o.so_home ? o.so_home : h ? h : "");
    pdp_peers *peers = NULL;
    pdp_policy_id policy_id = {0};
    int status = 1;
    box_err rv;
    if (home == NULL || (h != NULL && env_home == NULL)) {
        box_log(BOX_LOG_ERROR, PDP_SVC, "cannot start: out of memory");
        goto out;
    }
    o.so_home = home[0] != '\0' ? home : NULL;
    // The peer identifier is forked first, while this process has one
    // thread and before it gives up reading other processes' programs.
    if ((rv = pdp_peers_new(&peers)) != BOX_OK) {
        box_log(BOX_LOG_ERROR, PDP_SVC, "cannot start the peer identifier: %s",
                box_strerror(rv));
        goto out;
    }
    if (pdp_confine(&o, env_home, peers, &policy_id) != 0)
        goto out;
    o.so_peers = peers;
    rv = pdp_server_start(&o, &srv, &err);
    if (rv != BOX_OK) {
        box_log(BOX_LOG_ERROR, PDP_SVC, "cannot start: %s",
                err ? err : box_strerror(rv));
        box_free(err);
        goto out;
    }
    box_log(BOX_LOG_INFO, PDP_SVC, "listening on %s", o.so_listen);
    for (;;) {
        int sig = box_svc_wait_signal(&sigs);
        if (sig != SIGHUP)
            break;
        if (pdp_server_reload(srv, &err) != BOX_OK) {
            pdp_explain_refused_reload(o.so_policy, &policy_id);
            box_free(err);
        }
        err = NULL;
    }
    pdp_server_stop(srv);
    box_log(BOX_LOG_INFO, PDP_SVC, "stopped");
    status = 0;
out:
    pdp_peers_free(peers);
    box_free(home);
    box_free(env_home);
    return status;
}
