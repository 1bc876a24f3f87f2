/* SPDX-License-Identifier: Apache-2.0 */
/* A row's environment: what box run hands a service, and what a service
 * keeps of its own. */
#include "box_proctab.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"

extern char **environ;

/*
 * The sanitizers read their options from these when a process starts and
 * the tests set them (tests/run.sh), so in a sanitizer build every row
 * keeps them; a plain build has no sanitizer to read them.
 * __SANITIZE_ADDRESS__ is gcc's, __has_feature clang's; both of our
 * sanitizer builds pair AddressSanitizer with UndefinedBehaviorSanitizer.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(BOX_SANITIZE)
#define PROCTAB_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROCTAB_SANITIZED 1
#endif
#endif

#ifdef PROCTAB_SANITIZED
static const char *const proctab_sanitizer_env[] = {
    "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", NULL};
#else
static const char *const proctab_sanitizer_env[] = {NULL};
#endif

/* True when list (NULL-ended, at most max) holds the first len bytes of
 * name as a whole name. */
static bool
env_listed(const char *const *list, size_t max, const char *name, size_t len)
{
    for (size_t i = 0; i < max && list[i] != NULL; i++)
        if (strlen(list[i]) == len && memcmp(list[i], name, len) == 0)
            return true;
    return false;
}

/* The row keeps the variable whose name is the first len bytes of name. */
static bool
env_keeps_n(const box_proctab_row *row, const char *name, size_t len)
{
    return env_listed(row->pt_env, BOX_PROC_NAMES_MAX, name, len) ||
           env_listed(proctab_sanitizer_env, SIZE_MAX, name, len);
}

bool
box_proctab_keeps(const box_proctab_row *row, const char *name)
{
    return env_keeps_n(row, name, strlen(name));
}

/* The length of the name of a NAME=value entry, or 0 for an entry
 * without '=' (which nothing keeps). */
static size_t
env_name_len(const char *entry)
{
    const char *eq = strchr(entry, '=');
    return eq != NULL ? (size_t)(eq - entry) : 0;
}

box_err
box_proctab_env(const box_proctab_row *row, char *const *from, box_argv *env)
{
    for (size_t i = 0; from != NULL && from[i] != NULL; i++) {
        size_t n = env_name_len(from[i]);
        if (n == 0 || !env_keeps_n(row, from[i], n))
            continue;
        box_err rv = box_argv_push(env, from[i]);
        if (rv != BOX_OK)
            return rv;
    }
    return BOX_OK;
}

char *const *
box_proctab_envp(const box_argv *env)
{
    static char *const empty[] = {NULL};
    return env->av_v != NULL ? env->av_v : empty;
}

/*
 * The block of memory the kernel put this process's environment strings
 * in at exec (/proc/self/stat fields 50 and 51, env_start and env_end),
 * which is what /proc/PID/environ shows whatever the process does to
 * `environ` since. False when it cannot be read.
 */
static bool
env_block(char **start, size_t *len)
{
    char buf[2048];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    // The name (field 2) may hold spaces and parentheses: read past the
    // last ')'; field 3 follows.
    char *p = strrchr(buf, ')');
    if (p == NULL)
        return false;
    unsigned long long lo = 0, hi = 0;
    p++;
    for (int field = 3; field <= 51; field++) {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            return false;
        if (field == 50)
            lo = strtoull(p, NULL, 10);
        if (field == 51)
            hi = strtoull(p, NULL, 10);
        p += strcspn(p, " ");
    }
    if (lo == 0 || hi <= lo)
        return false;
    *start = (char *)(uintptr_t)lo;
    *len = (size_t)(hi - lo);
    return true;
}

box_err
box_proctab_clean_env(const box_proctab_row *row)
{
    box_argv keep = {0};
    box_err rv = box_proctab_env(row, environ, &keep);
    char *block = NULL;
    size_t room = 0, used = 0;

    if (rv != BOX_OK)
        goto out;
    bool have_block = env_block(&block, &room);
    clearenv();
    // The kept entries go back first into the kernel's block, where
    // /proc/PID/environ shows them; an entry that does not fit (one set
    // after exec, longer than what it replaced) is set on the heap.
    for (size_t i = 0; i < keep.av_n; i++) {
        const char *e = keep.av_v[i];
        size_t n = strlen(e) + 1;
        if (have_block && n <= room - used) {
            memcpy(block + used, e, n);
            if (putenv(block + used) != 0) {
                rv = BOX_ENOMEM;
                break;
            }
            used += n;
            continue;
        }
        size_t nl = env_name_len(e);
        char *name = box_asprintf("%.*s", (int)nl, e);
        int r = name != NULL ? setenv(name, e + nl + 1, 1) : -1;
        box_free(name);
        if (r != 0) {
            rv = BOX_ENOMEM;
            break;
        }
    }
    // Whatever else arrived (a token, a key) leaves this process's memory.
    if (have_block)
        memset(block + used, 0, room - used);
out:
    box_argv_free(&keep);
    return rv;
}
