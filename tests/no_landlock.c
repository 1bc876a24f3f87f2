/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: runs a program on a kernel that seems to lack Landlock. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * no_landlock PROGRAM [ARGS...]: installs a seccomp filter that answers
 * landlock_create_ruleset with ENOSYS (what a kernel without Landlock
 * says), then execs PROGRAM. The filter is inherited by every process it
 * starts, so `box run` under it meets the kernel its probe must refuse.
 */
int
main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: no_landlock PROGRAM [ARGS...]\n", stderr);
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
                         SYS_landlock_create_ruleset, 0) != 0 ||
        seccomp_load(ctx) != 0) {
        fputs("no_landlock: cannot install the filter\n", stderr);
        return 125;
    }
    seccomp_release(ctx);
    execv(argv[1], argv + 1);
    perror("no_landlock: exec");
    return 127;
}
