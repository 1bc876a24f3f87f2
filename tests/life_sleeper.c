/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper run as a host program: sleeps, so a test can see it live. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * life_sleeper SECONDS TAG [--fork]: sleeps SECONDS. TAG is only there to
 * be found in /proc/<pid>/cmdline. With --fork it first forks a child that
 * leaves the process group and session (setsid) and sleeps as long: what
 * a program does to outlive a group kill.
 */
int
main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--fork") != 0)) {
        fputs("usage: life_sleeper SECONDS TAG [--fork]\n", stderr);
        return 2;
    }
    unsigned s = (unsigned)strtoul(argv[1], NULL, 10);
    if (argc == 4) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("life_sleeper: fork");
            return 1;
        }
        if (pid == 0)
            (void)setsid();
    }
    struct timespec ts = {(time_t)s, 0};
    while (nanosleep(&ts, &ts) != 0)
        ;
    return 0;
}
