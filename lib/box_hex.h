/* SPDX-License-Identifier: Apache-2.0 */
/* The value of one hexadecimal digit, for every parser that reads them. */
#ifndef BOX_HEX_H
#define BOX_HEX_H

/* 0..15 for '0'-'9', 'a'-'f', 'A'-'F'; -1 for anything else (a negative
 * char included). */
static inline int
box_hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#endif
