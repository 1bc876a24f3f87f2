/* SPDX-License-Identifier: Apache-2.0 */
/* regcomp without RE_DOT_NOT_NULL (cmd_regex.h). glibc takes a syntax of
 * the caller's only through re_compile_pattern, which reads it from the
 * process-wide re_syntax_options; so the syntax is set, the pattern
 * compiled and the old syntax put back under one lock. Nothing else in
 * the shell calls re_compile_pattern, and regcomp never reads it. */
#include "cmd_regex.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// glibc's own state, not ours: the lock is what makes it safe to share.
static pthread_mutex_t cmd_regex_syntax_lock = PTHREAD_MUTEX_INITIALIZER;

int
cmd_regcomp(regex_t *re, const char *pattern, int cflags)
{
    // What regcomp derives from its flags, less RE_DOT_NOT_NULL.
    reg_syntax_t syn = (cflags & REG_EXTENDED) ? RE_SYNTAX_POSIX_EXTENDED
                                               : RE_SYNTAX_POSIX_BASIC;
    syn &= ~(reg_syntax_t)RE_DOT_NOT_NULL;
    if (cflags & REG_ICASE)
        syn |= RE_ICASE;
    if (cflags & REG_NEWLINE) {
        syn &= ~(reg_syntax_t)RE_DOT_NEWLINE;
        syn |= RE_HAT_LISTS_NOT_NEWLINE;
    }
    memset(re, 0, sizeof *re);
    // regfree frees the fastmap with free().
    re->fastmap = malloc(256); /* lint: allow raw-alloc: regfree frees it */
    if (re->fastmap == NULL)
        return REG_ESPACE;
    pthread_mutex_lock(&cmd_regex_syntax_lock);
    reg_syntax_t old = re_set_syntax(syn);
    const char *err = re_compile_pattern(pattern, strlen(pattern), re);
    re_set_syntax(old);
    pthread_mutex_unlock(&cmd_regex_syntax_lock);
    if (err != NULL) {
        // The syntax differs from regcomp's only in what '.' matches, so
        // regcomp fails on the same pattern the same way: its code, and a
        // regex_t that regerror can read.
        regfree(re);
        int rc = regcomp(re, pattern, cflags);
        if (rc == 0) { // cannot happen; fail as the first compile did
            regfree(re);
            memset(re, 0, sizeof *re);
            return REG_BADPAT;
        }
        return rc;
    }
    re->newline_anchor = (cflags & REG_NEWLINE) != 0;
    re->no_sub = (cflags & REG_NOSUB) != 0;
    if (re_compile_fastmap(re) != 0) {
        regfree(re);
        return REG_ESPACE;
    }
    return 0;
}
