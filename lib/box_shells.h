/* SPDX-License-Identifier: Apache-2.0 */
/* The shell paths the agent's sandbox covers with the alias (issue 23),
 * and the shim's trailer that says where the aliases are. */
#ifndef BOX_SHELLS_H
#define BOX_SHELLS_H

#include <stddef.h>

/*
 * `[agent] shells = "all"` (the default): every path of box_shell_paths
 * that exists is, inside the agent's sandbox, the shim (box-shell-shim),
 * which execs the box's alias of the same shell name, so a program that
 * runs `/bin/sh -c …` by absolute path reaches the box's shell as
 * `sh -c …` on PATH does. box-contain binds each distinct file once
 * (/bin/sh, /usr/bin/sh and /bin/dash are one file on Debian 12).
 */
#define BOX_SHELL_PATH_COUNT 8
extern const char *const box_shell_paths[BOX_SHELL_PATH_COUNT];

/*
 * The installed shim is the shim's image followed by a trailer: the
 * alias directory's absolute path (no NUL), its length as 4 bytes
 * little-endian, then BOX_SHIM_MAGIC (its 8 bytes, no NUL). The ELF
 * loader ignores bytes past the image; the shim reads them back through
 * /proc/self/exe.
 */
#define BOX_SHIM_MAGIC "box-shim"
#define BOX_SHIM_MAGIC_LEN 8
#define BOX_SHIM_TRAILER_FIXED (4 + BOX_SHIM_MAGIC_LEN)
#define BOX_SHIM_NAME "box-shell-shim"

#endif
