/* SPDX-License-Identifier: Apache-2.0 */
/* Sanitizer builds only: LeakSanitizer inside the agent's sandbox. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * LeakSanitizer checks for leaks at exit by stopping the world with
 * ptrace, which the agent's sandbox refuses (seccomp), and a check that
 * cannot run ends the alias with status 1 instead of the command's. So
 * under a seccomp filter the check is off; everywhere else (the alias's
 * own tests) it stays on. LeakSanitizer calls this hook at exit.
 */
int __lsan_is_turned_off(void);

int
__lsan_is_turned_off(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    int filtered = 0;
    if (f == NULL)
        return 1; // no procfs to ask: assume the sandbox
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "Seccomp:", 8) == 0)
            filtered = strtol(line + 8, NULL, 10) != 0;
    fclose(f);
    return filtered;
}
