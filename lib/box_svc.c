/* SPDX-License-Identifier: Apache-2.0 */
/* Signal handling and small shared pieces of every service's main. */
#include "box_svc.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_log.h"

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

#define SVC_HEAP_KEEP (64u * 1024u * 1024u)    // freed bytes kept per arena
#define SVC_HEAP_MMAP_MIN (4u * 1024u * 1024u) // larger blocks are mapped

void
box_svc_tune_heap(void)
{
    // Fixed values also stop glibc's own threshold changes.
    (void)mallopt(M_TRIM_THRESHOLD, (int)SVC_HEAP_KEEP);
    (void)mallopt(M_MMAP_THRESHOLD, (int)SVC_HEAP_MMAP_MIN);
}

uint64_t
box_svc_clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
box_svc_now_ms(void)
{
    return box_svc_clock_ns(CLOCK_MONOTONIC) / 1000000u;
}

/*
 * envp without any BOX_SVC_PARENT_ENV entry, plus ours naming this
 * process; the array is the caller's (box_free), its strings are envp's
 * and self's.
 */
static char **
svc_tied_env(char *const envp[], char *self)
{
    static const char key[] = BOX_SVC_PARENT_ENV "=";
    size_t n = 0;
    while (envp[n] != NULL)
        n++;
    char **env = box_calloc(n + 2, sizeof *env);
    if (env == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(envp[i], key, sizeof key - 1) != 0)
            env[k++] = envp[i];
    env[k] = self;
    return env;
}

int
box_svc_spawn(pid_t *pid, const char *path,
              const posix_spawn_file_actions_t *fa, char *const argv[],
              char *const envp[], unsigned flags)
{
    posix_spawnattr_t at;
    sigset_t none, all;
    char self[64];
    char **tied = NULL;
    sigemptyset(&none);
    sigfillset(&all);
    if (flags & BOX_SPAWN_TIED) {
        snprintf(self, sizeof self, "%s=%ld", BOX_SVC_PARENT_ENV,
                 (long)getpid());
        if ((tied = svc_tied_env(envp, self)) == NULL)
            return ENOMEM;
        envp = tied;
    }
    int rc = posix_spawnattr_init(&at);
    if (rc != 0) {
        box_free(tied);
        return rc;
    }
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
    box_free(tied);
    return rc;
}

/*
 * Every process of a box dies with the box: each link of the chain (box
 * run -> each service and the agent's box-contain; box-shell -> zygote ->
 * worker -> box-contain -> its pid-namespace init, whose end takes the
 * program along) asks the kernel for SIGKILL when its parent goes. A
 * cgroup per box, killed at teardown, would hold even a process that
 * escaped every link, but needs a delegated cgroup subtree that a box run
 * by an ordinary user cannot count on; the parent-death links need none.
 */
box_err
box_svc_tie_to_parent(const char *svc)
{
    const char *v = getenv(BOX_SVC_PARENT_ENV);
    if (v == NULL)
        return BOX_OK;
    char *end;
    errno = 0;
    long want = strtol(v, &end, 10);
    bool ok = errno == 0 && end != v && *end == '\0' && want > 0;
    (void)unsetenv(BOX_SVC_PARENT_ENV);
    if (!ok) {
        box_log(BOX_LOG_ERROR, svc, "%s is not a process id; not starting",
                BOX_SVC_PARENT_ENV);
        return BOX_EINVAL;
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
        box_log(BOX_LOG_ERROR, svc,
                "cannot ask to die with the parent (PR_SET_PDEATHSIG: %s); "
                "not starting",
                strerror(errno));
        return BOX_EIO;
    }
    // Set after a parent that already died: nothing would ever fire.
    return getppid() == (pid_t)want ? BOX_OK : BOX_ECLOSED;
}
