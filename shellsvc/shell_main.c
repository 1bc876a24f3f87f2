/* SPDX-License-Identifier: Apache-2.0 */
/* box-shell: the shell service and alias broker of one box. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"

#include "box_control.h"
#include "box_log.h"
#include "box_proctab.h"
#include "box_svc.h"
#include "box_wire.h"
#include "box_pdp_client.h"
#include "broker.h"
#include "shell_settings.h"
#include "box_confine_profile.h"
#include "sh_launcher.h"
#include "valid_word.h"
#include "worker_pool.h"

#define SHELL_SVC "box-shell"
#define SHELL_GRACE_MS 3000 // drain: under box run's 5 s before SIGKILL

/* Per-call worker limits (ARCHITECTURE §5): memory, CPU, descriptors. */
#define SHELL_WORKER_AS (2ull << 30) // 2 GiB of address space
#define SHELL_WORKER_CPU_S (BOX_CALL_BACKSTOP_MS / 1000)
#define SHELL_WORKER_NOFILE 256
#define SHELL_CACHE_SLOTS 4096 // permits kept per decision epoch

static const char shell_usage[] =
    "usage: box-shell --box-dir DIR --pdp URL [--epoch-pub URL] [--config "
    "FILE]\n"
    "                 [--workspace DIR] [--box-id ID] [--control URL]\n"
    "\n"
    "Serves the aliases (zsh, bash, sh) of one box on DIR/run/box.sock and\n"
    "interprets each command itself, asking the PDP at URL about every\n"
    "command and file operation. Each call runs in a fresh worker process.\n"
    "Without --box-dir only the control socket is served.\n"
    "\n"
    "  --box-dir DIR       the box directory\n"
    "  --pdp URL           the PDP's decision address\n"
    "  --epoch-pub URL     the PDP's epoch notices (enables the permit cache)\n"
    "  --config FILE       the run's box.toml ([agent], [tool.NAME])\n"
    "  --workspace DIR     every command's start directory (default: the\n"
    "                      [agent] workspace, else the current directory)\n"
    "  --box-id ID         the box identity sent with every decision\n"
    "  --contain PATH      box-contain (default: beside box-shell)\n"
    "  --routes-fd FD      read the credential routes' phantoms (an\n"
    "                      EgressRoutes message) from this descriptor\n"
    "  --gateway HOST:PORT, --egress-socket PATH, --trust-cert PATH\n"
    "                      the egress gateway's proxy address, its Unix\n"
    "                      socket and the run's CA: host programs reach the\n"
    "                      network through it (without them: no network)\n"
    "  --control URL       answer health/status requests here\n"
    "  --call-budget-ms MS each call's own budget: past it the call ends\n"
    "                      with \"execution timeout exceeded\", status 1\n"
    "                      (default 30000)\n"
    "  --backstop-ms MS    end a call that runs longer (default 300000)\n"
    "  --input-budget N    stdin one call may stream, bytes: past it the\n"
    "                      call ends (default 1073741824, the most)\n"
    "  --help              print this help and exit\n"
    "  --version           print the version and exit\n"
    "\n"
    "Signals: SIGTERM/SIGINT drain (calls in flight get 3 s) and exit 0.\n";

/* dir-of(/proc/self/exe)/name into buf: 0, or -1. */
static int
shell_beside_self(char *buf, size_t n, const char *name)
{
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0)
        return -1;
    self[k] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    int w = snprintf(buf, n, "%s/%s", self, name);
    return w > 0 && (size_t)w < n ? 0 : -1;
}

/* A whole positive decimal number of milliseconds, or -1. */
static int
shell_parse_ms(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || v <= 0 ||
        v > BOX_CALL_BACKSTOP_MS)
        return -1;
    return (int)v;
}

/* A byte count 1..BOX_CALL_INPUT_MAX (the budget only ever shrinks: a
 * test's, or an operator's tighter one), or 0. */
static uint64_t
shell_parse_bytes(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || s[0] == '-' || v == 0 ||
        v > BOX_CALL_INPUT_MAX)
        return 0;
    return (uint64_t)v;
}

/*
 * The broker's profile (box_confine_broker): sockets in the box dir's run/
 * and private/, descriptors 0-2 and the zygote's and launcher's request
 * sockets; it reads nothing of the filesystem after this and executes
 * nothing (host programs go through the launcher).
 */
