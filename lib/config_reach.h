/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a filesystem grant reaches the run's authority files or box dir. */
#ifndef BOX_CONFIG_REACH_H
#define BOX_CONFIG_REACH_H

#include "box_err.h"
#include "config.h"

/*
 * Internal to the box.toml loader (config.c); nothing else includes it.
 *
 * box-spec §5 refuses a grant that would let a sandbox touch what decides
 * the box: box.toml, the policy file, and the box directory. The rules,
 * for every list but `deny`, on the canonical entry:
 *   - at or inside the directory of box.toml or of the policy (or the
 *     file itself, under any name): refused;
 *   - at or inside the box directory: refused;
 *   - `write` / `write_file` at or above either authority directory, or
 *     at or above the box directory (or, while it does not exist yet, its
 *     parent): refused.
 * Everything is compared by identity, (st_dev, st_ino) of the entry and of
 * each of its ancestors, never by spelling: another spelling, a symlinked
 * parent or a bind mount of the same directory is the same directory.
 */
typedef struct cfg_reach cfg_reach;

/*
 * Takes the identities of the authority files and directories and of the
 * box directory now. config is box.toml's canonical path, policy the
 * resolved policy path (NULL when the file names none), box_dir as
 * written. A policy that does not resolve guards its directory, or
 * nothing when that does not resolve either (the policy then cannot load
 * and the run stops there). On BOX_OK *out is the caller's
 * (cfg_reach_free); on BOX_EIO *why is the caller's message; BOX_ENOMEM
 * leaves *why NULL.
 */
box_err cfg_reach_open(const char *config, const char *policy,
                       const char *box_dir, const char *programs,
                       cfg_reach **out, char **why) BOX_WARN_UNUSED;

/*
 * Why a grant of list g on path (canonical, existing: the entry checks
 * ran first) is refused, as the reason part of §5's message (the
 * caller's, box_free); NULL when it reaches nothing, and always for
 * `deny`. *rv is BOX_ENOMEM when the reason could not be built, else
 * BOX_OK.
 */
char *cfg_reach_reason(const cfg_reach *r, box_config_grant g, const char *path,
                       box_err *rv);

/* NULL is a no-op. */
void cfg_reach_free(cfg_reach *r);

#endif
