/* SPDX-License-Identifier: Apache-2.0 */
/* Files that make a host run code later, and the check that a policy keeps
 * the agent from writing them. */
#ifndef PDP_HOSTEXEC_H
#define PDP_HOSTEXEC_H

#include <stddef.h>

#include "box_err.h"
#include "pdp_policy.h"
#include "pdp_validate.h"

/*
 * An agent that can write `.git/config` plants `core.fsmonitor`, and the
 * operator's next `git status` on the host runs it, outside any box. The
 * table below is every such file Box knows (README, "Files that run code
 * later", lists the same rows; a test keeps the two equal). hf_name is
 * the path below a directory as people write it; hf_probe the path the
 * check asks the policy about (a sample name for a `*`).
 */
typedef struct pdp_hostexec_file {
    const char *hf_name;
    const char *hf_probe;
    const char *hf_runs; // who runs it, and when
} pdp_hostexec_file;

extern const pdp_hostexec_file pdp_hostexec_files[];
extern const size_t pdp_hostexec_nfiles;

/*
 * Warns, by evaluating set, about each permit that lets the agent plant
 * one of the table's files. Roots are the operator home (`~`), the
 * directories the policy's own fs rules name (the prefix of a `like` pattern, a
 * string compared with context.input.path by `==`/`!=` or in a
 * `[…].contains(…)`), and extra[0..nextra) (reported paths, e.g. a
 * config's workspace as `~/src/project`). Under each root, each file is
 * asked as fs:write write_content, fs:write symlink and fs:move rename,
 * and each directory above it (`.git`, `.git/hooks`, `.vscode`, …) as
 * fs:write symlink and fs:move rename (a directory renamed or linked into
 * place brings its files with it). Every permit that determines an Allow
 * gets one warning, appended to w, in rule order:
 *   rule @id("x") lets the agent write or rename N files a host runs code
 *   from later: P1, P2, P3, P4 and K more; add a forbid on fs:write,
 *   fs:delete and fs:move for them (see README, "Files that run code later")
 * Errors only for memory (BOX_ENOMEM) or a request the set refuses to
 * evaluate (BOX_EINVAL, a bug).
 */
box_err pdp_hostexec_check(const pdp_policy_set *set, const char *const *extra,
                           size_t nextra,
                           pdp_validate_warnings *w) BOX_WARN_UNUSED;

#endif
