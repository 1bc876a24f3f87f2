/* SPDX-License-Identifier: Apache-2.0 */
/* The shell paths the agent's sandbox covers with the alias. */
#include "box_shells.h"

/* The names programs run a shell by (issue 23): Python's subprocess,
 * Node's child_process, make, git and npm use /bin/sh; many harnesses
 * /bin/bash. Read-only after init, like every table. */
const char *const box_shell_paths[BOX_SHELL_PATH_COUNT] = {
    "/bin/sh",  "/bin/bash",    "/usr/bin/sh", "/usr/bin/bash",
    "/bin/zsh", "/usr/bin/zsh", "/bin/dash",   "/usr/bin/dash",
};
