/* SPDX-License-Identifier: Apache-2.0 */
/* `box run`: validate the config, own the box directory, run the services. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "box_agent.h"
#include "box_alloc.h"
#include "box_cmd.h"
#include "box_dir.h"
#include "box_procspec.h"
#include "box_proctab.h"
#include "box_svc.h"
#include "box_routes.h"
#include "box_svcs.h"
#include "config.h"
#include "pdp_dlog.h"
#include "pdp_policy_file.h"
#include "box_hash.h"

extern char **environ;

static const char run_usage[] =
    "usage: box run --config FILE [--] [WORKLOAD ARGS...]\n"
    "\n"
    "Starts the box's services (box-pdp, box-gateway, box-shell) for the\n"
    "configuration FILE, runs the [agent] inside its sandbox with ARGS\n"
    "appended to its command, and exits with the agent's status.\n";

/* The longest ipc path below the box directory; sun_path holds 107 bytes. */
#define RUN_LONGEST_SOCK "/private/gateway-ctl.sock"
#define RUN_SUN_PATH_MAX 107

/* Appends one control record to the box's decision log (box-spec §7). */
static void
run_control_record(const char *dir_path, const char *box_id, const char *run_id,
                   const char *op, const char *subject)
{
    pdp_dlog_ident id = {.di_box_id = box_id, .di_run_id = run_id};
    char *line = pdp_dlog_control_line(&id, op, "ok", subject, NULL);
    box_proctab_box b = {.pb_box_dir = dir_path};
    char *path = NULL;
    if (box_proctab_value(BOX_PV_DECISION_LOG, &b, &path) != BOX_OK)
        path = NULL;
    int fd =
        path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (fd >= 0 && line != NULL) {
        size_t n = strlen(line);
        if (write(fd, line, n) != (ssize_t)n)
            fprintf(stderr,
                    "strands-box: warning: the %s record was not "
                    "written\n",
                    op);
    }
    if (fd >= 0)
        close(fd);
    box_free(line);
    box_free(path);
}

/* 16 random hex digits naming this run. */
static void
run_mint_id(char *out, size_t n)
{
    unsigned char r[8] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, r, sizeof r) != (ssize_t)sizeof r)
            memset(r, 0, sizeof r);
        close(fd);
    }
    snprintf(out, n, "%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
             r[4], r[5], r[6], r[7]);
}

/* FNV-1a over a file's bytes, folded into h; a missing file counts as
 * empty. Only tells "did what this run loads change since the last run". */
static uint64_t
run_digest_file(uint64_t h, const char *path)
{
    if (path == NULL)
        return h;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return h;
    unsigned char buf[8192];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        h = box_fnv1a(h, buf, (size_t)n);
    }
    close(fd);
    return h;
}

/* A wait status as a shell reports it: the exit status, or 128+n. */
static int
run_status_of(int ws)
{
    if (WIFEXITED(ws))
        return WEXITSTATUS(ws);
    if (WIFSIGNALED(ws))
        return 128 + WTERMSIG(ws);
    return 125;
}

/* The gateway as the agent's sandbox reaches it, and the storage behind
 * it. */
typedef struct run_egress_paths {
    box_procspec_egress re_eg;
    char *re_socket, *re_ca;
} run_egress_paths;

static void
run_egress_free(run_egress_paths *eg)
{
    box_free(eg->re_socket);
    box_free(eg->re_ca);
}

/* Where the gateway listens for the sandboxes (its health says the port;
 * the relay inside each sandbox takes the same one). */
static box_err
run_egress(const box_proctab_box *paths, const box_svcs *svcs,
           run_egress_paths *eg, char **err)
{
    const char *addr = box_svcs_gateway_address(svcs);
    const char *colon = addr ? strrchr(addr, ':') : NULL;
    char *end = NULL;
    unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
    if (colon == NULL || *end != '\0' || port == 0 || port > 65535) {
        *err = box_asprintf("box-gateway did not say where it listens (%s)",
                            addr ? addr : "no address");
        return BOX_EPROTO;
    }
    BOX_TRY(box_proctab_value(BOX_PV_EGRESS_SOCK, paths, &eg->re_socket));
    BOX_TRY(box_proctab_value(BOX_PV_TRUST_CERT, paths, &eg->re_ca));
    eg->re_eg = (box_procspec_egress){.eg_socket = eg->re_socket,
                                      .eg_port = (unsigned)port,
                                      .eg_ca = eg->re_ca};
    return BOX_OK;
}

/*
 * Waits for the agent while watching the services: a service that dies
 * ends the run at once (the agent is killed with it, so it is never left
 * with an unmediated shell). SIGINT/SIGTERM/SIGHUP are passed to the
 * agent, whose status then ends the run as usual.
 */
