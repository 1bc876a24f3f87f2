/* SPDX-License-Identifier: Apache-2.0 */
/* HTTP's character classes (RFC 9110 §5.6.2, §5.6.3), for the head and
 * body parsers alike. */
#ifndef GW_CHARS_H
#define GW_CHARS_H

#include <stdbool.h>
#include <string.h>

/* A token's character: letters, digits, and !#$%&'*+-.^_`|~. */
static inline bool
gw_is_tchar(unsigned char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
        (c >= 'A' && c <= 'Z'))
        return true;
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* Optional whitespace: SP or HTAB. */
static inline bool
gw_is_ws(unsigned char c)
{
    return c == ' ' || c == '\t';
}

#endif
