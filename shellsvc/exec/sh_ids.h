/* SPDX-License-Identifier: Apache-2.0 */
/* User and group names for ls -l: read from /etc/passwd and /etc/group
 * once, before the worker confines itself (it cannot read /etc after). */
#ifndef SH_IDS_H
#define SH_IDS_H

#include <stdint.h>

/* Loads both tables; idempotent, safe from several threads. Without the
 * files every id is shown as its number. */
void sh_ids_init(void);

/* The name of a user (group) id, or NULL when it has none. */
const char *sh_ids_user(uint32_t uid);
const char *sh_ids_group(uint32_t gid);

#endif