static int
run_wait_agent(pid_t agent, box_svcs *svcs, const sigset_t *sigs)
{
    struct timespec tick = {0, 100 * 1000000L};
    for (;;) {
        int ws;
        pid_t r = waitpid(agent, &ws, WNOHANG);
        if (r == agent)
            return run_status_of(ws);
        if (r < 0 && errno != EINTR)
            return box_cmd_error("lost track of the agent: %s",
                                 strerror(errno));
        const char *dead = box_svcs_find_dead(svcs);
        if (dead != NULL) {
            kill(agent, SIGKILL);
            while (waitpid(agent, &ws, 0) < 0 && errno == EINTR)
                ;
            fprintf(stderr,
                    "strands-box: %s stopped during the run; the "
                    "agent was stopped with it\n",
                    dead);
            return 125;
        }
        int sig = sigtimedwait(sigs, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
            kill(agent, SIGTERM);
    }
}

int
box_cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *config_path = NULL;
    box_config *cfg = NULL;
    box_dir *dir = NULL;
    box_svcs *svcs = NULL;
    run_egress_paths eg = {0};
    box_routes *routes = NULL;
    char *err = NULL;
    int status = 1;
    bool started = false;
    char run_id[32] = "";
    int c;
    sigset_t sigs;

    optind = 1;
    // '+': stop at the first non-option, so workload args pass through.
    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            config_path = optarg;
            break;
        case 'h':
            fputs(run_usage, stdout);
            return 0;
        default:
            fputs(run_usage, stderr);
            return 2;
        }
    }
    if (config_path == NULL) {
        fputs("strands-box: error: the following required arguments were not "
              "provided: --config <FILE>\n",
              stderr);
        fputs(run_usage, stderr);
        return 2;
    }
    box_svc_block_signals(&sigs);

    if (box_config_load(config_path, &cfg, &err) != BOX_OK) {
        status = box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    const char *home = getenv("HOME");
    if (home == NULL || *home != '/') {
        status = box_cmd_error("HOME must be set to an absolute path: it is "
                               "the operator home that `~` names");
        goto out;
    }
    char bindir[4096];
    if (box_cmd_self_dir(bindir, sizeof bindir) == NULL) {
        status = box_cmd_error("cannot find the directory of this program");
        goto out;
    }
    if (box_config_check_paths(cfg, home, bindir, &err) != BOX_OK) {
        status = box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    // The policy must load before anything starts (box-spec §8 message);
    // box-pdp loads it again with the same code.
    {
        pdp_policy_set *set = NULL;
        pdp_validate_warnings w = {0};
        box_err prv =
            pdp_policy_load_file(box_config_policy(cfg), home, &set, &w, &err);
        for (size_t i = 0; i < w.vw_n; i++)
            fprintf(stderr, "strands-box: warning: %s\n", w.vw_items[i]);
        pdp_validate_warnings_free(&w);
        pdp_policy_free(set);
        if (prv != BOX_OK) {
            status = box_cmd_error("policy file %s will not load: %s",
                                   box_config_policy(cfg),
                                   err ? err : box_strerror(prv));
            goto out;
        }
    }
    // The services get the policy's canonical path: box-pdp reopens it on
    // every reload, and a link in the path as written (checked against
    // the grants only as it resolves now) could be re-pointed later by
    // whoever may write the directory that holds it. A second name for
    // the file could be written where the first is guarded.
    char policy_canon[PATH_MAX] = "";
    if (box_config_policy(cfg) != NULL) {
        struct stat pst;
        if (realpath(box_config_policy(cfg), policy_canon) == NULL ||
            stat(policy_canon, &pst) != 0) {
            status = box_cmd_error("policy file %s: %s", box_config_policy(cfg),
                                   strerror(errno));
            goto out;
        }
        if (pst.st_nlink > 1) {
            status = box_cmd_error(
                "policy file %s has more than one filesystem name; give it "
                "one, so no other name can change what the box allows",
                box_config_policy(cfg));
            goto out;
        }
    }
    const box_config_process *agent = box_config_agent(cfg);
    if (agent == NULL) {
        status = box_cmd_error("the configuration has no `[agent]` table, so "
                               "there is nothing to run");
        goto out;
    }
    if (box_agent_probe(bindir, &err) != BOX_OK) {
        status = box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    // The agent's workspace: `[agent] workspace`, else where run started.
    char workspace[PATH_MAX];
    if (realpath(agent->pr_workspace ? agent->pr_workspace : ".", workspace) ==
        NULL) {
        status = box_cmd_error("the workspace %s does not resolve: %s",
                               agent->pr_workspace ? agent->pr_workspace
                                                   : "(current directory)",
                               strerror(errno));
        goto out;
    }
    const char *box_dir_path = box_config_box_dir(cfg);
    if (strlen(box_dir_path) + strlen(RUN_LONGEST_SOCK) > RUN_SUN_PATH_MAX) {
        status = box_cmd_error("`box_dir` %s is too long: its sockets need "
                               "paths of at most %d bytes",
                               box_dir_path, RUN_SUN_PATH_MAX);
        goto out;
    }
    char record[64];
    uint64_t h = BOX_FNV1A_INIT;
    h = run_digest_file(h, box_config_path(cfg));
    h = run_digest_file(h,
                        box_config_policy(cfg) != NULL ? policy_canon : NULL);
    snprintf(record, sizeof record, "%016llx", (unsigned long long)h);

    bool created, changed;
    if (box_dir_open(box_dir_path, box_config_name(cfg), record, &dir, &created,
                     &changed, &err) != BOX_OK) {
        status = box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    if (created || changed)
        fprintf(stderr, "strands-box: box %s %s \xc2\xb7 config %s\n",
                box_dir_id(dir), created ? "created" : "updated",
                box_config_path(cfg));

    bool refreshed = false;
    if (box_agent_install_aliases(bindir, box_dir_path, &refreshed, &err) !=
        BOX_OK) {
        status = box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    if (refreshed && !created)
        fprintf(stderr, "strands-box: box %s alias image refreshed\n",
                box_dir_id(dir));
    // The credentials before anything starts: a secret that is missing
    // refuses the run rather than leaving a route without one.
    if (box_routes_make(cfg, environ, &routes, &err) != BOX_OK) {
        status = box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    for (size_t i = 0; i < box_config_egress_count(cfg); i++)
        if (box_config_egress_get(cfg, i)->eg_always)
            fprintf(stderr,
                    "strands-box: warning: `%s` has secret.inject = "
                    "\"always\": every request to its destinations carries "
                    "the secret, whatever sent it\n",
                    box_config_egress_get(cfg, i)->eg_table);
    // The operator's SSL_CERT_FILE (a corporate or test CA) is trusted
    // upstream beside the system's roots, as OpenSSL and curl would.
    const char *upstream_ca = getenv("SSL_CERT_FILE");
    if (upstream_ca != NULL && upstream_ca[0] == '\0')
        upstream_ca = NULL;
    if (upstream_ca != NULL && (upstream_ca[0] != '/' ||
                                access(upstream_ca, R_OK) != 0)) {
        status = box_cmd_error("SSL_CERT_FILE names %s, which is not a "
                               "readable file given by its absolute path; "
                               "the gateway would trust it upstream",
                               upstream_ca);
        goto out;
    }
    run_mint_id(run_id, sizeof run_id);
    box_proctab_box paths = {
        .pb_bindir = bindir,
        .pb_box_dir = box_dir_path,
        .pb_policy = box_config_policy(cfg) != NULL ? policy_canon : NULL,
        .pb_box_id = box_dir_id(dir),
        .pb_run_id = run_id,
        .pb_config = box_config_path(cfg),
        .pb_workspace = workspace,
        .pb_upstream_ca = upstream_ca,
        .pb_gw_routes_fd = box_routes_gateway_fd(routes),
        .pb_sh_routes_fd = box_routes_shell_fd(routes),
    };
    run_control_record(box_dir_path, box_dir_id(dir), run_id, "box_started",
                       box_config_path(cfg));
    started = true;
    if (box_svcs_start(&paths, &svcs, &err) != BOX_OK) {
        status = box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    box_svcs_report(svcs, stderr);
    box_routes_close_files(routes); // the services have read them
    if (run_egress(&paths, svcs, &eg, &err) != BOX_OK) {
        status = box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    eg.re_eg.eg_phantoms = box_routes_phantoms(routes, &eg.re_eg.eg_nphantoms);
    const char *path = getenv("PATH");
    box_agent_opts ao = {.ao_bindir = bindir,
                         .ao_box_dir = box_dir_path,
                         .ao_operator_home = home,
                         .ao_operator_path =
                             path && *path ? path : "/usr/bin:/bin",
                         .ao_workspace = workspace,
                         .ao_spec = agent,
                         .ao_config = cfg,
                         .ao_args = argv + optind,
                         .ao_disclose = stderr,
                         .ao_egress = &eg.re_eg};
    pid_t agent_pid;
    if (box_agent_start(&ao, &agent_pid, &err) != BOX_OK) {
        status = box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    status = run_wait_agent(agent_pid, svcs, &sigs);

out:
    if (svcs != NULL && box_svcs_stop(svcs) != 0 && status == 0)
        status = box_cmd_error("a service did not stop cleanly");
    if (started)
        run_control_record(box_config_box_dir(cfg), box_dir_id(dir), run_id,
                           "box_stopped", box_config_path(cfg));
    run_egress_free(&eg);
    box_routes_free(routes);
    box_dir_close(dir);
    box_config_free(cfg);
    box_free(err);
    return status;
}
