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
#include "box_confine.h"

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

box_err
box_proctab_clean_env(const box_proctab_row *row)
{
    // One cleaner for every process: box_proc_confine's own first step,
    // with the row's names (and a sanitizer build's option names).
    box_confine_spec spec;
    char *err = NULL;
    box_confine_spec_init(&spec, row->pt_profile);
    box_err rv = box_confine_keep_row_env(&spec, row);
    for (size_t i = 0; rv == BOX_OK && proctab_sanitizer_env[i] != NULL; i++)
        rv = box_confine_keep_env(&spec, proctab_sanitizer_env[i]);
    if (rv == BOX_OK)
        rv = box_confine_env(&spec, &err);
    box_free(err);
    box_confine_spec_free(&spec);
    return rv;
}
