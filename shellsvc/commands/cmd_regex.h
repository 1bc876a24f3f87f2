/* SPDX-License-Identifier: Apache-2.0 */
/* POSIX regular expressions as GNU grep, sed and gawk compile them. */
#ifndef CMD_REGEX_H
#define CMD_REGEX_H

#include <regex.h>

/* regcomp(3) with the same flags, return values and regfree, except that
 * '.' matches a NUL byte: glibc's regcomp sets RE_DOT_NOT_NULL, and the
 * GNU tools' own syntaxes clear it, so a line holding NUL bytes (grep -a,
 * sed, awk) matches as it does there. */
int cmd_regcomp(regex_t *re, const char *pattern, int cflags);

#endif
