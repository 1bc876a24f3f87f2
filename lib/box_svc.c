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
