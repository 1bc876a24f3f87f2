/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy check FILE`: load a policy exactly as box-pdp would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_cmd.h"
#include "pdp_policy_file.h"

static const char policy_usage[] =
    "usage: box policy check [--home DIR] FILE\n"
    "\n"
    "Parses FILE and validates it against the Box action schema with the\n"
    "same code box-pdp uses. Prints every refusal and warning; exits 0 when\n"
    "the policy would load, 1 when it would not, 2 on a usage error.\n"
    "--home names the operator home for the spelling checks (default\n"
    "$HOME).\n";

static int
policy_check(int argc, char **argv)
{
    const char *home = getenv("HOME");
    const char *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0) {
            fputs(policy_usage, stdout);
            return 0;
        }
        if (strcmp(argv[i], "--home") == 0 && i + 1 < argc) {
            home = argv[++i];
            continue;
        }
        if (argv[i][0] == '-' || file != NULL) {
            fputs(policy_usage, stderr);
            return 2;
        }
        file = argv[i];
    }
    if (file == NULL) {
        fputs(policy_usage, stderr);
        return 2;
    }
    pdp_policy_set *set = NULL;
    pdp_validate_warnings w = {0};
    char *err = NULL;
    box_err rv = pdp_policy_load_file(file, home, &set, &w, &err);
    for (size_t i = 0; i < w.vw_n; i++)
        fprintf(stderr, "strands-box: warning: %s\n", w.vw_items[i]);
    pdp_validate_warnings_free(&w);
    if (rv != BOX_OK) {
        fprintf(stderr,
                "strands-box: error: policy file %s will not load: %s\n", file,
                err ? err : box_strerror(rv));
        box_free(err);
        return 1;
    }
    printf("%s: loads (%zu rules)\n", file, pdp_policy_rule_count(set));
    pdp_policy_free(set);
    return 0;
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
