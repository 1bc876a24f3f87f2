/* SPDX-License-Identifier: Apache-2.0 */
/* Signal handling and small shared pieces of every service's main. */
#include "box_svc.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

void
box_svc_block_signals(sigset_t *set)
{
    sigset_t all;
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    all = *set;
    // SIGPIPE stays blocked for good: a peer that goes away is an error
    // return (EPIPE), never a death.
    sigaddset(&all, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
}

int
box_svc_wait_signal(const sigset_t *set)
{
    int sig = 0;
    while (sigwait(set, &sig) != 0)
        ;
    return sig;
}

void
box_svc_print_version(FILE *out, const char *name)
{
    fprintf(out, "%s %s\n", name, BOX_VERSION);
}

uint64_t
box_svc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int
box_svc_spawn(pid_t *pid, const char *path,
              const posix_spawn_file_actions_t *fa, char *const argv[],
              char *const envp[], unsigned flags)
{
    posix_spawnattr_t at;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    int rc = posix_spawnattr_init(&at);
    if (rc != 0)
        return rc;
    short sf = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if (flags & BOX_SPAWN_NEW_GROUP)
        sf |= POSIX_SPAWN_SETPGROUP;
    rc = posix_spawnattr_setflags(&at, sf);
    if (rc == 0)
        rc = posix_spawnattr_setsigmask(&at, &none);
    if (rc == 0)
        rc = posix_spawnattr_setsigdefault(&at, &all);
    if (rc == 0 && (flags & BOX_SPAWN_NEW_GROUP))
        rc = posix_spawnattr_setpgroup(&at, 0);
    if (rc == 0)
        rc = (flags & BOX_SPAWN_SEARCH)
                 ? posix_spawnp(pid, path, fa, &at, argv, envp)
                 : posix_spawn(pid, path, fa, &at, argv, envp);
    posix_spawnattr_destroy(&at);
    return rc;
}
