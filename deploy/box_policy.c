/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy check FILE`: load a policy exactly as box-pdp would. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_cmd.h"
#include "box_procspec.h"
#include "config.h"
#include "pdp_hostexec.h"
#include "pdp_policy_file.h"

static const char policy_usage[] =
    "usage: box policy check [--home DIR] [--config FILE] [POLICY]\n"
    "\n"
    "Parses POLICY and validates it against the Box action schema with the\n"
    "same code box-pdp uses. Prints every refusal and warning; exits 0 when\n"
    "the policy would load, 1 when it would not, 2 on a usage error.\n"
    "It also warns about each permit that lets the agent write or rename a\n"
    "file that makes a host run code later (.git/config, .git/hooks/*,\n"
    "shell start-up files, ...; README, \"Files that run code later\"),\n"
    "asking the policy about them under the operator home and the\n"
    "directories its own fs rules name.\n"
    "--home names the operator home for the spelling checks (default\n"
    "$HOME).\n"
    "--config reads box.toml FILE: POLICY defaults to its policy, and the\n"
    "check above also asks under its workspace and the agent's home.\n";

/* path as a request reports it: resolved, `~/…` under the operator home
 * (box-spec §3.6). Caller frees; NULL on ENOMEM. */
static char *
policy_reported(const char *path, const char *home)
{
    char real[PATH_MAX], hreal[PATH_MAX];
    const char *p = realpath(path, real) ? real : path;
    const char *h = home && realpath(home, hreal) ? hreal : home;
    size_t hl = h ? strlen(h) : 0;
    if (hl > 1 && strncmp(p, h, hl) == 0 && (p[hl] == '\0' || p[hl] == '/'))
        return box_asprintf("~%s", p + hl);
    return box_strdup(p);
}

/* The config's workspace and agent home as reported paths, into roots
 * (caller frees each); *n of them. BOX_ENOMEM or BOX_OK. */
static box_err
policy_config_roots(const box_config *cfg, const char *home, char *roots[2],
                    size_t *n)
{
    const box_config_process *agent = box_config_agent(cfg);
    const char *ws = agent ? agent->pr_workspace : NULL;
    const char *ah = box_procspec_env(agent, "HOME");
    char *ahx = ah ? box_procspec_expand(ah, home) : NULL;
    box_err rv = BOX_ENOMEM;
    *n = 0;
    if (ws != NULL && (roots[(*n)++] = policy_reported(ws, home)) == NULL)
        goto out;
    if (ah != NULL &&
        (ahx == NULL || (roots[(*n)++] = policy_reported(ahx, home)) == NULL))
        goto out;
    rv = BOX_OK;
out:
    box_free(ahx);
    return rv;
}

static int
policy_check(int argc, char **argv)
{
    const char *home = getenv("HOME");
    const char *file = NULL, *config = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(policy_usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--home") == 0 && i + 1 < argc) {
            home = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            config = argv[++i];
            continue;
        }
        if (argv[i][0] == '-' || file != NULL) {
            fputs(policy_usage, stderr);
            return 2;
        }
        file = argv[i];
    }
    box_config *cfg = NULL;
    pdp_policy_set *set = NULL;
    pdp_validate_warnings w = {0};
    char *err = NULL, *roots[2] = {NULL, NULL};
    size_t nroots = 0;
    int status = 1;
    if (config != NULL && box_config_load(config, &cfg, &err) != BOX_OK) {
        box_cmd_error("%s", err ? err : "out of memory");
        goto out;
    }
    if (file == NULL && cfg != NULL)
        file = box_config_policy(cfg);
    if (file == NULL) {
        fputs(policy_usage, stderr);
        status = 2;
        goto out;
    }
    box_err rv = pdp_policy_load_file(file, home, &set, &w, &err);
    for (size_t i = 0; i < w.vw_n; i++)
        fprintf(stderr, "strands-box: warning: %s\n", w.vw_items[i]);
    pdp_validate_warnings_free(&w);
    if (rv != BOX_OK) {
        fprintf(stderr,
                "strands-box: error: policy file %s will not load: %s\n", file,
                err ? err : box_strerror(rv));
        goto out;
    }
    if ((cfg != NULL &&
         (rv = policy_config_roots(cfg, home, roots, &nroots)) != BOX_OK) ||
        (rv = pdp_hostexec_check(set, (const char *const *)roots, nroots,
                                 &w)) != BOX_OK) {
        box_cmd_error("cannot check %s for files that run code later: %s", file,
                      box_strerror(rv));
        goto out;
    }
    for (size_t i = 0; i < w.vw_n; i++)
        fprintf(stderr, "strands-box: warning: %s\n", w.vw_items[i]);
    printf("%s: loads (%zu rules)\n", file, pdp_policy_rule_count(set));
    status = 0;
out:
    pdp_validate_warnings_free(&w);
    for (size_t i = 0; i < nroots; i++)
        box_free(roots[i]);
    pdp_policy_free(set);
    box_config_free(cfg);
    box_free(err);
    return status;
}

int
box_cmd_policy(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "check") == 0)
        return policy_check(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
        fputs(policy_usage, stdout);
        return 0;
    }
    fputs(policy_usage, stderr);
    return 2;
}
