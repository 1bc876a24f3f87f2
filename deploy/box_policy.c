/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy check FILE`: load a policy exactly as box-pdp would;
 * `box policy replay`: decide a trace's events (dogwood-spec §7.3). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_cmd.h"
#include "box_policy_verbs.h"
#include "box_procspec.h"
#include "config.h"
#include "pdp_hostexec.h"
#include "pdp_policy_file.h"
#include "pdp_replay.h"
#include "pdp_trace.h"

static const char policy_usage[] =
    "usage: box policy check [--home DIR] [--config FILE] [POLICY]\n"
    "       box policy replay --policy FILE [--schema S] [--event-schema E]\n"
    "                         [--verdicts] TRACE\n"
    "\n"
    "check:\n"
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
    "check above also asks under its workspace and the agent's home.\n"
    "\n"
    "replay:\n"
    "Reads TRACE (Dogwood's trace.log format: one event a line) and decides\n"
    "each decision event (kind `request`) against the policy FILE in order,\n"
    "with every earlier event and its own as the history temporal rules\n"
    "read. Prints one line per decision: `@<ts> (time point <k>): ALLOW`\n"
    "or `DENY`, with `  [rules: i, j]` naming the rules (0-based) that\n"
    "determined it; --verdicts prints `true`/`false` instead, as the\n"
    "Dogwood corpus's expected outputs are written.\n"
    "--schema validates the policy against the action schema S (a\n"
    ".cedarschema), temporal leaves included, as Dogwood's replay\n"
    "--policy-schema does; without it nothing is validated.\n"
    "--event-schema reads the event schema E (a .dwschema) in place of\n"
    "Dogwood's default: its decision kinds are the events decided, and its\n"
    "pins are appended to every predicate naming a pinned event.\n"
    "Exits 0 when the trace replays, 2 when the policy, a schema or the\n"
    "trace does not check, 1 on a usage or read error.\n";

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

/* The schemas a replay names (either may be absent), read and checked:
 * 0, 1 when a file cannot be read, 2 when one does not check. */
static int
replay_schemas(const char *sfile, const char *efile, pdp_schema **as,
               pdp_evschema **es)
{
    char *text = NULL, *err = NULL;
    size_t len = 0;
    box_buf msg;
    box_buf_init(&msg, 1u << 16);
    int status = 1;
    box_err rv = BOX_OK;
    if (sfile != NULL) {
        if ((rv = pdp_read_text_file(sfile, "schema file", PDP_SCHEMA_MAX_BYTES,
                                     &text, &len, &err)) != BOX_OK)
            goto out;
        status = 2;
        if ((rv = pdp_schema_load(text, len, sfile, as, &err)) != BOX_OK)
            goto out;
        box_free(text);
        text = NULL;
    }
    if (efile != NULL) {
        status = 1;
        if ((rv = pdp_read_text_file(efile, "event schema file",
                                     PDP_EVSCHEMA_MAX_BYTES, &text, &len,
                                     &err)) != BOX_OK)
            goto out;
        status = 2;
        if ((rv = pdp_evschema_parse(text, len, efile, es, &msg)) != BOX_OK)
            goto out;
    }
    status = 0;
out:
    if (rv != BOX_OK)
        fprintf(stderr, "strands-box: error: %s\n",
                err != NULL     ? err
                : msg.b_len > 0 ? msg.b_data
                                : box_strerror(rv));
    box_buf_reset(&msg);
    box_free(text);
    box_free(err);
    return status;
}

/* The policy for a replay: parsed and judged as Dogwood loads it, against
 * the action and event schemas given (none: no Box action schema, as a
 * trace names its own actions). */
static int
replay_load(const char *file, const pdp_schema *as, const pdp_evschema *es,
            pdp_policy_set **set)
{
    char *text = NULL, *err = NULL;
    size_t len = 0;
    int status = 1;
    box_err rv = pdp_read_text_file(file, "policy file", PDP_POLICY_MAX_BYTES,
                                    &text, &len, &err);
    if (rv == BOX_OK) {
        status = 2;
        rv = pdp_policy_load_events(text, len, file, as, es, set, NULL, &err);
    }
    if (rv != BOX_OK)
        fprintf(stderr, "strands-box: error: %s\n",
                err ? err : box_strerror(rv));
    box_free(text);
    box_free(err);
    return rv == BOX_OK ? 0 : status;
}

/* The event schema's decision kinds decide (pdp_replay_decides). */
static bool
replay_decides(void *arg, const char *kind)
{
    return pdp_evschema_is_decision_kind(arg, kind, strlen(kind));
}

static int
policy_replay(int argc, char **argv)
{
    const char *policy = NULL, *trace = NULL, *sfile = NULL, *efile = NULL;
    pdp_replay_opts o = {0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(policy_usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
            policy = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--verdicts") == 0) {
            o.ro_verdicts = true;
            continue;
        }
        if (strcmp(argv[i], "--schema") == 0 && i + 1 < argc) {
            sfile = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--event-schema") == 0 && i + 1 < argc) {
            efile = argv[++i];
            continue;
        }
        if (argv[i][0] == '-' || trace != NULL) {
            fputs(policy_usage, stderr);
            return 1;
        }
        trace = argv[i];
    }
    if (policy == NULL || trace == NULL) {
        fputs(policy_usage, stderr);
        return 1;
    }
    pdp_policy_set *set = NULL;
    pdp_schema *as = NULL;
    pdp_evschema *es = NULL;
    pdp_hist *h = NULL;
    char *text = NULL, *err = NULL;
    size_t len = 0;
    box_buf out, msg;
    box_buf_init(&out, SIZE_MAX);
    box_buf_init(&msg, 1u << 16);
    int status = replay_schemas(sfile, efile, &as, &es);
    if (status == 0)
        status = replay_load(policy, as, es, &set);
    if (status != 0)
        goto out;
    if (es != NULL) {
        o.ro_decides = replay_decides;
        o.ro_arg = es;
    }
    status = 1;
    if (pdp_read_text_file(trace, "trace file", PDP_TRACE_MAX_BYTES, &text,
                           &len, &err) != BOX_OK) {
        fprintf(stderr, "strands-box: error: %s\n", err ? err : "");
        goto out;
    }
    if ((h = pdp_hist_new()) == NULL) {
        box_cmd_error("out of memory");
        goto out;
    }
    status = 2;
    box_err rv = pdp_trace_load(text, len, trace, h, NULL, &msg);
    if (rv != BOX_OK) {
        fprintf(stderr, "strands-box: error: %s\n",
                msg.b_len > 0 ? msg.b_data : box_strerror(rv));
        goto out;
    }
    status = 1;
    if ((rv = pdp_replay(set, h, &o, &out)) != BOX_OK) {
        box_cmd_error("replay failed: %s", box_strerror(rv));
        goto out;
    }
    fwrite(out.b_data, 1, out.b_len, stdout);
    status = fflush(stdout) == 0 ? 0 : 1;
out:
    box_buf_reset(&out);
    box_buf_reset(&msg);
    pdp_hist_free(h);
    pdp_policy_free(set);
    pdp_evschema_free(es);
    pdp_schema_free(as);
    box_free(text);
    box_free(err);
    return status;
}

/* The verbs of box_policy_verbs.h, after policy_usage (each has its own
 * --help). */
static const char policy_verbs_usage[] =
    "\n"
    "eval, test, fmt, diff (see `box policy VERB --help`):\n"
    "  box policy eval --policy FILE --request R.json [--history TRACE]\n"
    "                  [--explain] [--json] [--home DIR]\n"
    "                  [--schema SCHEMA | --dogwood]\n"
    "  box policy test [--verbose] CASES...\n"
    "  box policy fmt [--check] FILE...\n"
    "  box policy diff --old A.dw --new B.dw --log DECISIONS\n"
    "                  [--history HIST] [--json] [--home DIR]\n"
    "    replays a box's decision log against both policies and lists\n"
    "    every decision the new one would answer otherwise\n";

int
box_cmd_policy(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "check") == 0)
        return policy_check(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "replay") == 0)
        return policy_replay(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "eval") == 0)
        return box_policy_eval(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "test") == 0)
        return box_policy_test(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "fmt") == 0)
        return box_policy_fmt(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "diff") == 0)
        return box_policy_diff(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
        fputs(policy_usage, stdout);
        fputs(policy_verbs_usage, stdout);
        return 0;
    }
    fputs(policy_usage, stderr);
    fputs(policy_verbs_usage, stderr);
    return 2;
}