static box_err
shell_confine_broker(const shell_args *sa, const char *control_url,
                     const shell_settings *set, const worker_pool *pool,
                     const sh_launcher *launcher)
{
    const int fds[] = {worker_pool_fd(pool), sh_launcher_fd(launcher)};
    box_confine_broker_args ba = {
        .ba_box_dir = set->ss_box_dir ? set->ss_box_dir : sa->sa_box_dir,
        .ba_control = control_url,
        .ba_pdp = sa->sa_pdp_url,
        .ba_epoch_pub = sa->sa_epoch_url,
        .ba_homes = {set->ss_operator_home, getenv("HOME")},
        .ba_fds = fds,
        .ba_nfds = sizeof fds / sizeof fds[0]};
    box_confine_spec spec;
    char *err = NULL;
    box_err rv = box_confine_broker(&ba, &spec, &err);
    if (rv == BOX_OK) {
        rv = box_proc_confine(&spec, &err);
        box_confine_spec_free(&spec);
    }
    if (rv != BOX_OK)
        box_log(BOX_LOG_ERROR, SHELL_SVC, "cannot confine the broker: %s",
                err != NULL ? err : box_strerror(rv));
    box_free(err);
    return rv;
}

int
main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"box-dir", required_argument, NULL, 'b'},
        {"pdp", required_argument, NULL, 'p'},
        {"control", required_argument, NULL, 'c'},
        {"backstop-ms", required_argument, NULL, 't'},
        {"call-budget-ms", required_argument, NULL, 'u'},
        {"input-budget", required_argument, NULL, 'I'},
        {"epoch-pub", required_argument, NULL, 'e'},
        {"config", required_argument, NULL, 'f'},
        {"workspace", required_argument, NULL, 'w'},
        {"box-id", required_argument, NULL, 'i'},
        {"contain", required_argument, NULL, 'k'},
        {"gateway", required_argument, NULL, 'g'},
        {"egress-socket", required_argument, NULL, 's'},
        {"trust-cert", required_argument, NULL, 'r'},
        {"routes-fd", required_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char *control_url = NULL;
    shell_args sa = {.sa_routes_fd = -1};
    int backstop_ms = BOX_CALL_BACKSTOP_MS, budget_ms;
    uint64_t input_max = BOX_CALL_INPUT_MAX;
    sigset_t sigs;
    int c;

    box_svc_tune_heap();
    // Started by box run (BOX_SPAWN_TIED): die with it.
    if (box_svc_tie_to_parent(SHELL_SVC) != BOX_OK)
        return 1;
    // Only what this service's row keeps (a token in the operator's
    // shell, or in a test's, reaches no service, nor /proc/PID/environ).
    if (box_proctab_clean_env(box_proctab_get(BOX_PROC_SHELL)) != BOX_OK) {
        fprintf(stderr, "%s: cannot clean the environment: out of memory\n",
                SHELL_SVC);
        return 1;
    }
    box_svc_block_signals(&sigs);
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'b':
            sa.sa_box_dir = optarg;
            break;
        case 'p':
            sa.sa_pdp_url = optarg;
            break;
        case 'e':
            sa.sa_epoch_url = optarg;
            break;
        case 'f':
            sa.sa_config = optarg;
            break;
        case 'w':
            sa.sa_workspace = optarg;
            break;
        case 'i':
            sa.sa_box_id = optarg;
            break;
        case 'k':
            sa.sa_contain_bin = optarg;
            break;
        case 'g':
            sa.sa_gateway = optarg;
            break;
        case 's':
            sa.sa_egress_socket = optarg;
            break;
        case 'r':
            sa.sa_trust_cert = optarg;
            break;
        case 'R': {
            char *end = NULL;
            long fd = strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0' || fd < 3 || fd > 1000000) {
                fprintf(stderr, "box-shell: --routes-fd wants an open "
                                "descriptor above 2, not '%s'\n",
                        optarg);
                return 2;
            }
            sa.sa_routes_fd = (int)fd;
            break;
        }
        case 'c':
            control_url = optarg;
            break;
        case 't':
            if ((backstop_ms = shell_parse_ms(optarg)) < 0) {
                fprintf(stderr, "box-shell: --backstop-ms wants 1..%d\n",
                        BOX_CALL_BACKSTOP_MS);
                return 2;
            }
            break;
        case 'u':
            if ((budget_ms = shell_parse_ms(optarg)) < 0) {
                fprintf(stderr, "box-shell: --call-budget-ms wants 1..%d\n",
                        BOX_CALL_BACKSTOP_MS);
                return 2;
            }
            sa.sa_call_budget_ms = (unsigned)budget_ms;
            break;
        case 'I':
            if ((input_max = shell_parse_bytes(optarg)) == 0) {
                fprintf(stderr,
                        "box-shell: --input-budget wants 1..%llu "
                        "bytes\n",
                        (unsigned long long)BOX_CALL_INPUT_MAX);
                return 2;
            }
            break;
        case 'h':
            fputs(shell_usage, stdout);
            return 0;
        case 'V':
            box_svc_print_version(stdout, SHELL_SVC);
            return 0;
        default:
            fputs(shell_usage, stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "box-shell: unexpected argument '%s'\n%s", argv[optind],
                shell_usage);
        return 2;
    }
    if (sa.sa_box_dir == NULL)
        return box_control_serve_until_term(SHELL_SVC, control_url, &sigs);
    if (sa.sa_pdp_url == NULL) {
        fprintf(stderr, "box-shell: --box-dir needs --pdp\n%s", shell_usage);
        return 2;
    }

    /*
     * Order matters: the zygote and the launcher are forked first, while
     * this process has one thread; the broker binds next (it sets the
     * umask); only then do threads start (the broker's, nng's).
     */
    char contain[PATH_MAX];
    if (sa.sa_contain_bin == NULL &&
        shell_beside_self(contain, sizeof contain, "box-contain") == 0)
        sa.sa_contain_bin = contain;
    shell_settings set;
    char *serr = NULL;
    if (shell_settings_build(&sa, &set, &serr) != BOX_OK) {
        box_log(BOX_LOG_ERROR, SHELL_SVC, "cannot start: %s",
                serr ? serr : "out of memory");
        box_free(serr);
        return 1;
    }
    // The workers' per-call caches are served while this word, which the
    // PDP client below keeps, says so; without it they ask every time.
    valid_word vw = {0};
    if (valid_word_open(&vw) != BOX_OK)
        box_log(BOX_LOG_WARN, SHELL_SVC,
                "no shared validity word (%s): workers ask the broker for "
                "every decision",
                strerror(errno));
    set.ss_settings.ws_valid = vw.vw_ro;
    worker_limits lim = {.wl_as_bytes = SHELL_WORKER_AS,
                         .wl_cpu_s = SHELL_WORKER_CPU_S,
                         .wl_nofile = SHELL_WORKER_NOFILE,
                         .wl_settings = &set.ss_settings,
                         .wl_valid = vw.vw_ro != NULL ? &vw : NULL};
    worker_pool *pool = NULL;
    broker *brk = NULL;
    box_control *ctl = NULL;
    char err[512];
    int status = 1;
    box_err rv = worker_pool_start(&lim, &pool);
    if (rv != BOX_OK) {
        box_log(BOX_LOG_ERROR, SHELL_SVC, "cannot start the worker zygote: %s",
                box_strerror(rv));
        valid_word_close(&vw);
        shell_settings_free(&set);
        return 1;
    }
    sh_launcher *launcher = NULL;
    box_pdp_client *pdp = NULL;
    if ((rv = sh_launcher_start(&launcher)) != BOX_OK) {
        box_log(BOX_LOG_ERROR, SHELL_SVC, "cannot start the launcher: %s",
                box_strerror(rv));
        worker_pool_stop(pool);
        valid_word_close(&vw);
        shell_settings_free(&set);
        return 1;
    }
    // The broker confines itself now, with one thread and the two forkers'
    // sockets open: sockets in the box dir, nothing of the operator's.
    if ((rv = shell_confine_broker(&sa, control_url, &set, pool, launcher)) !=
        BOX_OK)
        goto out;
    // The PDP client lives here, not in the workers: one client for every
    // call keeps the permit cache warm. Its threads create no files, so
    // the broker's umask around bind is unaffected.
    box_pdp_client_opts co = {.co_url = sa.sa_pdp_url,
                              .co_epoch_url = sa.sa_epoch_url,
                              .co_cache_slots = SHELL_CACHE_SLOTS,
                              .co_box_id = sa.sa_box_id,
                              .co_valid = vw.vw_rw};
    if ((rv = box_pdp_client_open(&co, &pdp)) != BOX_OK) {
        box_log(BOX_LOG_ERROR, SHELL_SVC, "cannot open the PDP client: %s",
                box_strerror(rv));
        goto out;
    }
    broker_config bc = {.bc_box_dir = sa.sa_box_dir,
                        .bc_pdp = pdp,
                        .bc_pool = pool,
                        .bc_settings = &set.ss_settings,
                        .bc_launcher = launcher,
                        .bc_backstop_ms = backstop_ms,
                        .bc_input_max = input_max,
                        .bc_grace_ms = SHELL_GRACE_MS};
    if ((rv = broker_start(&bc, &brk, err, sizeof err)) != BOX_OK) {
        box_log(BOX_LOG_ERROR, SHELL_SVC, "cannot serve aliases: %s", err);
        goto out;
    }
    if (control_url != NULL &&
        (rv = box_control_start(control_url, SHELL_SVC, &ctl)) != BOX_OK) {
        box_log(BOX_LOG_ERROR, SHELL_SVC, "cannot listen on %s: %s",
                control_url, box_strerror(rv));
        goto out;
    }
    box_log(BOX_LOG_INFO, SHELL_SVC, "ready");
    while (box_svc_wait_signal(&sigs) == SIGHUP)
        ;
    box_log(BOX_LOG_INFO, SHELL_SVC, "draining");
    status = 0;
out:
    broker_drain(brk);
    box_pdp_client_close(pdp);
    worker_pool_stop(pool);
    sh_launcher_stop(launcher);
    box_control_stop(ctl);
    valid_word_close(&vw); // after the client, which writes it
    shell_settings_free(&set);
    if (status == 0)
        box_log(BOX_LOG_INFO, SHELL_SVC, "stopped");
    return status;
}
