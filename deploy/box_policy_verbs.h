/* SPDX-License-Identifier: Apache-2.0 */
/* The `box policy` verbs beside check and replay, one file each; argv[0]
 * is the verb's own name, the result the exit status. */
#ifndef BOX_POLICY_VERBS_H
#define BOX_POLICY_VERBS_H

/* `box policy eval` (box_policy_eval.c). */
int box_policy_eval(int argc, char **argv);
/* `box policy test` (box_policy_test.c). */
int box_policy_test(int argc, char **argv);
/* `box policy fmt` (box_policy_fmt.c). */
int box_policy_fmt(int argc, char **argv);
/* `box policy diff` (box_policy_diff.c); exits as diff(1) does: 0 same,
 * 1 changes, 2 trouble. */
int box_policy_diff(int argc, char **argv);

/* Exit statuses of eval, test and fmt (replay's, and dogwood-spec §7.2's
 * first three). */
enum {
    BOX_POLICY_OK = 0,
    BOX_POLICY_USAGE = 1,   // a usage, read or write error
    BOX_POLICY_INPUT = 2,   // the policy, request, trace or cases do not check
    BOX_POLICY_DIFFERS = 3, // a test case failed; fmt --check: not canonical
};

#endif
